/**
 * /contest: the running and upcoming contests on the server's clock. Exactly one: straight to it. None:
 * "ยังไม่มีการแข่งขัน" and the history. Several: a table with a countdown to each one's start (or end while
 * running); when a countdown reaches 0 the list is read again.
 */
import { useQuery } from '@tanstack/react-query';
import { Navigate } from 'react-router';
import { contestContract } from '@otog/schemas/api/contest';
import { ButtonLink } from '../../components/ui/Button.tsx';
import { LoadFailed } from '../../components/ui/Empty.tsx';
import { PageLoading } from '../../components/ui/Spinner.tsx';
import { config } from '../../lib/config.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { useServerNow } from '../../lib/server-time.ts';
import { useSession } from '../../lib/session.tsx';
import { ContestTable } from './ContestTable.tsx';
import { useOnChange } from './contest-hooks.ts';
import { contestPhase } from './phase.ts';
import './contests.css';

export default function CurrentContestsPage() {
  usePageTitle('แข่งขัน');
  const { isAdmin } = useSession();
  const contests = useQuery(apiQuery(contestContract.getCurrentContests));
  const now = useServerNow();
  const phases = contests.data?.map((contest) => contestPhase(contest, now)).join();
  useOnChange(phases, () => void contests.refetch());
  // The history is an admin page on an offline site.
  const historyLink = config.offline && !isAdmin ? null : (
    <ButtonLink to="/contest/history" variant="outline">
      ประวัติการแข่งขัน
    </ButtonLink>
  );

  if (contests.isPending) return <PageLoading />;
  if (contests.isError) {
    return (
      <section className="page">
        <h1 className="page-title">แข่งขัน</h1>
        <LoadFailed error={contests.error} fallback='โหลดการแข่งขันไม่สำเร็จ กรุณาลองใหม่อีกครั้ง' onRetry={() => void contests.refetch()} />
      </section>
    );
  }
  const [only, ...others] = contests.data;
  if (only && others.length === 0) return <Navigate to={`/contest/${only.id}`} replace />;
  if (!only) {
    return (
      <section className="page page-narrow center-text contest-none">
        <h1 className="page-title">ยังไม่มีการแข่งขัน</h1>
        {historyLink}
      </section>
    );
  }
  return (
    <section className="page">
      <div className="row-between">
        <h1 className="page-title">การแข่งขันปัจจุบัน</h1>
        {historyLink}
      </div>
      <ContestTable contests={contests.data} label="การแข่งขันปัจจุบัน" now={now} />
    </section>
  );
}
