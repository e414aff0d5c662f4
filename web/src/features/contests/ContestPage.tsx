/**
 * The contest section's routes: /contest (the running or next contests), /contest/history, and one contest's
 * pages under /contest/{id}: its home, problems, announcements, submissions (admin) and scoreboard.
 */
import { lazy } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { NotFoundPage } from '../../app/NotFoundPage.tsx';
import { config } from '../../lib/config.ts';
import { useSession } from '../../lib/session.tsx';

const CurrentContestsPage = lazy(() => import('./CurrentContestsPage.tsx'));
const ContestHistoryPage = lazy(() => import('./ContestHistoryPage.tsx'));
const ContestLayout = lazy(() => import('./ContestLayout.tsx'));
const ScoreboardPage = lazy(() => import('./scoreboard/ScoreboardPage.tsx'));

export default function ContestPage() {
  const { isAdmin } = useSession();
  // Offline, the list of every contest is the admins' (the API says so too): contestants stay on /contest.
  const historyHidden = config.offline && !isAdmin;
  return (
    <Routes>
      <Route index element={<CurrentContestsPage />} />
      <Route path="history" element={historyHidden ? <Navigate to="/contest" replace /> : <ContestHistoryPage />} />
      <Route path=":contestId/*" element={<ContestLayout scoreboard={<ScoreboardPage />} />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}
