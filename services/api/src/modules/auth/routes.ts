/**
 * The spec's Auth group: register, login, logout and refresh. Differences from OTOG, all for safety: login
 * never tells whether a username exists; refresh tokens are stored hashed, rotated, and a replayed one
 * revokes its whole session; logout revokes server-side.
 */
import type { FastifyInstance } from 'fastify';
import { authContract, REFRESH_TOKEN_COOKIE } from '@otog/schemas/api/auth';
import { decodeVerifiedIgnoringExpiry, tokenOf } from '../../http/access.ts';
import { forbidden, HttpError, unauthorized } from '../../http/errors.ts';
import { createKeyRateLimit } from '../../http/key-rate-limit.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { createAccount, findAccount, toSummary } from '../users/accounts.ts';
import { DUMMY_HASH_PROMISE, verifyPassword } from './passwords.ts';
import { consumeRefreshToken, familyOf, pruneExpiredFamilies, revokeFamily, type RefreshRefusal } from './refresh-tokens.ts';
import { clearSessionCookies, openSession, setSessionCookies } from './session.ts';

const INVALID_CREDENTIALS = 'Invalid username or password';

/**
 * What a refused refresh answers. 401 tells the client to sign in again (OTOG's web logs out on 401/403
 * alike); OTOG's own 403 messages are kept where it had them.
 */
export function refusalError(refusal: RefreshRefusal): HttpError {
  switch (refusal) {
    case 'reused':
      return forbidden('refresh token used.');
    case 'mismatch':
      return forbidden('Access token and refresh token mismatch.');
    case 'expired':
      return unauthorized('Refresh token expired.');
    case 'revoked':
      return unauthorized('Refresh token revoked.');
    case 'unknown':
      return unauthorized('Invalid refresh token.');
  }
}

/** Redis keys of the per-account sign-in counts. */
export const LOGIN_ACCOUNT_LIMIT_PREFIX = 'otog-login-account:';

/** Too many sign-ins to one account in the window, from wherever they came. */
export const TOO_MANY_SIGN_INS = 'Too many sign-in attempts for this account; try again in a minute';

export async function authRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const loginsPerAccount = createKeyRateLimit({
    ...(deps.redis ? { redis: deps.redis } : {}),
    prefix: LOGIN_ACCOUNT_LIMIT_PREFIX,
    ...deps.settings.rateLimits.loginPerAccount,
  });
  const { settings } = deps;

  serve(
    app,
    authContract.register,
    async (request) => {
      await createAccount(deps, { ...request.body, role: 'user', ...(request.auth ? { actor: request.auth.id } : {}) });
      return { message: 'Create user complete.' as const };
    },
    { rateLimit: { ...settings.rateLimits.register, keyBy: 'ip' } },
  );

  serve(
    app,
    authContract.login,
    async (request, reply) => {
      const { username, password } = request.body;
      // Per account name from any address (the route's own limit is per IP): one account's password cannot be guessed from many.
      if (!(await loginsPerAccount.allow(username.toLowerCase()))) throw new HttpError(429, TOO_MANY_SIGN_INS);
      const account = await findAccount(deps.pool, { username });
      // An unknown user costs one hash verification too: the answer's timing must not tell which names exist.
      const valid = await verifyPassword(password, account?.passwordHash ?? (await DUMMY_HASH_PROMISE));
      if (!account || !valid) throw unauthorized(INVALID_CREDENTIALS);
      const user = toSummary(account);
      await pruneExpiredFamilies(deps.pool, user.id);
      const session = await openSession(app, deps.pool, settings, user);
      setSessionCookies(reply, settings, session);
      return { user, accessToken: session.accessToken };
    },
    { rateLimit: { ...settings.rateLimits.login, keyBy: 'ip' } },
  );

  // Ends the session of the refresh cookie and that of the access token (a client may hold either).
  serve(app, authContract.logout, async (request, reply) => {
    const refreshToken = request.cookies[REFRESH_TOKEN_COOKIE];
    const accessToken = tokenOf(request);
    const sessions = new Set([
      refreshToken ? await familyOf(deps.pool, refreshToken) : null,
      accessToken ? (decodeVerifiedIgnoringExpiry(app, accessToken)?.sid ?? null) : null,
    ]);
    for (const familyId of sessions) {
      if (!familyId) continue;
      await revokeFamily(deps.pool, familyId, 'logout');
      deps.sessions.forget({ familyId });
    }
    clearSessionCookies(reply, settings);
    return {};
  });

  serve(app, authContract.refreshToken, async (request, reply) => {
    const refreshToken = request.cookies[REFRESH_TOKEN_COOKIE];
    if (!refreshToken) throw forbidden('No refresh token');
    // The access token is optional, and only a validly signed one is compared (expired is expected here).
    const accessToken = tokenOf(request);
    const presentedJti = accessToken ? (decodeVerifiedIgnoringExpiry(app, accessToken)?.jti ?? null) : null;
    const result = await consumeRefreshToken(deps.pool, refreshToken, presentedJti, async (tx, consumed) => {
      // Reloaded, so a role or name changed since sign-in takes effect now.
      const account = await findAccount(tx, { id: consumed.userId });
      if (!account) return null;
      const user = toSummary(account);
      return { user, session: await openSession(app, tx, settings, user, consumed.familyId) };
    });
    if (!result.ok) {
      if (result.refusal !== 'mismatch') clearSessionCookies(reply, settings);
      throw refusalError(result.refusal);
    }
    if (!result.value) throw unauthorized('Invalid refresh token.');
    setSessionCookies(reply, settings, result.value.session);
    return { message: 'Refresh token success.' as const, user: result.value.user, accessToken: result.value.session.accessToken };
  });
}
