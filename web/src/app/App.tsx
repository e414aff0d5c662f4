/** Providers and routes. Each page is its own chunk, so /problem does not download the admin or the editor. */
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { PageLoading } from '../components/ui/Spinner.tsx';
import { config } from '../lib/config.ts';
import { createQueryClient } from '../lib/query.ts';
import { SessionProvider, useSession } from '../lib/session.tsx';
import { ThemeProvider } from '../lib/theme.tsx';
import { Toaster } from '../lib/toast.tsx';
import { NotFoundPage } from './NotFoundPage.tsx';
import { preloadFirstPage } from './preload.ts';
import { Shell } from './Shell.tsx';

const loadLoginPage = () => import('../features/auth/LoginPage.tsx');
const loadProblemListPage = () => import('../features/problems/ProblemListPage.tsx');
const loadProblemPage = () => import('../features/problems/ProblemPage.tsx');
const loadSubmissionListPage = () => import('../features/submissions/SubmissionListPage.tsx');
const loadSubmissionPage = () => import('../features/submissions/SubmissionPage.tsx');

const HomePage = lazy(() => import('../features/home/HomePage.tsx'));
const LoginPage = lazy(loadLoginPage);
const RegisterPage = lazy(() => import('../features/auth/RegisterPage.tsx'));
const ProblemListPage = lazy(loadProblemListPage);
const ProblemPage = lazy(loadProblemPage);
const SubmissionListPage = lazy(loadSubmissionListPage);
const SubmissionPage = lazy(loadSubmissionPage);
const ContestPage = lazy(() => import('../features/contests/ContestPage.tsx'));
const ProfilePage = lazy(() => import('../features/users/ProfilePage.tsx'));
const AdminApp = lazy(() => import('../features/admin/AdminApp.tsx'));

/**
 * Once the first page has its data, the everyday pages load in the background, so moving between them is
 * instant; not before, so they never compete with what the first page needs.
 */
function prefetchEverydayPages(queryClient: QueryClient): () => void {
  let timer = 0;
  const run = () => void Promise.all([loadLoginPage(), loadProblemListPage(), loadProblemPage(), loadSubmissionListPage(), loadSubmissionPage()]).catch(() => {});
  const whenQuiet = () => {
    if (queryClient.isFetching() > 0) timer = window.setTimeout(whenQuiet, 500);
    else if ('requestIdleCallback' in window) window.requestIdleCallback(run, { timeout: 2_000 });
    else run();
  };
  timer = window.setTimeout(whenQuiet, 1_000);
  return () => window.clearTimeout(timer);
}

/** Pages an offline (on-site) contest hides: they go to the sign-in page, as OTOG's do. */
function Online({ children }: { children: ReactNode }) {
  return config.offline ? <Navigate to="/login" replace /> : children;
}

/** Offline, the contest pages need a sign-in (the API refuses visitors): a visitor goes to sign in. */
function SignedInWhenOffline({ children }: { children: ReactNode }) {
  const { status } = useSession();
  return config.offline && status === 'unauthenticated' ? <Navigate to="/login" replace /> : children;
}

function AdminOnly({ children }: { children: ReactNode }) {
  const { isAdmin } = useSession();
  return isAdmin ? children : <NotFoundPage />;
}

export function App() {
  const [queryClient] = useState(() => {
    const client = createQueryClient();
    preloadFirstPage(client, window.location.pathname);
    return client;
  });
  useEffect(() => prefetchEverydayPages(queryClient), [queryClient]);
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeProvider>
        <BrowserRouter>
          <SessionProvider>
            <Shell>
              <Suspense fallback={<PageLoading />}>
                <Routes>
                  <Route path="/" element={<HomePage />} />
                  <Route path="/login" element={<LoginPage />} />
                  <Route path="/register" element={<Online><RegisterPage /></Online>} />
                  <Route path="/problem" element={<Online><ProblemListPage /></Online>} />
                  <Route path="/problem/:problemId" element={<Online><ProblemPage /></Online>} />
                  <Route path="/submission" element={<Online><SubmissionListPage /></Online>} />
                  <Route path="/submission/:submissionId" element={<SubmissionPage />} />
                  <Route path="/contest/*" element={<SignedInWhenOffline><ContestPage /></SignedInWhenOffline>} />
                  <Route path="/user/:userId" element={<Online><ProfilePage /></Online>} />
                  <Route path="/admin/*" element={<AdminOnly><AdminApp /></AdminOnly>} />
                  <Route path="*" element={<NotFoundPage />} />
                </Routes>
              </Suspense>
            </Shell>
            <Toaster />
          </SessionProvider>
        </BrowserRouter>
      </ThemeProvider>
    </QueryClientProvider>
  );
}
