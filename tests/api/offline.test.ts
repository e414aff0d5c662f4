/**
 * Access rules of every public route, walked generically over allRoutes (it covers each route as its
 * contract lands): in offline mode (on-site contests) routes are public, need a sign-in, or become
 * admin-only; in normal mode the route's role applies. Each route is called as an anonymous visitor, a
 * user and an admin with valid-looking input; a refusal by the access layer is told apart from a handler's
 * own 4xx by its message (services/api/src/http/access.ts).
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes, type RouteAccess, type RouteContract } from '@otog/schemas/api';
import { announcementContract } from '@otog/schemas/api/announcement';
import { multipartBody, startStack, type Stack, type TestUser } from './support/stack.ts';

type Level = RouteAccess['role'];
type Caller = 'anonymous' | 'user' | 'admin';

/** The messages access.ts refuses with, per mode. */
const ACCESS_MESSAGES = {
  offline: { 401: 'Sign in to use this in offline mode', 403: 'Only admins can use this in offline mode' },
  online: { 401: 'Unauthorized', 403: 'Forbidden' },
} as const;

const RANK: Record<Level, number> = { any: 0, user: 1, admin: 2 };
const OFFLINE_LEVEL: Record<RouteAccess['offline'], Level> = { public: 'any', authenticated: 'user', admin: 'admin' };

/** Who a route admits: its role, tightened in offline mode by its offline class. */
function requiredLevel(access: RouteAccess, offline: boolean): Level {
  if (!offline) return access.role;
  const offlineLevel = OFFLINE_LEVEL[access.offline];
  return RANK[offlineLevel] > RANK[access.role] ? offlineLevel : access.role;
}

/**
 * OTOG's offline classes (research/otog.md §3: P = public, A = authenticated, — = admin), by method and
 * path with parameter names blanked. Routes not listed here (extensions) are checked by the generic walk
 * only.
 */
const OTOG_OFFLINE: Record<string, RouteAccess['offline']> = {
  'GET /time': 'public',
  'POST /auth/register': 'admin',
  'POST /auth/login': 'public',
  'POST /auth/logout': 'authenticated',
  'GET /auth/refresh/token': 'public',
  'GET /user/admin/list': 'admin',
  'GET /user/online': 'admin',
  'GET /user/:/profile': 'admin',
  'PUT /user/:': 'admin',
  'PATCH /user/:/name': 'admin',
  'GET /chat': 'admin',
  'GET /announcement': 'authenticated',
  'POST /announcement': 'admin',
  'DELETE /announcement/:': 'admin',
  'PATCH /announcement/:': 'admin',
  'PUT /announcement/:': 'admin',
  'GET /problem': 'admin',
  'GET /problem/:': 'admin',
  'GET /problem/admin/search': 'admin',
  'GET /problem/admin/list': 'admin',
  'GET /problem/:/user': 'admin',
  'GET /problem/doc/:': 'public',
  'PATCH /problem/:': 'admin',
  'POST /problem': 'admin',
  'PUT /problem/:': 'admin',
  'DELETE /problem/:': 'admin',
  'PUT /problem/:/examples': 'admin',
  'POST /problem/:/upload-attachment': 'admin',
  'POST /problem/:/download-attachment': 'admin',
  'GET /contest/list': 'admin',
  'GET /contest/now': 'authenticated',
  'GET /contest/:': 'authenticated',
  'GET /contest/:/detail': 'authenticated',
  'GET /contest/:/problem/:': 'authenticated',
  'GET /contest/:/score': 'authenticated',
  'GET /contest/:/scoreHistory/:': 'admin',
  'GET /contest/:/scoreboard': 'admin',
  'GET /contest/:/prize': 'admin',
  'POST /contest': 'admin',
  'PUT /contest/:': 'admin',
  'PATCH /contest/:': 'admin',
  'DELETE /contest/:': 'admin',
  'PATCH /contest/:/problem/:': 'admin',
  'PUT /contest/:/problems': 'admin',
  'POST /contest/:/signup': 'admin',
  'GET /contest/admin/list': 'admin',
  'GET /contest/admin/:': 'admin',
  'GET /submission': 'admin',
  'GET /submission/admin/contest/:': 'admin',
  'GET /submission/contest/:': 'authenticated',
  'GET /submission/problem/:/latest': 'authenticated',
  'POST /submission/problem/:': 'authenticated',
  'GET /submission/latest': 'admin',
  'GET /submission/user/:': 'admin',
  'GET /submission/user/:/problem/:': 'admin',
  'GET /submission/:': 'authenticated',
  'GET /submission/:/code': 'authenticated',
  'PATCH /submission/:/share': 'admin',
  'PATCH /submission/:/rejudge': 'admin',
  'PATCH /submission/problem/:/rejudge': 'admin',
};
/** Where this API deliberately differs from OTOG. */
const DEVIATIONS: Record<string, { offline: RouteAccess['offline']; why: string }> = {
  'GET /ping': { offline: 'public', why: 'a liveness probe must answer monitoring without a sign-in (OTOG made it admin-only)' },
};
const routeKey = (route: Pick<RouteContract, 'method' | 'path'>) => `${route.method} ${route.path.replace(/:[A-Za-z]+/g, ':')}`;

interface Answer {
  readonly status: number;
  readonly message: string | undefined;
  readonly request: string;
}

function messageOf(response: LightMyRequestResponse): string | undefined {
  try {
    const body = response.json<{ message?: unknown }>();
    return typeof body?.message === 'string' ? body.message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Calls a route with valid-looking input (ids 1, an empty JSON object or multipart form), or with input
 * its validator must reject (`invalid`): malformed ids, a broken JSON body, repeated query keys. The access
 * layer answers before validation, so the invalid call tells an access refusal from a handler's own.
 */
async function send(stack: Stack, route: RouteContract, token: string | null, mode: 'valid' | 'invalid'): Promise<Answer | null> {
  const hasParams = /:[A-Za-z]/.test(route.path);
  const queryKeys = route.query && 'shape' in route.query ? Object.keys((route.query as unknown as { shape: object }).shape) : [];
  const hasBody = route.method !== 'GET' && (route.body !== undefined || route.multipart !== undefined);
  if (mode === 'invalid' && !hasParams && !hasBody && queryKeys.length === 0) return null;

  const path = route.path.replace(/:[A-Za-z]+/g, mode === 'valid' ? '1' : 'not%20an%20id');
  const query = mode === 'valid' ? '' : `?${queryKeys.map((key) => `${key}=x&${key}=y`).join('&')}`;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let payload: string | Buffer | undefined;
  if (hasBody && mode === 'invalid') {
    payload = '{"broken": ';
    headers['content-type'] = 'application/json';
  } else if (route.multipart) {
    const form = multipartBody({});
    payload = form.payload;
    headers['content-type'] = form.contentType;
  } else if (route.body) {
    payload = '{}';
    headers['content-type'] = 'application/json';
  }
  const url = `/api${path}${query}`;
  const response = await stack.app.inject({ method: route.method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return { status: response.statusCode, message: messageOf(response), request: `${mode} ${route.method} ${url}` };
}

/** Whether the access layer refused the caller (status 401/403 and its message), and what was answered. */
async function accessRefusal(stack: Stack, route: RouteContract, token: string | null, offline: boolean): Promise<{ refused: 401 | 403 | null; answers: Answer[] }> {
  const messages = ACCESS_MESSAGES[offline ? 'offline' : 'online'];
  const isRefusal = (answer: Answer) =>
    (answer.status === 401 || answer.status === 403) && answer.message === messages[answer.status] ? (answer.status as 401 | 403) : null;
  const primary = (await send(stack, route, token, 'valid'))!;
  const answers = [primary];
  const refused = isRefusal(primary);
  // Offline messages are the access layer's own; "Unauthorized"/"Forbidden" can also come from a handler.
  if (!refused || offline) return { refused, answers };
  const probe = await send(stack, route, token, 'invalid');
  if (!probe) return { refused, answers };
  answers.push(probe);
  return { refused: isRefusal(probe), answers };
}

function walk(offline: boolean) {
  let stack: Stack;
  const users: Record<Caller, TestUser | null> = { anonymous: null, user: null, admin: null };
  beforeAll(async () => {
    stack = await startStack({ settings: { offline } });
    users.user = await stack.createUser();
    users.admin = await stack.createUser({ role: 'admin' });
  });
  afterAll(() => stack?.stop());

  it(`applies every route's access rule to anonymous callers, users and admins (${allRoutes.length} routes)`, async () => {
    const mismatches: string[] = [];
    const messages = ACCESS_MESSAGES[offline ? 'offline' : 'online'];
    for (const route of allRoutes) {
      const level = requiredLevel(route.access, offline);
      const expected: Record<Caller, 401 | 403 | null> = {
        anonymous: level === 'any' ? null : 401,
        user: level === 'admin' ? 403 : null,
        admin: null,
      };
      for (const caller of ['anonymous', 'user', 'admin'] as const) {
        // A session of its own per call: the walk passes POST /auth/logout too, which ends the caller's session.
        const user = users[caller];
        const { refused, answers } = await accessRefusal(stack, route, user && (await stack.newSession(user)), offline);
        for (const answer of answers) {
          if (answer.status >= 500) mismatches.push(`${caller}: ${answer.request} answered ${answer.status} ${answer.message}`);
        }
        if (refused !== expected[caller]) {
          const got = answers.map((a) => `${a.request} → ${a.status} ${JSON.stringify(a.message)}`).join('; ');
          const want = expected[caller] ? `${expected[caller]} ${JSON.stringify(messages[expected[caller]])}` : 'not refused by access control';
          mismatches.push(`${caller} on ${route.method} ${route.path} (role ${route.access.role}, offline ${route.access.offline}): want ${want}; got ${got}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  return () => stack;
}

describe('contracts', () => {
  it('give every route a consistent access class', () => {
    for (const route of allRoutes) {
      const where = `${route.method} ${route.path}`;
      // Public offline means open to anonymous visitors, so the route cannot need a sign-in otherwise.
      if (route.access.offline === 'public') expect(route.access.role, where).toBe('any');
      // Authenticated offline means any signed-in user, so the route cannot be admin-only otherwise.
      if (route.access.offline === 'authenticated') expect(route.access.role, where).not.toBe('admin');
      // An admin-only route stays admin-only offline.
      if (route.access.role === 'admin') expect(route.access.offline, where).toBe('admin');
    }
  });

  it('follow OTOG’s offline classes (research §3) for the routes that exist', () => {
    const differences: string[] = [];
    for (const route of allRoutes) {
      const key = routeKey(route);
      const expected = DEVIATIONS[key]?.offline ?? OTOG_OFFLINE[key];
      if (expected && route.access.offline !== expected) differences.push(`${key}: offline ${route.access.offline}, OTOG ${expected}`);
    }
    expect(differences).toEqual([]);
  });

  it('make the routes the spec names public, authenticated or admin-only offline', () => {
    const find = (method: string, path: string) => allRoutes.find((route) => route.method === method && route.path.replace(/:[A-Za-z]+/g, ':') === path);
    const named: Array<[string, string, RouteAccess['offline']]> = [
      ['POST', '/auth/login', 'public'],
      ['GET', '/time', 'public'],
      ['GET', '/problem', 'admin'],
      ['POST', '/submission/problem/:', 'authenticated'],
      ['GET', '/announcement', 'authenticated'],
      ['POST', '/auth/register', 'admin'],
    ];
    let checked = 0;
    for (const [method, path, offline] of named) {
      const route = find(method, path);
      if (!route) continue; // not implemented yet
      checked += 1;
      expect(route.access.offline, `${method} ${path}`).toBe(offline);
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('offline mode', () => {
  const stackOf = walk(true);

  it('lets signed-in users read shown announcements but not anonymous visitors', async () => {
    const stack = stackOf();
    expect(await stack.expectCall(announcementContract.getAnnouncements, 401, { query: { show: 'true' } })).toEqual({
      message: 'Sign in to use this in offline mode',
    });
    const user = await stack.createUser();
    expect(await stack.expectCall(announcementContract.getAnnouncements, 200, { as: user, query: { show: 'true' } })).toEqual([]);
    expect(await stack.expectCall(announcementContract.createAnnouncement, 403, { as: user, body: { value: 'x' } })).toEqual({
      message: 'Only admins can use this in offline mode',
    });
  });
});

describe('normal mode', () => {
  const stackOf = walk(false);

  it('lets anonymous visitors read shown announcements', async () => {
    expect(await stackOf().expectCall(announcementContract.getAnnouncements, 200, { query: { show: 'true' } })).toEqual([]);
  });
});
