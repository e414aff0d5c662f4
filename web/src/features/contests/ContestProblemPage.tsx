/**
 * /contest/{id}/problem/{pid}: a contest problem with the problem page's tabs; submissions count in the
 * contest and the results tab lists the caller's own in it. Only while the contest runs: otherwise back to
 * the contest's home.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, Navigate } from 'react-router';
import { contestContract, type Contest } from '@otog/schemas/api/contest';
import { ProblemTabs } from '../../components/problem/ProblemTabs.tsx';
import { LoadFailed } from '../../components/ui/Empty.tsx';
import { PageLoading } from '../../components/ui/Spinner.tsx';
import { ApiError } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { NotFoundPage } from '../../app/NotFoundPage.tsx';
import { useIdParam } from './contest-hooks.ts';
import '../../components/problem/problem.css';

export function ContestProblemPage({ contest, running }: { contest: Contest; running: boolean }) {
  const problemId = useIdParam('problemId');
  if (!running) return <Navigate to={`/contest/${contest.id}`} replace />;
  if (problemId === null) return <NotFoundPage />;
  // Another problem is another page: its editor draft and tabs start afresh.
  return <ContestProblem key={problemId} contest={contest} problemId={problemId} />;
}

function ContestProblem({ contest, problemId }: { contest: Contest; problemId: number }) {
  const problem = useQuery(apiQuery(contestContract.getContestProblem, { params: { contestId: contest.id, problemId } }));
  usePageTitle(problem.data?.name ?? 'โจทย์');
  if (problem.isPending) return <PageLoading />;
  if (problem.isError) {
    if (problem.error instanceof ApiError && (problem.error.status === 404 || problem.error.status === 403)) return <NotFoundPage />;
    return (
      <section className="page">
        <LoadFailed error={problem.error} fallback='โหลดโจทย์ไม่สำเร็จ กรุณาลองใหม่อีกครั้ง' onRetry={() => void problem.refetch()} />
      </section>
    );
  }
  const data = problem.data;
  return (
    <section className="page problem-page">
      <header className="problem-header">
        <div className="problem-heading">
          <p className="muted problem-kicker">
            <Link to={`/contest/${contest.id}`}>{contest.name}</Link> / ข้อ {data.id}
          </p>
          <h1 className="page-title">{data.name}</h1>
        </div>
      </header>
      <ProblemTabs problem={data} contestId={contest.id} />
    </section>
  );
}
