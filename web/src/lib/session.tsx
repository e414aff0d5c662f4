/**
 * The session: who is signed in, read from the access-token cookie (the server sets it at sign-in and on
 * every refresh). Re-read on window focus, on a notice from another tab, and optionally on an interval;
 * login and logout clear the query cache so nothing of the previous user stays on screen.
 */
import { useQueryClient } from '@tanstack/react-query';
import { createContext, use, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { authContract } from '@otog/schemas/api/auth';
import type { UserSummary } from '@otog/schemas/api/contract';
import { callApi, setSessionHooks } from './api.ts';
import { config } from './config.ts';
import { ACCESS_TOKEN_COOKIE, deleteCookie, readAccessToken } from './cookies.ts';
import { userFromToken } from './jwt.ts';

export type SessionStatus = 'loading' | 'authenticated' | 'unauthenticated';

export interface Session {
  readonly status: SessionStatus;
  readonly user: UserSummary | null;
  readonly isAuthenticated: boolean;
  readonly isAdmin: boolean;
  login(username: string, password: string): Promise<UserSummary>;
  logout(): Promise<void>;
  clearCache(): void;
}

const SessionContext = createContext<Session | null>(null);
const CHANNEL = 'otog-session';
/** How often the cookie is compared with what we know (the spec's 100 ms). */
const TOKEN_CHECK_MS = 100;

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [token, setToken] = useState<string | null>(() => readAccessToken());
  const channel = useRef<BroadcastChannel | null>(null);
  /** The token this tab last acted on: its own sign-in and sign-out are not news that clears the cache again. */
  const known = useRef<string | null>(token);

  const user = useMemo(() => (token ? userFromToken(token) : null), [token]);

  const reread = useCallback(() => setToken(readAccessToken()), []);

  const clearCache = useCallback(() => queryClient.clear(), [queryClient]);

  const signedOut = useCallback(() => {
    deleteCookie(ACCESS_TOKEN_COOKIE);
    known.current = null;
    setToken(null);
    queryClient.clear();
    channel.current?.postMessage('changed');
    void navigate('/login');
  }, [navigate, queryClient]);

  // Token changes made by the API client (a refresh) and endings of the session.
  useEffect(() => {
    setSessionHooks({
      refreshed: () => {
        reread();
        channel.current?.postMessage('changed');
      },
      expired: signedOut,
    });
  }, [reread, signedOut]);

  useEffect(() => {
    const bc = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(CHANNEL);
    channel.current = bc;
    known.current = readAccessToken();
    const onNotice = () => {
      const now = readAccessToken();
      // Another tab signed in or out: what this tab has cached belongs to someone else now. Reset, not
      // clear: clearing under queries in flight would leave their observers waiting forever.
      if (userFromToken(now ?? '')?.id !== userFromToken(known.current ?? '')?.id) void queryClient.resetQueries();
      known.current = now;
      reread();
    };
    bc?.addEventListener('message', onNotice);
    window.addEventListener('focus', onNotice);
    const check = window.setInterval(() => {
      if (readAccessToken() !== known.current) onNotice();
    }, TOKEN_CHECK_MS);
    const poll = config.sessionPollSeconds > 0 ? window.setInterval(onNotice, config.sessionPollSeconds * 1000) : undefined;
    return () => {
      bc?.close();
      window.removeEventListener('focus', onNotice);
      window.clearInterval(check);
      if (poll) window.clearInterval(poll);
    };
  }, [queryClient, reread]);

  const login = useCallback(
    async (username: string, password: string) => {
      const session = await callApi(authContract.login, { body: { username, password } });
      queryClient.clear();
      // Known now, so the cookie check does not clear the cache again under the next page's first queries.
      known.current = readAccessToken();
      setToken(readAccessToken() ?? session.accessToken);
      channel.current?.postMessage('changed');
      return session.user;
    },
    [queryClient],
  );

  const logout = useCallback(async () => {
    try {
      await callApi(authContract.logout);
    } catch {
      // Signed out here whatever the server said: the cookie goes and the refresh token expires on its own.
    }
    signedOut();
  }, [signedOut]);

  const value = useMemo<Session>(
    () => ({
      // The cookie is read synchronously, so the session is never 'loading' here; the state exists for the spec's clients.
      status: user ? 'authenticated' : 'unauthenticated',
      user,
      isAuthenticated: user !== null,
      isAdmin: user?.role === 'admin',
      login,
      logout,
      clearCache,
    }),
    [user, login, logout, clearCache],
  );
  return <SessionContext value={value}>{children}</SessionContext>;
}

export function useSession(): Session {
  const session = use(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
