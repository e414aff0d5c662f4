/**
 * /admin/contest/:contestId: one contest's settings with links to its public pages, and its problems,
 * participants, announcements and the scoreboard's reveal. `?add=problems` opens the problem picker (the
 * list's "เพิ่มโจทย์" comes here).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { contestContract } from '@otog/schemas/api/contest';
import { problemContract } from '@otog/schemas/api/problem';
import { Badge } from '../../components/ui/Badge.tsx';
import { Button, ButtonLink } from '../../components/ui/Button.tsx';
import { Empty } from '../../components/ui/Empty.tsx';
import { PencilIcon, PlusIcon, TrashIcon } from '../../components/ui/icons.tsx';
import { MenuItem } from '../../components/ui/Menu.tsx';
import { RowMenu } from '../../components/ui/RowMenu.tsx';
import { Spinner } from '../../components/ui/Spinner.tsx';
import { apiUrl, callApi, errorMessage } from '../../lib/api.ts';
import { formatLongDateTime } from '../../lib/dates.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery, invalidatePaths } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import { Announcements } from './AnnouncementsPage.tsx';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { CONTEST_MODE_LABELS, GRADING_MODE_LABELS, SCOREBOARD_POLICY_LABELS } from './contest-form.ts';
import { ContestFormDialog } from './ContestFormDialog.tsx';
import { ContestParticipants } from './ContestParticipants.tsx';
import { ContestProblemsDialog } from './ContestProblemsDialog.tsx';
import { DeleteContestDialog } from './DeleteContestDialog.tsx';
import { RejudgeProblemDialog } from './RejudgeProblemDialog.tsx';
import type { AdminContestDetail } from './types.ts';

type ContestProblem = AdminContestDetail['contestProblem'][number]['problem'];
type Action = { kind: 'edit' | 'delete' | 'reveal' } | { kind: 'remove' | 'rejudge'; problem: ContestProblem };

function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <section className="stack admin-contest-section" aria-labelledby={id}>
      <div className="admin-toolbar">
        <h2 id={id} className="admin-section-title">
          {title}
        </h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

function ProblemsTable({ contest, onAction }: { contest: AdminContestDetail; onAction(action: Action): void }) {
  if (contest.contestProblem.length === 0) return <Empty>ยังไม่มีโจทย์ในการแข่งขันนี้ กด “เพิ่มโจทย์” เพื่อเลือกโจทย์</Empty>;
  return (
    <div className="table-wrap">
      <table className="table admin-table">
        <caption className="sr-only">โจทย์ของการแข่งขัน {contest.name}</caption>
        <thead>
          <tr>
            <th scope="col" className="num">#</th>
            <th scope="col">ชื่อ</th>
            <th scope="col">ชื่อเล่น</th>
            <th scope="col" className="num">คะแนน</th>
            <th scope="col">
              <span className="sr-only">ตัวเลือก</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {contest.contestProblem.map(({ problem }) => (
            <tr key={problem.id}>
              <td className="num">{problem.id}</td>
              <td className="admin-name-cell">
                <a href={apiUrl(problemContract.getProblemDoc, { params: { problemId: problem.id } })} target="_blank" rel="noreferrer">
                  {problem.name}
                  <span className="sr-only"> (เปิด PDF ในแท็บใหม่)</span>
                </a>
              </td>
              <td className="admin-nowrap">{problem.sname ?? '-'}</td>
              <td className="num">{problem.score}</td>
              <td>
                <RowMenu label={`ตัวเลือกของโจทย์ ${problem.name}`}>
                  <MenuItem onSelect={() => onAction({ kind: 'rejudge', problem })}>ตรวจข้อนี้ใหม่</MenuItem>
                  <MenuItem danger onSelect={() => onAction({ kind: 'remove', problem })}>
                    ลบโจทย์ออกจากการแข่งขัน
                  </MenuItem>
                </RowMenu>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Settings({ contest }: { contest: AdminContestDetail }) {
  const items: Array<[string, ReactNode]> = [
    ['โหมด', GRADING_MODE_LABELS[contest.gradingMode]],
    ['เรท', contest.mode === 'rated' ? <Badge tone="orange">{CONTEST_MODE_LABELS.rated}</Badge> : <Badge tone="gray">{CONTEST_MODE_LABELS.unrated}</Badge>],
    ['ดูอันดับ', SCOREBOARD_POLICY_LABELS[contest.scoreboardPolicy]],
    ['เวลาเริ่ม', formatLongDateTime(contest.timeStart)],
    ['เวลาจบ', formatLongDateTime(contest.timeEnd)],
    ['แช่แข็งกระดานคะแนน', contest.freezeAt ? `ตั้งแต่ ${formatLongDateTime(contest.freezeAt)}` : 'ไม่แช่แข็ง'],
  ];
  return (
    <dl className="admin-settings">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function ContestPage() {
  const contestId = Number(useParams().contestId);
  const valid = Number.isInteger(contestId) && contestId > 0 && contestId <= 2_147_483_647;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const query = useQuery({ ...apiQuery(contestContract.getContestForAdmin, { params: { contestId } }), enabled: valid });
  const contest = query.data;
  usePageTitle(contest ? `ระบบจัดการ: ${contest.name}` : 'ระบบจัดการ: การแข่งขัน');
  const [action, setAction] = useState<Action | null>(null);
  const close = () => setAction(null);
  const picking = params.get('add') === 'problems';
  const setPicking = (open: boolean) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (open) next.set('add', 'problems');
        else next.delete('add');
        return next;
      },
      { replace: true },
    );

  const back = (
    <Link to="/admin/contest" className="admin-back">
      ← การแข่งขันทั้งหมด
    </Link>
  );
  if (!valid) return <Empty tone="error">ไม่พบการแข่งขันนี้ {back}</Empty>;
  if (!contest) {
    if (query.isError) {
      return (
        <Empty tone="error">
          <p>โหลดการแข่งขันไม่สำเร็จ: {errorMessage(query.error)}</p>
          {back}
        </Empty>
      );
    }
    return <Spinner label="กำลังโหลดการแข่งขัน..." />;
  }

  return (
    <div className="stack admin-contest">
      {back}
      <header className="card stack">
        <div className="admin-toolbar">
          <h2 className="admin-contest-title">
            <span className="muted">#{contest.id}</span> {contest.name}
          </h2>
          <div className="row admin-contest-actions">
            <Button size="sm" variant="outline" icon={<PencilIcon width={16} height={16} />} onClick={() => setAction({ kind: 'edit' })}>
              แก้ไขการแข่งขัน
            </Button>
            <Button size="sm" variant="outline" className="admin-danger-text" icon={<TrashIcon width={16} height={16} />} onClick={() => setAction({ kind: 'delete' })}>
              ลบการแข่งขัน
            </Button>
          </div>
        </div>
        <Settings contest={contest} />
        <div className="row admin-contest-links">
          <ButtonLink size="sm" variant="secondary" to={`/contest/${contest.id}`}>
            หน้าการแข่งขัน
          </ButtonLink>
          <ButtonLink size="sm" variant="secondary" to={`/contest/${contest.id}/scoreboard`}>
            กระดานคะแนน
          </ButtonLink>
        </div>
      </header>

      <Section
        title={`โจทย์ (${contest.contestProblem.length} ข้อ)`}
        actions={
          <Button variant="primary" size="sm" icon={<PlusIcon width={16} height={16} />} onClick={() => setPicking(true)}>
            เพิ่มโจทย์
          </Button>
        }
      >
        <ProblemsTable contest={contest} onAction={setAction} />
      </Section>

      <Section title="ผู้เข้าแข่งขัน">
        <ContestParticipants contestId={contest.id} />
      </Section>

      <Section title="ประกาศ">
        <Announcements contestId={contest.id} />
      </Section>

      {contest.freezeAt ? (
        <Section title="เปิดเผยกระดานคะแนน">
          <div className="card stack">
            <p>
              กระดานคะแนนแช่แข็งตั้งแต่ <strong>{formatLongDateTime(contest.freezeAt)}</strong> ผู้เข้าแข่งขันเห็นคะแนนตามที่เป็น ณ ตอนนั้น
              จนกว่าจะเปิดเผย (ผู้ดูแลเห็นกระดานจริงเสมอ) เปิดเผยซ้ำได้โดยไม่มีผลอะไรเพิ่ม
            </p>
            <div>
              <Button variant="primary" onClick={() => setAction({ kind: 'reveal' })}>
                เปิดเผยกระดานคะแนน
              </Button>
            </div>
          </div>
        </Section>
      ) : null}

      {picking ? (
        <ContestProblemsDialog contestId={contest.id} current={new Set(contest.contestProblem.map(({ problem }) => problem.id))} onClose={() => setPicking(false)} />
      ) : null}
      {action?.kind === 'edit' ? <ContestFormDialog contest={contest} onClose={close} /> : null}
      {action?.kind === 'delete' ? <DeleteContestDialog contest={contest} onClose={close} onDeleted={() => void navigate('/admin/contest')} /> : null}
      {action?.kind === 'rejudge' ? <RejudgeProblemDialog problem={action.problem} onClose={close} /> : null}
      {action?.kind === 'remove' ? (
        <ConfirmDialog
          title="ลบโจทย์ออกจากการแข่งขัน"
          confirmLabel="ลบโจทย์ออกจากการแข่งขัน"
          danger
          onClose={close}
          onConfirm={async () => {
            await toast.promise(
              callApi(contestContract.toggleProblemToContest, { params: { contestId: contest.id, problemId: action.problem.id }, body: { show: false } }),
              {
                loading: 'กำลังนำโจทย์ออก...',
                success: `นำ ${action.problem.name} ออกจากการแข่งขันแล้ว`,
                error: (error) => errorMessage(error, 'นำโจทย์ออกไม่สำเร็จ'),
              },
            );
            void invalidatePaths(queryClient, '/contest');
          }}
        >
          <p>
            ต้องการนำข้อ <strong>#{action.problem.id} {action.problem.name}</strong> ออกจากการแข่งขัน <strong>{contest.name}</strong> ใช่หรือไม่?
            ตัวโจทย์ยังอยู่ในระบบ และเพิ่มกลับได้ภายหลัง
          </p>
        </ConfirmDialog>
      ) : null}
      {action?.kind === 'reveal' ? (
        <ConfirmDialog
          title="เปิดเผยกระดานคะแนน"
          confirmLabel="เปิดเผยกระดานคะแนน"
          onClose={close}
          onConfirm={async () => {
            await toast.promise(callApi(contestContract.revealScoreboard, { params: { contestId: contest.id } }), {
              loading: 'กำลังเปิดเผยกระดานคะแนน...',
              success: 'เปิดเผยกระดานคะแนนแล้ว ทุกคนเห็นคะแนนจริง',
              error: (error) => errorMessage(error, 'เปิดเผยกระดานคะแนนไม่สำเร็จ'),
            });
            void invalidatePaths(queryClient, '/contest');
          }}
        >
          <p>ทุกคนจะเห็นกระดานคะแนนจริงของ {contest.name} ทันที (ยกเลิกไม่ได้ เว้นแต่ตั้งเวลาแช่แข็งใหม่)</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
