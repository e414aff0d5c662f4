/**
 * /contest/{id}/*: the contest's sidebar (a top section on narrow screens) and its pages. The phase comes
 * from the server's clock. GET /contest/{id}/detail carries the problems and the announcement count; before
 * the start it is admin-only (403), and the page falls back to GET /contest/{id} for the countdown. At each
 * boundary (start, end) the contest's data is read again.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, type ReactNode } from 'react';
import { Link, NavLink, Route, Routes } from 'react-router';
import { contestContract, type Contest, type ContestDetail } from '@otog/schemas/api/contest';
import { Badge } from '../../components/ui/Badge.tsx';
import { LoadFailed } from '../../components/ui/Empty.tsx';
import { PageLoading } from '../../components/ui/Spinner.tsx';
import { ApiError } from '../../lib/api.ts';
import { config } from '../../lib/config.ts';
import { apiQuery, invalidatePaths } from '../../lib/query.ts';
import { useServerNow } from '../../lib/server-time.ts';
import { useSession } from '../../lib/session.tsx';
import { NotFoundPage } from '../../app/NotFoundPage.tsx';
import { ContestAnnouncementPage } from './ContestAnnouncementPage.tsx';
import { ContestHome } from './ContestHome.tsx';
import { useContestPhase, useIdParam, useOnChange } from './contest-hooks.ts';
import { formatCountdown, scoreboardVisible, scoreTone, untilNextBoundary, type ContestPhase } from './phase.ts';
import './contests.css';

// The problem page (editor, statement) and the admins' submission list are chunks of their own: the
// scoreboard and the contest's home do not download them.
const ContestProblemPage = lazy(() => import('./ContestProblemPage.tsx').then((module) => ({ default: module.ContestProblemPage })));
const ContestSubmissionPage = lazy(() => import('./ContestSubmissionPage.tsx').then((module) => ({ default: module.ContestSubmissionPage })));

const isForbidden = (error: unknown) => error instanceof ApiError && error.status === 403;
const isMissing = (error: unknown) => error instanceof ApiError && error.status === 404;

export default function ContestLayout({ scoreboard }: { scoreboard: ReactNode }) {
  const contestId = useIdParam('contestId');
  return contestId === null ? <NotFoundPage /> : <ContestView key={contestId} contestId={contestId} scoreboard={scoreboard} />;
}

function ContestView({ contestId, scoreboard }: { contestId: number; scoreboard: ReactNode }) {
  const queryClient = useQueryClient();
  const { isAdmin } = useSession();
  const params = { params: { contestId } };
  const detail = useQuery({ ...apiQuery(contestContract.getContestDetail, params), retry: false });
  // Before the start only the contest row is readable (for its name and countdown).
  const row = useQuery({ ...apiQuery(contestContract.getContest, params), enabled: isForbidden(detail.error) });
  const contest: Contest | undefined = detail.data ?? row.data;
  const phase = useContestPhase(contest);
  useOnChange(phase, () => void invalidatePaths(queryClient, '/contest'));

  const error = detail.data ? null : isForbidden(detail.error) ? row.error : detail.error;
  if (isMissing(error)) return <NotFoundPage />;
  if (error) {
    return (
      <section className="page">
        <LoadFailed error={error} fallback='โหลดการแข่งขันไม่สำเร็จ กรุณาลองใหม่อีกครั้ง' onRetry={() => void (detail.isError ? detail.refetch() : row.refetch())} />
      </section>
    );
  }
  if (!contest || !phase) return <PageLoading />;

  const showScoreboard = scoreboardVisible(contest.scoreboardPolicy, phase, { isAdmin, offline: config.offline });
  const running = phase === 'RUNNING';
  return (
    <div className="contest-layout">
      <ContestSidebar contest={contest} detail={detail.data} phase={phase} showScoreboard={showScoreboard} isAdmin={isAdmin} />
      <div className="contest-main">
        <Suspense fallback={<PageLoading />}>
          <Routes>
            <Route index element={<ContestHome contest={contest} phase={phase} showScoreboard={showScoreboard} />} />
            <Route path="problem/:problemId" element={<ContestProblemPage contest={contest} running={running} />} />
            <Route path="announcement" element={<ContestAnnouncementPage contest={contest} />} />
            <Route path="submission" element={isAdmin ? <ContestSubmissionPage contest={contest} /> : <NotFoundPage />} />
            {/* Offline, the scoreboard is the admins' (the API refuses everyone else). */}
            <Route path="scoreboard" element={config.offline && !isAdmin ? <NotFoundPage /> : scoreboard} />
            <Route path="*" element={<NotFoundPage />} />
          </Routes>
        </Suspense>
      </div>
    </div>
  );
}

function ContestSidebar({ contest, detail, phase, showScoreboard, isAdmin }: { contest: Contest; detail: ContestDetail | undefined; phase: ContestPhase; showScoreboard: boolean; isAdmin: boolean }) {
  const base = `/contest/${contest.id}`;
  const announcements = detail?._count.announcements ?? 0;
  return (
    <aside className="contest-sidebar" aria-labelledby="contest-sidebar-title">
      <p id="contest-sidebar-title" className="contest-sidebar-title">
        {contest.name}
      </p>
      <nav aria-label="เมนูการแข่งขัน">
        <ul className="contest-nav">
          <li>
            <NavLink to={base} end className="nav-link">
              หน้าหลัก
            </NavLink>
          </li>
          {showScoreboard ? (
            <li>
              <NavLink to={`${base}/scoreboard`} className="nav-link">
                ตารางคะแนน
              </NavLink>
            </li>
          ) : null}
          {isAdmin ? (
            <li>
              <NavLink to={`${base}/submission`} className="nav-link">
                การส่ง
              </NavLink>
            </li>
          ) : null}
        </ul>
      </nav>
      {phase === 'RUNNING' && detail ? <RunningPanel contest={detail} /> : null}
      {announcements > 0 ? (
        <Link to={`${base}/announcement`} className="contest-alert">
          <strong>ประกาศ!</strong> กดอ่านด้วย
        </Link>
      ) : null}
    </aside>
  );
}

/** While running: the time left, the caller's total, and the problems with their scores. */
function RunningPanel({ contest }: { contest: ContestDetail }) {
  const scores = useQuery(apiQuery(contestContract.getUserContestScores, { params: { contestId: contest.id } }));
  const scoreOf = new Map((scores.data ?? []).map((cell) => [cell.problemId, cell.score]));
  const problems = contest.contestProblem.map(({ problem }) => problem).sort((a, b) => a.id - b.id);
  const total = problems.reduce((sum, problem) => sum + (scoreOf.get(problem.id) ?? 0), 0);
  const full = problems.reduce((sum, problem) => sum + problem.score, 0);
  return (
    <div className="contest-running">
      <TimeLeft contest={contest} />
      <p className="contest-total" data-testid="contest-total">
        คะแนนรวม <span className="contest-total-value">{total} / {full}</span>
      </p>
      <h2 className="contest-problems-title">โจทย์</h2>
      <ul className="contest-problems">
        {problems.map((problem) => {
          const score = scoreOf.get(problem.id) ?? 0;
          return (
            <li key={problem.id}>
              <NavLink to={`/contest/${contest.id}/problem/${problem.id}`} className="contest-problem-link" data-problem-id={problem.id}>
                <span className="contest-problem-name">{problem.name}</span>
                <Badge tone={scoreTone(score, problem.score)} className="contest-problem-score">
                  <span className="sr-only">คะแนน </span>
                  {score} / {problem.score}
                </Badge>
              </NavLink>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function TimeLeft({ contest }: { contest: Contest }) {
  const now = useServerNow();
  return (
    <p className="contest-time-left">
      เหลือเวลาอีก <span className="contest-clock">{formatCountdown(untilNextBoundary(contest, now))}</span>
    </p>
  );
}
