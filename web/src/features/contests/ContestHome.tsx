/**
 * The contest's home: its state in a heading (about to start with the time until then, running with the
 * time left, or over with a link to the results when the scoreboard is open to the reader), then the
 * contest's announce text, which admins edit in place.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { contestContract, type Contest } from '@otog/schemas/api/contest';
import { CONTEST_ANNOUNCE_MAX } from '@otog/schemas/common/contest';
import { plainText, RichText } from '../../components/problem/RichText.tsx';
import { Button, ButtonLink } from '../../components/ui/Button.tsx';
import { TextAreaField } from '../../components/ui/Field.tsx';
import { PencilIcon } from '../../components/ui/icons.tsx';
import { callApi } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { invalidatePaths } from '../../lib/query.ts';
import { useServerNow } from '../../lib/server-time.ts';
import { useSession } from '../../lib/session.tsx';
import { toast } from '../../lib/toast.tsx';
import { formatThaiDuration, untilNextBoundary, type ContestPhase } from './phase.ts';

export function ContestHome({ contest, phase, showScoreboard }: { contest: Contest; phase: ContestPhase; showScoreboard: boolean }) {
  usePageTitle(contest.name);
  return (
    <section className="page contest-home">
      <header className="contest-hero">
        <h1 className="page-title">
          {phase === 'PENDING' ? `การแข่งขัน ${contest.name} กำลังจะเริ่ม` : phase === 'RUNNING' ? `การแข่งขัน ${contest.name}` : `การแข่งขัน ${contest.name} จบลงแล้ว`}
        </h1>
        {phase === 'FINISHED' ? (
          showScoreboard ? (
            <ButtonLink to={`/contest/${contest.id}/scoreboard`} variant="primary" size="lg">
              สรุปผลการแข่งขัน
            </ButtonLink>
          ) : null
        ) : (
          <TimeUntilBoundary contest={contest} phase={phase} />
        )}
      </header>
      <Announce contest={contest} />
    </section>
  );
}

function TimeUntilBoundary({ contest, phase }: { contest: Contest; phase: ContestPhase }) {
  const now = useServerNow();
  const duration = formatThaiDuration(untilNextBoundary(contest, now));
  return <p className="contest-hero-time">{phase === 'PENDING' ? `ในอีก ${duration}` : `เหลือเวลาอีก ${duration}`}</p>;
}

function Announce({ contest }: { contest: Contest }) {
  const { isAdmin } = useSession();
  const [editing, setEditing] = useState(false);
  const text = contest.announce ?? '';
  if (editing) return <AnnounceEditor contest={contest} onDone={() => setEditing(false)} />;
  if (!text.trim() && !isAdmin) return null;
  return (
    <section className="card contest-announce" aria-labelledby="contest-announce-title">
      <div className="row-between">
        <h2 id="contest-announce-title" className="card-title">
          ประกาศของการแข่งขัน
        </h2>
        {isAdmin ? (
          <Button size="sm" variant="outline" icon={<PencilIcon width={14} height={14} />} onClick={() => setEditing(true)}>
            แก้ไขประกาศ
          </Button>
        ) : null}
      </div>
      {text.trim() ? <RichText value={text} /> : <p className="muted">ยังไม่มีประกาศ</p>}
    </section>
  );
}

function AnnounceEditor({ contest, onDone }: { contest: Contest; onDone(): void }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState(() => plainText(contest.announce ?? ''));
  const save = useMutation({
    mutationFn: () => callApi(contestContract.patchContest, { params: { contestId: contest.id }, body: { announce: text.trim() ? text : null } }),
    onSuccess: async () => {
      toast.success('บันทึกประกาศแล้ว');
      await invalidatePaths(queryClient, '/contest');
      onDone();
    },
    onError: () => toast.error('บันทึกประกาศไม่สำเร็จ'),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form className="card form contest-announce" onSubmit={submit} aria-labelledby="contest-announce-edit-title">
      <h2 id="contest-announce-edit-title" className="card-title">
        แก้ไขประกาศของการแข่งขัน
      </h2>
      <TextAreaField label="ประกาศ" value={text} maxLength={CONTEST_ANNOUNCE_MAX} rows={8} className="contest-announce-input" onChange={(event) => setText(event.target.value)} />
      <div className="row contest-announce-actions">
        <Button variant="outline" onClick={onDone} disabled={save.isPending}>
          ยกเลิก
        </Button>
        <Button type="submit" variant="primary" loading={save.isPending}>
          บันทึก
        </Button>
      </div>
    </form>
  );
}
