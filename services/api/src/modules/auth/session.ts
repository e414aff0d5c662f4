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

export const REFRESH_COOKIE_PATH = '/api/auth';

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

export function setSessionCookies(reply: FastifyReply, settings: Pick<ApiSettings, 'cookieSecure'>, session: Session): void {
  void reply.setCookie(REFRESH_TOKEN_COOKIE, session.refresh.token, {
    httpOnly: true,
    path: REFRESH_COOKIE_PATH,
    sameSite: 'lax',
    secure: settings.cookieSecure,
    expires: session.refresh.expiresAt,
  });
  // Lives as long as the session, not the token: an expired token must still be sent, so the client gets
  // a 401 and refreshes, instead of silently browsing as an anonymous visitor.
  void reply.setCookie(ACCESS_TOKEN_COOKIE, session.accessToken, {
    httpOnly: false,
    path: '/',
    sameSite: 'lax',
    secure: settings.cookieSecure,
    expires: session.refresh.expiresAt,
  });
}

export function clearSessionCookies(reply: FastifyReply, settings: Pick<ApiSettings, 'cookieSecure'>): void {
  void reply.clearCookie(REFRESH_TOKEN_COOKIE, { httpOnly: true, path: REFRESH_COOKIE_PATH, sameSite: 'lax', secure: settings.cookieSecure });
  void reply.clearCookie(ACCESS_TOKEN_COOKIE, { path: '/', sameSite: 'lax', secure: settings.cookieSecure });
}
