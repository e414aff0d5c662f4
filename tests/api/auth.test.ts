import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@otog/platform/db/pool';
import { authContract, REFRESH_TOKEN_COOKIE } from '@otog/schemas/api/auth';
import { userContract } from '@otog/schemas/api/user';
import { buildApp } from '@otog/api/app';
import { TOO_MANY_SIGN_INS } from '@otog/api/modules/auth/routes';
import { createSessionGuard } from '@otog/api/modules/auth/session-guard';
import { createNotificationListener } from '@otog/platform/db/listen';
import { until } from '../support/until.ts';
import { startStack, type CallOptions, type Stack, type TestUser } from './support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());


const cookieOf = (response: LightMyRequestResponse, name: string) => response.cookies.find((cookie) => cookie.name === name);

let counter = 0;
function newRegistration() {
  counter += 1;
  return { username: `auth_${process.pid}_${counter}`, showName: `Auth User ${process.pid} ${counter}`, password: `secret-${counter}-pw` };
}

async function registerAndLogin(target: Stack = stack) {
  const registration = newRegistration();
  await target.expectCall(authContract.register, 201, { body: registration });
  const { response, body } = await target.expectResponse(authContract.login, 200, { body: { username: registration.username, password: registration.password } });
  const rid = cookieOf(response, REFRESH_TOKEN_COOKIE)!.value;
  return { registration, session: body, rid };
}

/** An access token like `token` (same user and jti) whose expiry has passed. */
function expiredCopyOf(token: string): string {
  const payload = stack.app.jwt.decode<Record<string, unknown>>(token)!;
  const { iat: _iat, exp: _exp, ...claims } = payload;
  const now = Math.floor(Date.now() / 1000);
  return stack.app.jwt.sign({ ...claims, iat: now - 120, exp: now - 60 } as never);
}

describe('POST /auth/register', () => {
  it('creates a user with role user; taken names are OTOG 409s', async () => {
    const registration = newRegistration();
    expect(await stack.expectCall(authContract.register, 201, { body: registration })).toEqual({ message: 'Create user complete.' });

    const sameName = { ...newRegistration(), username: registration.username };
    expect(await stack.expectCall(authContract.register, 409, { body: sameName })).toEqual({ message: 'username was taken.' });
    // The same name in other letter case would pass for the same person.
    const otherCase = { ...newRegistration(), username: registration.username.toUpperCase() };
    expect(await stack.expectCall(authContract.register, 409, { body: otherCase })).toEqual({ message: 'username was taken.' });
    const sameShowName = { ...newRegistration(), showName: registration.showName };
    expect(await stack.expectCall(authContract.register, 409, { body: sameShowName })).toEqual({ message: 'showName was taken.' });

    const { body } = await stack.expectResponse(authContract.login, 200, { body: { username: registration.username, password: registration.password } });
    expect(body.user).toMatchObject({ username: registration.username, showName: registration.showName, role: 'user', rating: null });
  });

  it('trims names, and answers every malformed body with a 400 naming the field', async () => {
    const registration = newRegistration();
    await stack.expectCall(authContract.register, 201, { body: { ...registration, username: `  ${registration.username} `, showName: ` ${registration.showName}  ` } });
    await stack.expectCall(authContract.login, 200, { body: { username: registration.username, password: registration.password } });

    const valid = newRegistration();
    const cases: Array<[unknown, RegExp]> = [
      [{ showName: valid.showName, password: valid.password }, /username/],
      [{ username: valid.username, password: valid.password }, /showName/],
      [{ username: valid.username, showName: valid.showName }, /password/],
      [{ ...valid, username: 'has space' }, /username may contain only/],
      [{ ...valid, username: 'ผู้ใช้' }, /username may contain only/],
      [{ ...valid, username: '   ' }, /username must not be empty/],
      [{ ...valid, username: 'a'.repeat(256) }, /at most 255/],
      [{ ...valid, showName: 'x'.repeat(256) }, /at most 255/],
      [{ ...valid, showName: 'bad\nname' }, /control characters/],
      [{ ...valid, password: '12345' }, /at least 6/],
      [{ ...valid, password: 'p'.repeat(257) }, /at most 256/],
      [{ ...valid, username: 42 }, /username/],
      ['not an object', /body/],
    ];
    for (const [body, message] of cases) {
      const error = await stack.expectCall(authContract.register, 400, { body });
      expect(error.message, JSON.stringify(body).slice(0, 80)).toMatch(message);
    }
  });
});

describe('POST /auth/login', () => {
  it('answers the user and an access token, and sets the RID and accessToken cookies', async () => {
    const registration = newRegistration();
    await stack.expectCall(authContract.register, 201, { body: registration });
    const before = Date.now();
    const { response, body } = await stack.expectResponse(authContract.login, 200, { body: { username: registration.username, password: registration.password } });
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'user']);
    expect(Object.keys(body.user).sort()).toEqual(['id', 'rating', 'role', 'showName', 'username']);

    const rid = cookieOf(response, REFRESH_TOKEN_COOKIE)!;
    expect(rid).toMatchObject({ httpOnly: true, path: '/api/auth', sameSite: 'Lax' });
    expect(rid.secure).toBeFalsy();
    const ttl = stack.deps.settings.refreshTokenTtlSeconds * 1000;
    expect(rid.expires!.getTime()).toBeGreaterThanOrEqual(before + ttl - 2_000);
    expect(rid.expires!.getTime()).toBeLessThanOrEqual(Date.now() + ttl + 2_000);
    const access = cookieOf(response, 'accessToken')!;
    expect(access).toMatchObject({ value: body.accessToken, path: '/', sameSite: 'Lax' });
    expect(access.httpOnly).toBeFalsy();

    // Only the sha256 of the refresh token is stored, bound to the access token's jti.
    const jti = stack.app.jwt.decode<{ jti: string }>(body.accessToken)!.jti;
    const row = await stack.db.pool.maybeOne(sql.unsafe`SELECT token_hash, jwt_id, user_id FROM refresh_tokens WHERE jwt_id = ${jti}`);
    expect(row).toEqual({ token_hash: createHash('sha256').update(rid.value).digest('hex'), jwt_id: jti, user_id: body.user.id });
    expect(await stack.db.pool.exists(sql.unsafe`SELECT 1 FROM refresh_tokens WHERE token_hash = ${rid.value}`)).toBe(false);
  });

  it('gives an unknown username and a wrong password the same 401', async () => {
    const registration = newRegistration();
    await stack.expectCall(authContract.register, 201, { body: registration });
    const wrongPassword = await stack.call(authContract.login, { body: { username: registration.username, password: 'not-the-password' } });
    const unknownUser = await stack.call(authContract.login, { body: { username: `nobody_${process.pid}`, password: 'not-the-password' } });
    for (const response of [wrongPassword, unknownUser]) {
      expect(response.statusCode).toBe(401);
      expect(response.cookies).toEqual([]);
    }
    expect(unknownUser.body).toBe(wrongPassword.body);
    expect(await stack.expectCall(authContract.login, 401, { body: { username: registration.username, password: 'not-the-password' } })).toEqual({
      message: 'Invalid username or password',
    });
    expect((await stack.expectCall(authContract.login, 400, { body: { username: registration.username, password: 'x'.repeat(257) } })).message).toMatch(/password/);
    expect((await stack.expectCall(authContract.login, 400, { body: { username: registration.username } })).message).toMatch(/password/);
  });

  it('issues a token that works as a Bearer header and as the accessToken cookie; a bad one is a 401', async () => {
    const { session } = await registerAndLogin();
    const rename = (showName: string, options: CallOptions) => ({ params: { userId: session.user.id }, body: { showName }, ...options });
    await stack.expectCall(userContract.updateShowName, 200, rename(`Bearer ${session.user.id}`, { as: session.accessToken }));
    await stack.expectCall(userContract.updateShowName, 200, rename(`Cookie ${session.user.id}`, { cookies: { accessToken: session.accessToken } }));
    await stack.expectCall(userContract.updateShowName, 401, rename('Anonymous', {}));
    await stack.expectCall(userContract.updateShowName, 401, rename('Forged', { as: `${session.accessToken.slice(0, -2)}xx` }));
    await stack.expectCall(userContract.updateShowName, 401, rename('Expired', { as: expiredCopyOf(session.accessToken) }));
  });
});

describe('GET /auth/refresh/token', () => {
  it('after the access token expired: 401, then one refresh gives a new token and a rotated RID', async () => {
    const { session, rid } = await registerAndLogin();
    const expired = expiredCopyOf(session.accessToken);
    const params = { userId: session.user.id };
    await stack.expectCall(userContract.updateShowName, 401, { params, body: { showName: `Expired ${session.user.id}` }, as: expired });

    const { response, body } = await stack.expectResponse(authContract.refreshToken, 200, { as: expired, cookies: { [REFRESH_TOKEN_COOKIE]: rid } });
    expect(body).toMatchObject({ message: 'Refresh token success.', user: session.user });
    const rotated = cookieOf(response, REFRESH_TOKEN_COOKIE)!;
    expect(rotated).toMatchObject({ httpOnly: true, path: '/api/auth', sameSite: 'Lax' });
    expect(rotated.value).not.toBe(rid);
    expect(cookieOf(response, 'accessToken')!.value).toBe(body.accessToken);
    await stack.expectCall(userContract.updateShowName, 200, { params, body: { showName: `Refreshed ${session.user.id}` }, as: body.accessToken });

    // The new RID refreshes with the new token (and without any), in the same family.
    const again = await stack.expectResponse(authContract.refreshToken, 200, { as: body.accessToken, cookies: { [REFRESH_TOKEN_COOKIE]: rotated.value } });
    const third = cookieOf(again.response, REFRESH_TOKEN_COOKIE)!.value;
    await stack.expectResponse(authContract.refreshToken, 200, { cookies: { [REFRESH_TOKEN_COOKIE]: third } });
    const families = await stack.db.pool.oneFirst(sql.unsafe`SELECT count(DISTINCT family_id) FROM refresh_tokens WHERE user_id = ${session.user.id}`);
    expect(Number(families)).toBe(1);
  });

  it('detects reuse: a second use of a RID is a 403 and revokes the whole family', async () => {
    const { rid } = await registerAndLogin();
    const first = await stack.expectResponse(authContract.refreshToken, 200, { cookies: { [REFRESH_TOKEN_COOKIE]: rid } });
    const newest = cookieOf(first.response, REFRESH_TOKEN_COOKIE)!.value;

    // Past the grace for racing requests, a second use is a thief's (or the victim's, after the thief's).
    await stack.db.pool.query(sql.unsafe`
      UPDATE refresh_tokens SET used_at = now() - interval '1 minute' WHERE token_hash = ${createHash('sha256').update(rid).digest('hex')}`);
    const replay = await stack.expectResponse(authContract.refreshToken, 403, { cookies: { [REFRESH_TOKEN_COOKIE]: rid } });
    expect(replay.body).toEqual({ message: 'refresh token used.' });
    // The thief's (or the victim's) newest token dies with the family.
    expect(await stack.expectCall(authContract.refreshToken, 401, { cookies: { [REFRESH_TOKEN_COOKIE]: newest } })).toEqual({ message: 'Refresh token revoked.' });
    expect(await stack.expectCall(authContract.refreshToken, 403, { cookies: { [REFRESH_TOKEN_COOKIE]: rid } })).toEqual({ message: 'refresh token used.' });
  });

  it('two concurrent refreshes with one RID (two tabs) both continue the session; it is not taken for a theft', async () => {
    const { rid } = await registerAndLogin();
    const options = { cookies: { [REFRESH_TOKEN_COOKIE]: rid } };
    const answers = await Promise.all([stack.call(authContract.refreshToken, options), stack.call(authContract.refreshToken, options)]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200]);
    // Both new tokens belong to the one session, and both work.
    for (const answer of answers) {
      await stack.expectResponse(authContract.refreshToken, 200, { cookies: { [REFRESH_TOKEN_COOKIE]: cookieOf(answer, REFRESH_TOKEN_COOKIE)!.value } });
    }
    const hash = createHash('sha256').update(rid).digest('hex');
    const families = await stack.db.pool.oneFirst(sql.unsafe`
      SELECT count(DISTINCT family_id) FROM refresh_tokens WHERE user_id = (SELECT user_id FROM refresh_tokens WHERE token_hash = ${hash})`);
    expect(Number(families)).toBe(1);
  });

  it('refuses a missing, unknown or expired RID', async () => {
    expect(await stack.expectCall(authContract.refreshToken, 403, {})).toEqual({ message: 'No refresh token' });
    expect(await stack.expectCall(authContract.refreshToken, 401, { cookies: { [REFRESH_TOKEN_COOKIE]: 'made-up' } })).toEqual({ message: 'Invalid refresh token.' });

    const { registration, rid } = await registerAndLogin();
    const hash = createHash('sha256').update(rid).digest('hex');
    await stack.db.pool.query(sql.unsafe`UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = ${hash}`);
    const expired = await stack.expectResponse(authContract.refreshToken, 401, { cookies: { [REFRESH_TOKEN_COOKIE]: rid } });
    expect(expired.body).toEqual({ message: 'Refresh token expired.' });
    // The dead cookie is cleared, so the client stops sending it.
    expect(cookieOf(expired.response, REFRESH_TOKEN_COOKIE)).toMatchObject({ value: '', path: '/api/auth' });

    // The next sign-in forgets families that can no longer be used (the table does not grow forever).
    const family = String(await stack.db.pool.oneFirst(sql.unsafe`SELECT family_id FROM refresh_tokens WHERE token_hash = ${hash}`));
    await stack.expectCall(authContract.login, 200, { body: { username: registration.username, password: registration.password } });
    expect(await stack.db.pool.exists(sql.unsafe`SELECT 1 FROM refresh_tokens WHERE family_id = ${family}`)).toBe(false);
  });

  it("refuses an access token of another session (jti mismatch) without consuming the RID", async () => {
    const { registration, session: first } = await registerAndLogin();
    const second = await stack.expectResponse(authContract.login, 200, { body: { username: registration.username, password: registration.password } });
    const secondRid = cookieOf(second.response, REFRESH_TOKEN_COOKIE)!.value;

    expect(await stack.expectCall(authContract.refreshToken, 403, { as: first.accessToken, cookies: { [REFRESH_TOKEN_COOKIE]: secondRid } })).toEqual({
      message: 'Access token and refresh token mismatch.',
    });
    expect(await stack.expectCall(authContract.refreshToken, 403, { cookies: { accessToken: first.accessToken, [REFRESH_TOKEN_COOKIE]: secondRid } })).toEqual({
      message: 'Access token and refresh token mismatch.',
    });
    // A forged (unverifiable) token is ignored rather than compared.
    await stack.expectCall(authContract.refreshToken, 200, { as: 'not.a.jwt', cookies: { [REFRESH_TOKEN_COOKIE]: secondRid } });
  });

  it('reloads the user: a role or name changed since sign-in shows in the new token', async () => {
    const admin = await stack.createUser({ role: 'admin' });
    const { session, rid } = await registerAndLogin();
    const changed = { username: session.user.username, showName: `Promoted ${session.user.id}`, role: 'admin' as const, password: '' };
    await stack.expectCall(userContract.update, 200, { as: admin, params: { userId: session.user.id }, body: changed });

    const { body } = await stack.expectResponse(authContract.refreshToken, 200, { as: session.accessToken, cookies: { [REFRESH_TOKEN_COOKIE]: rid } });
    expect(body.user).toMatchObject({ showName: changed.showName, role: 'admin' });
    expect(stack.app.jwt.decode<{ role: string; showName: string }>(body.accessToken)).toMatchObject({ role: 'admin', showName: changed.showName });
    await stack.expectCall(userContract.adminList, 200, { as: body.accessToken });
  });
});

describe('POST /auth/logout', () => {
  it('revokes the session of the RID and clears both cookies', async () => {
    const { session, rid } = await registerAndLogin();
    const { response, body } = await stack.expectResponse(authContract.logout, 200, { as: session.accessToken, cookies: { [REFRESH_TOKEN_COOKIE]: rid } });
    expect(body).toEqual({});
    for (const [name, path] of [[REFRESH_TOKEN_COOKIE, '/api/auth'], ['accessToken', '/']] as const) {
      const cleared = cookieOf(response, name)!;
      expect(cleared).toMatchObject({ value: '', path });
      expect(cleared.expires!.getTime()).toBeLessThan(Date.now());
    }
    expect(await stack.expectCall(authContract.refreshToken, 401, { cookies: { [REFRESH_TOKEN_COOKIE]: rid } })).toEqual({ message: 'Refresh token revoked.' });
  });

  it('answers {} without a session too (an expired token does not block signing out)', async () => {
    const { session } = await registerAndLogin();
    expect(await stack.expectCall(authContract.logout, 200, {})).toEqual({});
    expect(await stack.expectCall(authContract.logout, 200, { as: expiredCopyOf(session.accessToken) })).toEqual({});
  });
});

describe('a session ends at once: role change, password reset, logout', () => {
  const adminOnly = userContract.adminList;
  let admin: TestUser;
  beforeAll(async () => {
    admin = await stack.createUser({ role: 'admin' });
  });

  async function loginAs(user: { username: string; password: string }) {
    const { response, body } = await stack.expectResponse(authContract.login, 200, { body: { username: user.username, password: user.password } });
    return { token: body.accessToken, rid: cookieOf(response, REFRESH_TOKEN_COOKIE)!.value };
  }
  const edit = (user: TestUser, fields: { role?: 'user' | 'admin'; password?: string }) => ({
    params: { userId: user.id },
    body: { username: user.username, showName: user.showName, role: fields.role ?? user.role, password: fields.password ?? '' },
  });

  it('a demoted admin loses admin at once, cannot promote himself back, and refreshes into a user', async () => {
    const demoted = await stack.createUser({ role: 'admin' });
    const session = await loginAs(demoted);
    await stack.expectCall(adminOnly, 200, { as: session.token });
    await stack.expectCall(userContract.update, 200, { as: admin, ...edit(demoted, { role: 'user' }) });

    expect(await stack.expectCall(adminOnly, 401, { as: session.token })).toEqual({ message: 'Invalid or expired access token' });
    await stack.expectCall(userContract.update, 401, { as: session.token, ...edit(demoted, { role: 'admin' }) });
    const refreshed = await stack.expectCall(authContract.refreshToken, 200, { as: session.token, cookies: { [REFRESH_TOKEN_COOKIE]: session.rid } });
    expect(refreshed.user.role).toBe('user');
    await stack.expectCall(adminOnly, 403, { as: refreshed.accessToken });
    await stack.expectCall(userContract.update, 403, { as: refreshed.accessToken, ...edit(demoted, { role: 'admin' }) });
  });

  it("a password reset ends every one of the user's sessions", async () => {
    const user = await stack.createUser();
    const other = await loginAs(user);
    await stack.expectCall(userContract.profile, 200, { as: user, params: { userId: user.id } });
    await stack.expectCall(userContract.update, 200, { as: admin, ...edit(user, { password: 'a-new-password' }) });
    for (const token of [user.token, other.token]) await stack.expectCall(userContract.updateShowName, 401, { as: token, params: { userId: user.id }, body: { showName: 'x' } });
    await stack.expectCall(authContract.refreshToken, 401, { cookies: { [REFRESH_TOKEN_COOKIE]: other.rid } });
  });

  it("logout ends that session's access token (by its RID or by the token alone), and only that session", async () => {
    const user = await stack.createUser();
    const [first, second, third] = [await loginAs(user), await loginAs(user), await loginAs(user)];
    await stack.expectCall(authContract.logout, 200, { cookies: { [REFRESH_TOKEN_COOKIE]: first.rid } });
    await stack.expectCall(adminOnly, 401, { as: first.token });
    await stack.expectCall(authContract.logout, 200, { as: second.token });
    await stack.expectCall(adminOnly, 401, { as: second.token });
    await stack.expectCall(authContract.refreshToken, 401, { cookies: { [REFRESH_TOKEN_COOKIE]: second.rid } });
    // Signed in elsewhere: still signed in.
    await stack.expectCall(adminOnly, 403, { as: third.token });
    await stack.expectCall(adminOnly, 403, { as: user.token });
  });

  it('checks many sessions in one go: only those that stand with the claimed role', async () => {
    const kept = await stack.createUser();
    const [loggedOut, demoted] = [await stack.createUser(), await stack.createUser({ role: 'admin' })];
    await stack.expectCall(authContract.logout, 200, { as: loggedOut.token });
    await stack.expectCall(userContract.update, 200, { as: admin, ...edit(demoted, { role: 'user' }) });
    const claimsOf = (user: TestUser) => {
      const { id, role, sid } = stack.app.jwt.decode<{ id: number; role: 'user' | 'admin'; sid: string }>(user.token)!;
      return { id, role, sid };
    };
    const claims = [kept, loggedOut, demoted].map(claimsOf);
    const forged = { ...claims[0]!, id: loggedOut.id };
    expect(await stack.deps.sessions.standing([...claims, { ...claims[0]!, sid: 'not-a-uuid' }])).toEqual(new Set([claims[0]!.sid]));
    expect(await stack.deps.sessions.standing([forged])).toEqual(new Set());
    expect(await stack.deps.sessions.standing([])).toEqual(new Set());
  });

  it('another API node on the same database hears of the change (NOTIFY), well within its cache lifetime', async () => {
    const listener = createNotificationListener(stack.db.url);
    const sessions = createSessionGuard({ pool: stack.runtime.pool, listener, ttlMs: 60_000 });
    const nodeB = buildApp({ api: { ...stack.deps, sessions } });
    try {
      await nodeB.ready();
      const demoted = await stack.createUser({ role: 'admin' });
      const onB = () => nodeB.inject({ method: 'GET', url: '/api/user/admin/list', headers: { authorization: `Bearer ${demoted.token}` } });
      expect((await onB()).statusCode).toBe(200); // now cached on B for a minute
      await listener.listening();
      await stack.expectCall(userContract.update, 200, { as: admin, ...edit(demoted, { role: 'user' }) });
      await until('node B refuses the demoted admin', async () => (await onB()).statusCode === 401, 3_000);
    } finally {
      await nodeB.close();
      sessions.close();
      await listener.close();
    }
  });
});

describe('rate limits', () => {
  let limited: Stack;
  beforeAll(async () => {
    const limit = { max: 2, windowMs: 60_000 };
    limited = await startStack({
      settings: {
        rateLimits: { login: limit, loginPerAccount: { max: 3, windowMs: 60_000 }, register: limit, submit: { max: 100, windowMs: 60_000 }, accountEdit: limit },
        // Behind a proxy: the caller is the address X-Forwarded-For names (the limits key on it).
        trustProxy: true,
      },
    });
  });
  afterAll(() => limited?.stop());

  it('limits login and register per IP with a 429 {message}', async () => {
    const registration = newRegistration();
    await limited.expectCall(authContract.register, 201, { body: registration });
    await limited.expectCall(authContract.register, 409, { body: registration });
    expect((await limited.expectCall(authContract.register, 429, { body: newRegistration() })).message).toMatch(/Too many requests/);

    const credentials = { username: registration.username, password: registration.password };
    await limited.expectCall(authContract.login, 200, { body: credentials });
    await limited.expectCall(authContract.login, 401, { body: { ...credentials, password: 'wrong-password' } });
    expect((await limited.expectCall(authContract.login, 429, { body: credentials })).message).toMatch(/Too many requests/);
    // Another address has its own budget.
    const elsewhere = await limited.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: '10.1.2.3',
      payload: credentials,
    });
    expect(elsewhere.statusCode).toBe(200);
    expect(authContract.login.responses[200].parse(elsewhere.json()).user.username).toBe(registration.username);
  });

  const loginFrom = (address: string, body: { username: string; password: string }) =>
    limited.app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'x-forwarded-for': address }, payload: body });

  it('limits sign-ins per account from any address, whatever the case of the name; others are not held up', async () => {
    const target = await limited.createUser();
    const guesses = ['10.9.0.1', '10.9.0.2', '10.9.0.3'].map((address) => loginFrom(address, { username: target.username.toUpperCase(), password: 'guess' }));
    expect((await Promise.all(guesses)).map((response) => response.statusCode)).toEqual([401, 401, 401]);
    const fourth = await loginFrom('10.9.0.4', { username: target.username, password: target.password });
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json()).toEqual({ message: TOO_MANY_SIGN_INS });
    const other = await limited.createUser();
    expect((await loginFrom('10.9.0.4', { username: other.username, password: other.password })).statusCode).toBe(200);
  });

  it('behind a trusted proxy, each forwarded address has its own budget (a school behind one NAT is one address)', async () => {
    const [first, second] = [await limited.createUser(), await limited.createUser()];
    for (const user of [first, second]) expect((await loginFrom('10.8.0.1', user)).statusCode).toBe(200);
    expect((await loginFrom('10.8.0.1', first)).statusCode).toBe(429);
    expect((await loginFrom('10.8.0.2', first)).statusCode).toBe(200);
  });

  it('limits show-name changes per user', async () => {
    const user = await limited.createUser();
    const rename = (showName: string) => limited.call(userContract.updateShowName, { as: user, params: { userId: user.id }, body: { showName } });
    expect((await rename(`first ${user.id}`)).statusCode).toBe(200);
    expect((await rename(`second ${user.id}`)).statusCode).toBe(200);
    const third = await rename(`third ${user.id}`);
    expect(third.statusCode).toBe(429);
    expect((await limited.expectCall(userContract.profile, 200, { as: user, params: { userId: user.id } })).showName).toBe(`second ${user.id}`);
  });
});
