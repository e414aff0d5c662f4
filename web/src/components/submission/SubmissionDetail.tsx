/**
 * OTOG's submission view (the dialog of the submission table and the /submission/{id} page): the status
 * line, the summary, the subtasks accordion with each subtask's verdict table, and the highlighted source
 * code with its actions (rejudge, share, copy, "เขียนข้อนี้"). Follows a pending submission live.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { submissionContract, type Submission, type SubmissionDetail } from '@otog/schemas/api/submission';
import type { Language, VerdictStatus } from '@otog/schemas/common/judging';
import { ApiError, callApi, errorMessage } from '../../lib/api.ts';
import { config } from '../../lib/config.ts';
import { formatDateTime, formatSeconds } from '../../lib/dates.ts';
import { copyText } from '../../lib/clipboard.ts';
import { LANGUAGE_LABEL } from '../../lib/languages.ts';
import { apiKey, apiQuery, invalidatePaths } from '../../lib/query.ts';
import { useRealtimeNeeded } from '../../lib/realtime.ts';
import { useSession } from '../../lib/session.tsx';
import { toast } from '../../lib/toast.tsx';
import { Badge, type Tone } from '../ui/Badge.tsx';
import { ButtonLink, IconButton } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { Empty } from '../ui/Empty.tsx';
import { CopyIcon, EyeIcon, EyeOffIcon, PencilIcon, RefreshIcon } from '../ui/icons.tsx';
import { UserAvatar } from '../UserAvatar.tsx';
import { highlight } from './highlight.ts';
import { isPending, pendingRefetchInterval, submissionQuery, useLiveSubmission } from './polling.ts';
import { SubmissionStatusBadge } from './SubmissionStatus.tsx';
import './submission.css';

type Subtask = NonNullable<SubmissionDetail['submissionResult']>['subtaskResults'][number];
type Verdict = Subtask['verdicts'][number];

const VERDICT: Record<VerdictStatus, { label: string; detail: string; tone: Tone }> = {
  ACCEPTED: { label: 'Accepted', detail: 'ผลลัพธ์ถูกต้อง', tone: 'green' },
  PARTIAL: { label: 'Partially Correct', detail: 'ผลลัพธ์ถูกบางส่วน', tone: 'yellow' },
  REJECTED: { label: 'Wrong Answer', detail: 'ผลลัพธ์ไม่ถูกต้อง', tone: 'red' },
  TIME_LIMIT_EXCEEDED: { label: 'Time Limit Exceeded', detail: 'ใช้เวลาเกินกำหนด', tone: 'orange' },
  RUNTIME_ERROR: { label: 'Runtime Error', detail: 'โปรแกรมทำงานผิดพลาด', tone: 'blue' },
  SKIPPED: { label: 'Skipped', detail: 'ข้าม', tone: 'gray' },
  PROBLEM_ERROR: { label: 'Problem Error', detail: 'โจทย์มีปัญหา', tone: 'purple' },
  INTERNAL_ERROR: { label: 'Internal Error', detail: 'ระบบตรวจขัดข้อง', tone: 'purple' },
};
const MEMORY_LIMIT_EXCEEDED = { label: 'Memory Limit Exceeded', detail: 'ใช้หน่วยความจำเกินกำหนด', tone: 'blue' as Tone };

const verdictInfo = (verdict: Verdict) =>
  verdict.status === 'RUNTIME_ERROR' && verdict.runtimeErrorKind === 'MEMORY_LIMIT_EXCEEDED' ? MEMORY_LIMIT_EXCEEDED : VERDICT[verdict.status];

/** kB, or "-" when the sandbox could not measure it (−1). */
const memory = (kilobytes: number) => (kilobytes < 0 ? '-' : String(kilobytes));
/** Raw subtask points may be fractional: at most two decimals. */
const points = (value: number) => String(Math.round(value * 100) / 100);

/**
 * The submission with its code and full result; when the code is not ours to see (403/401) the result alone
 * from GET /submission/{id}. The submission is watched on the realtime channel while on screen (a verdict
 * or a rejudge shows at once); both poll while pending only when the channel cannot tell. They share
 * their cache with the other views.
 */
export function useSubmissionDetail(submissionId: number) {
  useLiveSubmission(submissionId);
  const code = useQuery({
    ...apiQuery(submissionContract.getSubmissionWithSourceCode, { params: { submissionId } }),
    refetchInterval: pendingRefetchInterval,
  });
  const denied = code.error instanceof ApiError && (code.error.status === 403 || code.error.status === 401);
  const basic = useQuery({ ...submissionQuery(submissionId), enabled: denied });
  const data: Submission | SubmissionDetail | undefined = code.data ?? (denied ? basic.data : undefined);
  const error = data ? null : denied ? basic.error : code.error;
  // While it is judged the channel must stay up (a socket dropped at its token's expiry renews it).
  useRealtimeNeeded(data !== undefined && isPending(data.status));
  return { data, detail: code.data, denied, error };
}

export function SubmissionDetailView({ submissionId }: { submissionId: number }) {
  const { data, detail, denied, error } = useSubmissionDetail(submissionId);
  if (error) {
    return (
      <Empty tone="error">{error instanceof ApiError && error.status === 404 ? 'ไม่พบผลตรวจนี้' : errorMessage(error)}</Empty>
    );
  }
  if (!data) {
    return (
      <div className="submission-loading" aria-busy>
        <span className="spinner spinner-md" aria-hidden />
        <span className="sr-only">กำลังโหลดผลตรวจ...</span>
      </div>
    );
  }
  return (
    <div className="submission-detail stack">
      <Summary submission={data} />
      {detail ? (
        <>
          {detail.submissionResult && detail.submissionResult.subtaskResults.length > 0 ? (
            <Subtasks subtasks={detail.submissionResult.subtaskResults} />
          ) : null}
          <SourceCode code={detail.sourceCode} language={detail.language} actions={<CodeActions submission={detail} />} />
        </>
      ) : denied ? (
        <Empty>คุณไม่มีสิทธิ์ดูโค้ดนี้</Empty>
      ) : null}
    </div>
  );
}

function StatusLine({ submission }: { submission: Submission }) {
  const { isAdmin } = useSession();
  const [errorOpen, setErrorOpen] = useState(false);
  const errmsg = submission.submissionResult?.errmsg ?? null;
  switch (submission.status) {
    case 'waiting':
    case 'grading':
      return (
        <p className="submission-status-line" role="status">
          <span className="spinner spinner-sm" aria-hidden />
          {submission.status === 'waiting' ? 'กำลังรอตรวจ...' : 'กำลังตรวจ...'}
        </p>
      );
    case 'compileError':
      return (
        <div className="submission-status-line">
          {errmsg ? (
            <>
              <button type="button" className="badge badge-purple badge-button" aria-haspopup="dialog" onClick={() => setErrorOpen(true)}>
                Compilation Error
              </button>
              <span className="muted status-hint">กดเพื่อดูข้อความจากคอมไพเลอร์</span>
              <Dialog open={errorOpen} onClose={() => setErrorOpen(false)} title="Compilation Error" size="lg">
                <pre className="errmsg">{errmsg}</pre>
              </Dialog>
            </>
          ) : (
            <SubmissionStatusBadge status="compileError" />
          )}
        </div>
      );
    case 'judgeError':
      return (
        <div className="stack submission-status-line-stack">
          <div className="submission-status-line">
            <SubmissionStatusBadge status="judgeError" />
          </div>
          {isAdmin && errmsg ? <pre className="errmsg">{errmsg}</pre> : null}
        </div>
      );
    default:
      return (
        <div className="submission-status-line">
          <SubmissionStatusBadge status={submission.status} />
        </div>
      );
  }
}

function Summary({ submission }: { submission: Submission }) {
  const result = submission.submissionResult;
  const user = submission.user;
  return (
    <div className="stack submission-summary-wrap">
      <StatusLine submission={submission} />
      <ul className="submission-summary">
        <li>
          <strong>{result ? result.score : '-'}</strong> / {submission.problem.score} คะแนน
        </li>
        <li>เวลาที่ใช้ {result ? result.timeUsed / 1000 : '-'} วินาที</li>
        <li>ความจำที่ใช้ {result ? memory(result.memUsed) : '-'} kB</li>
        <li>ส่งเมื่อ {formatDateTime(submission.creationDate)}</li>
        <li>
          <span className="row submission-user">
            <UserAvatar userId={user.id} name={user.showName} size="sm" />
            {config.offline ? <span>{user.showName}</span> : <Link to={`/user/${user.id}`}>{user.showName}</Link>}
          </span>
        </li>
        <li>ภาษา {LANGUAGE_LABEL[submission.language]}</li>
      </ul>
      {result ? (
        <p className="result-line">
          <span className="muted">ผลตรวจ </span>
          <code className="result-string">{result.result}</code>
        </p>
      ) : null}
    </div>
  );
}

function subtaskTone(subtask: Subtask): Tone {
  if (subtask.score >= subtask.fullScore) return 'green';
  return subtask.score <= 0 ? 'red' : 'yellow';
}

function Subtasks({ subtasks }: { subtasks: Subtask[] }) {
  return (
    <div className="subtasks">
      {subtasks.map((subtask) => (
        <details key={subtask.id} className="subtask">
          <summary>
            <span className="subtask-name">ปัญหาย่อยที่ {subtask.subtaskIndex}</span>
            <Badge tone={subtaskTone(subtask)} className="score-badge">
              {points(subtask.score)} / {points(subtask.fullScore)}
            </Badge>
          </summary>
          <VerdictTable verdicts={subtask.verdicts} />
        </details>
      ))}
    </div>
  );
}

function VerdictTable({ verdicts }: { verdicts: Verdict[] }) {
  const firstSkipped = verdicts.findIndex((verdict) => verdict.status === 'SKIPPED');
  const shown = firstSkipped === -1 ? verdicts : verdicts.slice(0, firstSkipped + 1);
  return (
    <div className="table-wrap verdict-table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col" className="num">#</th>
            <th scope="col">ผลตรวจ</th>
            <th scope="col">รายละเอียด</th>
            <th scope="col" className="num">เวลาที่ใช้ (วินาที)</th>
            <th scope="col" className="num">ความจำที่ใช้ (kB)</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((verdict) => {
            const info = verdictInfo(verdict);
            const skipped = verdict.status === 'SKIPPED';
            return (
              <tr key={verdict.id}>
                <td className="num">{verdict.testcaseIndex}</td>
                <td>
                  <Badge tone={info.tone}>{info.label}</Badge>
                </td>
                <td>{info.detail}</td>
                <td className="num">{skipped ? '-' : formatSeconds(verdict.timeUsed)}</td>
                <td className="num">{skipped ? '-' : memory(verdict.memUsed)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Highlighted source with line numbers; `actions` float over its top-right corner. */
export function SourceCode({ code, language, actions }: { code: string; language: Language; actions?: ReactNode }) {
  const html = useMemo(() => highlight(code, language), [code, language]);
  const lines = useMemo(() => {
    const count = code.split('\n').length - (code.endsWith('\n') ? 1 : 0);
    return Array.from({ length: Math.max(1, count) }, (_, index) => index + 1).join('\n');
  }, [code]);
  return (
    <div className="code-block">
      {actions ? <div className="code-actions">{actions}</div> : null}
      <div className="code-scroll" tabIndex={0} role="region" aria-label={`โค้ดภาษา ${LANGUAGE_LABEL[language]}`}>
        <pre className="code-gutter" aria-hidden>
          {lines}
        </pre>
        <pre className="code-pre">
          <code className="code-text" dangerouslySetInnerHTML={{ __html: html }} />
        </pre>
      </div>
    </div>
  );
}

function CodeActions({ submission }: { submission: SubmissionDetail }) {
  const { user, isAdmin } = useSession();
  const queryClient = useQueryClient();
  const canShare = isAdmin || (user !== null && user.id === submission.userId);
  const codeKey = apiKey(submissionContract.getSubmissionWithSourceCode, { params: { submissionId: submission.id } });

  const rejudge = useMutation({
    mutationFn: () =>
      toast.promise(callApi(submissionContract.rejudgeSubmission, { params: { submissionId: submission.id } }), {
        loading: 'กำลังส่งตรวจใหม่...',
        success: 'ส่งตรวจใหม่แล้ว',
        error: (error) => errorMessage(error),
      }),
    onSuccess: (updated) => {
      queryClient.setQueryData<SubmissionDetail>(codeKey, (old) => (old ? { ...old, status: updated.status, submissionResult: null } : old));
      void invalidatePaths(queryClient, '/submission');
    },
  });

  const share = useMutation({
    mutationFn: (show: boolean) => callApi(submissionContract.shareSubmission, { params: { submissionId: submission.id }, body: { show } }),
    onSuccess: ({ public: shown }) => {
      toast.success(shown ? 'เปิดการแชร์แล้ว' : 'ปิดการแชร์แล้ว');
      queryClient.setQueryData<SubmissionDetail>(codeKey, (old) => (old ? { ...old, public: shown } : old));
      void invalidatePaths(queryClient, '/submission');
    },
    onError: (error) => toast.error(errorMessage(error)),
  });

  const copy = async () => {
    try {
      await copyText(submission.sourceCode);
      toast.success('คัดลอกไปยังคลิปบอร์ดแล้ว');
    } catch {
      toast.error('คัดลอกไม่สำเร็จ');
    }
  };

  return (
    <>
      {isAdmin ? (
        <IconButton label="ส่งตรวจใหม่" size="sm" variant="secondary" loading={rejudge.isPending} onClick={() => rejudge.mutate()}>
          <RefreshIcon />
        </IconButton>
      ) : null}
      {canShare ? (
        <IconButton
          label={submission.public ? 'แชร์โค้ดอยู่ (กดเพื่อปิดการแชร์)' : 'ไม่ได้แชร์โค้ด (กดเพื่อแชร์)'}
          size="sm"
          variant="secondary"
          aria-pressed={submission.public}
          loading={share.isPending}
          onClick={() => share.mutate(!submission.public)}
        >
          {submission.public ? <EyeIcon /> : <EyeOffIcon />}
        </IconButton>
      ) : null}
      <IconButton label="คัดลอกโค้ด" size="sm" variant="secondary" onClick={() => void copy()}>
        <CopyIcon />
      </IconButton>
      <ButtonLink to={`/problem/${submission.problem.id}?tab=editor`} size="sm" variant="primary">
        <PencilIcon width={14} height={14} />
        เขียนข้อนี้
      </ButtonLink>
    </>
  );
}
