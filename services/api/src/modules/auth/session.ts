/**
 * A session as the client sees it: an access token (also in the `accessToken` cookie, as OTOG's web keeps
 * it) and a refresh token in the httpOnly `RID` cookie, scoped to /api/auth so no other route ever sees it.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Queryable } from '@otog/platform/db/pool';
import { REFRESH_TOKEN_COOKIE } from '@otog/schemas/api/auth';
import { ACCESS_TOKEN_COOKIE, signAccessToken, type AuthUser } from '../../http/access.ts';
import type { ApiSettings } from '../../http/settings.ts';
import { issueRefreshToken, type IssuedRefreshToken } from './refresh-tokens.ts';

export interface Session {
  readonly accessToken: string;
  readonly refresh: IssuedRefreshToken;
}

/** Signs an access token and issues the refresh token bound to it, in a new session or continuing `familyId` (rotation). */
export async function openSession(
  app: Pick<FastifyInstance, 'jwt'>,
  db: Queryable,
  settings: Pick<ApiSettings, 'accessTokenTtlSeconds' | 'refreshTokenTtlSeconds'>,
  user: AuthUser,
  familyId?: string,
): Promise<Session> {
  const sid = familyId ?? randomUUID();
  const { token, jti } = signAccessToken(app, user, settings.accessTokenTtlSeconds, sid);
  const refresh = await issueRefreshToken(db, { userId: user.id, jwtId: jti, ttlSeconds: settings.refreshTokenTtlSeconds, familyId: sid });
  return { accessToken: token, refresh };
}

type CookieSettings = Pick<ApiSettings, 'cookieSecure' | 'cookieDomain' | 'refreshCookiePath'>;

/** What every session cookie shares: SameSite=Lax, Secure on HTTPS sites, and the configured domain. */
const common = (settings: CookieSettings) => ({
  sameSite: 'lax' as const,
  secure: settings.cookieSecure,
  ...(settings.cookieDomain ? { domain: settings.cookieDomain } : {}),
});

export function setSessionCookies(reply: FastifyReply, settings: CookieSettings, session: Session): void {
  void reply.setCookie(REFRESH_TOKEN_COOKIE, session.refresh.token, {
    ...common(settings),
    httpOnly: true,
    path: settings.refreshCookiePath,
    expires: session.refresh.expiresAt,
  });
  // Lives as long as the session, not the token: an expired token must still be sent, so the client gets
  // a 401 and refreshes, instead of silently browsing as an anonymous visitor.
  void reply.setCookie(ACCESS_TOKEN_COOKIE, session.accessToken, {
    ...common(settings),
    httpOnly: false,
    path: '/',
    expires: session.refresh.expiresAt,
  });
}

export function clearSessionCookies(reply: FastifyReply, settings: CookieSettings): void {
  void reply.clearCookie(REFRESH_TOKEN_COOKIE, { ...common(settings), httpOnly: true, path: settings.refreshCookiePath });
  void reply.clearCookie(ACCESS_TOKEN_COOKIE, { ...common(settings), path: '/' });
}
