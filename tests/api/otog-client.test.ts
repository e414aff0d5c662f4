/**
 * The original OTOG web client against our API. That client (ts-rest with `jsonQuery` and
 * `validateResponse`) parses every answer with models generated from its database schema: every column
 * present, null where the column is nullable, dates coerced from strings. The models below are written
 * from OTOG's own tables and routes, independently of our contract schemas, so a column we drop or make
 * absent fails here even if our schemas agree with our code. Requests are made the way that client makes
 * them: query values JSON-encoded by ts-rest's rule, from another origin, with credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseQueryString } from '@otog/api/http/cross-origin';
import { contestContract } from '@otog/schemas/api/contest';
import { problemContract } from '@otog/schemas/api/problem';
import { contestKit, finished, running } from './support/contest-kit.ts';
import { startStack, type Stack, type TestUser } from './support/stack.ts';

const WEB_ORIGIN = 'https://otog.example';
const COOKIE_DOMAIN = 'otog.example';

// ---------------------------------------------------------------------------------------------------------
// OTOG's models (its Prisma schema, as zod-prisma generates them: dates coerced, nullable columns nullable)

const int = z.number().int();
const date = z.coerce.date();
const Role = z.enum(['user', 'admin']);
const SubmissionStatus = z.enum(['waiting', 'grading', 'accept', 'reject', 'compileError', 'judgeError']);
const VerdictStatus = z.enum(['ACCEPTED', 'PARTIAL', 'REJECTED', 'TIME_LIMIT_EXCEEDED', 'RUNTIME_ERROR', 'SKIPPED', 'PROBLEM_ERROR', 'INTERNAL_ERROR']);

const UserModel = z.object({ id: int, username: z.string(), showName: z.string(), role: Role, rating: int.nullable() });
const ProblemModel = z.object({
  id: int,
  name: z.string(),
  sname: z.string().nullable(),
  score: int,
  timeLimit: int,
  memoryLimit: int,
  show: z.boolean(),
  recentShowTime: date.nullable(),
  case: z.string().nullable(),
  rating: int.nullable(),
  examples: z.unknown().refine((value) => value !== undefined, 'examples must be present'),
  attachmentMetadata: z.object({ size: z.number(), name: z.string(), lastModified: z.number(), type: z.string() }).nullable(),
});
const ContestModel = z.object({
  id: int,
  name: z.string(),
  mode: z.enum(['rated', 'unrated']),
  gradingMode: z.enum(['acm', 'classic', 'bestSubmission', 'bestSubtask']),
  scoreboardPolicy: z.enum(['DURING_CONTEST', 'AFTER_CONTEST', 'NOT_VISIBLE']),
  timeStart: date,
  timeEnd: date,
  announce: z.string().nullable(),
});
const SubmissionModel = z.object({
  id: int,
  userId: int,
  problemId: int,
  status: SubmissionStatus,
  contestId: int.nullable(),
  sourceCode: z.string().nullable(),
  language: z.string(),
  creationDate: date,
  updateDate: date,
  public: z.boolean(),
});
const SubmissionResultModel = z.object({ id: int, score: int, timeUsed: int, memUsed: int, result: z.string(), errmsg: z.string().nullable() });
const VerdictModel = z.object({ id: int, subtaskId: int, status: VerdictStatus, percent: z.number(), timeUsed: int, memUsed: int, testcaseIndex: int });
const UserContestModel = z.object({ userId: int, contestId: int, rank: int.nullable(), ratingAfterUpdate: int.nullable() });
const ContestScoreModel = z.object({ id: int, contestId: int, userId: int, problemId: int, score: int, latestSubmission: date.nullable() });
const AnnouncementModel = z.object({ id: int, value: z.string().nullable(), show: z.boolean(), contestId: int.nullable() });
const ChatModel = z.object({ id: int, message: z.string(), userId: int, creationDate: date, updateDate: date });

// The route shapes of OTOG's contract, built from the models as it builds them.
const SubmissionRow = SubmissionModel.pick({ id: true, status: true, contestId: true, language: true, creationDate: true, public: true, userId: true }).extend({
  problem: ProblemModel.pick({ id: true, name: true, timeLimit: true, memoryLimit: true, score: true }),
  user: UserModel,
  submissionResult: SubmissionResultModel.nullable(),
});
const SubmissionDetail = SubmissionRow.extend({
  sourceCode: z.string().nullable(),
  submissionResult: SubmissionResultModel.extend({
    subtaskResults: z.array(z.object({ score: z.number(), fullScore: z.number(), subtaskIndex: int, verdicts: z.array(VerdictModel) })),
  }).nullable(),
});
const LatestSubmission = SubmissionModel.pick({ id: true, status: true, userId: true, public: true });
const ContestProblemWithProblem = z.object({ contestId: int, problemId: int, problem: ProblemModel });
const Prize = z.object({ id: int, problem: z.object({ id: int }).nullable(), user: z.object({ id: int, showName: z.string() }).nullable() });
const Session = z.object({ user: UserModel, accessToken: z.string() });

// ---------------------------------------------------------------------------------------------------------

/** ts-rest's `jsonQuery` encoding: a string goes as-is unless it would read as a number, boolean or null; everything else as JSON. */
function tsRestQuery(query: Record<string, unknown>): string {
  const parts = Object.entries(query)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const plain = typeof value === 'string' && !['true', 'false', 'null'].includes(value.trim()) && Number.isNaN(Number(value));
      return `${encodeURIComponent(key)}=${encodeURIComponent(plain ? value : JSON.stringify(value))}`;
    });
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

let stack: Stack;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
const kit = contestKit(() => ({ stack, admin }));

beforeAll(async () => {
  stack = await startStack({ settings: { corsOrigins: [WEB_ORIGIN], cookieDomain: COOKIE_DOMAIN } });
  admin = await stack.createUser({ role: 'admin' });
  alice = await stack.createUser();
  bob = await stack.createUser();
}, 120_000);
afterAll(async () => stack?.stop());

/** A request as OTOG's web client sends it: from its origin, with the Bearer token, the query JSON-encoded. */
async function otog<T extends z.ZodType>(
  schema: T,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  options: { as?: TestUser; query?: Record<string, unknown>; body?: unknown; status?: number } = {},
): Promise<z.output<T>> {
  const response = await stack.app.inject({
    method,
    url: `/api${path}${tsRestQuery(options.query ?? {})}`,
    headers: {
      origin: WEB_ORIGIN,
      ...(options.as ? { authorization: `Bearer ${options.as.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
  expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(options.status ?? 200);
  expect(response.headers['access-control-allow-origin']).toBe(WEB_ORIGIN);
  expect(response.headers['access-control-allow-credentials']).toBe('true');
  const parsed = schema.safeParse(response.json());
  if (!parsed.success) throw new Error(`${method} ${path} does not parse as OTOG's client expects: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

describe('query values', () => {
  it('decodes values written as JSON strings and leaves the rest as sent', () => {
    expect(parseQueryString('search=%22%22&contestId=%227%22&limit=10&problemSearch=abc&flag=true')).toEqual({
      search: '',
      contestId: '7',
      limit: '10',
      problemSearch: 'abc',
      flag: 'true',
    });
    // A quoted value that is not valid JSON stays as it came; repeated keys stay a list.
    expect(parseQueryString('a=%22x&b=%22%5Cq%22&c=1&c=%222%22')).toEqual({ a: '"x', b: '"\\q"', c: ['1', '2'] });
  });
});

describe('the original web client', () => {
  it('parses every answer of the routes it calls, with the query values it sends', async () => {
    const problemId = await kit.problem('Compat A');
    const hiddenId = await kit.problem('Compat hidden', { show: false });
    const contest = await kit.createContest({ name: 'Compat contest' }, [problemId]);
    const live = await kit.createContest({ name: 'Compat live', ...running() }, [problemId]);
    const accepted = await kit.submit(alice, contest.id, problemId);
    await kit.judge(accepted, 'accept', 100);
    const rejected = await kit.submit(bob, contest.id, problemId);
    await kit.judge(rejected, 'reject', 40, [[40, 100]]);
    await stack.expectCall(contestContract.patchContest, 200, { as: admin, params: { contestId: contest.id }, body: finished() });

    // App and auth
    expect(Date.parse(await otog(z.string(), 'GET', '/time'))).toBeGreaterThan(0);
    const login = await stack.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { origin: WEB_ORIGIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ username: alice.username, password: alice.password }),
    });
    expect(Session.parse(login.json()).user.id).toBe(alice.id);
    const cookies = [login.headers['set-cookie']].flat().join('\n');
    expect(cookies).toMatch(/RID=[^;]+;.*Domain=otog\.example/);
    expect(cookies).toMatch(/accessToken=[^;]+;.*Domain=otog\.example/);

    // Users
    await otog(z.object({ data: z.array(UserModel), total: int }), 'GET', '/user/admin/list', { as: admin, query: { skip: 0, limit: 10, search: '' } });
    await otog(z.array(UserModel), 'GET', '/user/online', { as: alice });
    await otog(
      UserModel.extend({ userContest: z.array(z.object({ rank: int.nullable(), ratingAfterUpdate: int.nullable(), contest: ContestModel.pick({ id: true, name: true, timeStart: true }) })) }),
      'GET',
      `/user/${alice.id}/profile`,
    );

    // Problems
    const table = await otog(
      z.array(
        ProblemModel.omit({ examples: true, attachmentMetadata: true }).extend({ passedCount: int, latestSubmission: LatestSubmission.nullable().optional() }),
      ),
      'GET',
      '/problem',
      { as: alice },
    );
    expect(table.map((row) => row.id)).toContain(problemId);
    await otog(ProblemModel, 'GET', `/problem/${problemId}`, { as: alice });
    await otog(z.array(ProblemModel.pick({ id: true, name: true, sname: true })), 'GET', '/problem/admin/search', { as: admin, query: { search: '', skip: 0, limit: 10 } });
    const adminList = await otog(
      z.object({
        total: int,
        data: z.array(ProblemModel.pick({ id: true, name: true, sname: true, show: true, case: true, memoryLimit: true, timeLimit: true, recentShowTime: true, score: true, attachmentMetadata: true })),
      }),
      'GET',
      '/problem/admin/list',
      { as: admin, query: { skip: 0, limit: 10, search: '' } },
    );
    expect(adminList.data.map((row) => row.id)).toContain(hiddenId);
    await otog(z.array(UserModel.extend({ passedSubmission: LatestSubmission })), 'GET', `/problem/${problemId}/user`);

    // An attachment, downloaded with no body at all (the client's POST has none).
    const metadata = { size: 3, name: 'a.zip', lastModified: 1_700_000_000_000, type: 'application/zip' };
    const { url } = await stack.expectCall(problemContract.uploadAttachment, 200, { as: admin, params: { problemId }, body: { metadata } });
    const { pathname, search } = new URL(url);
    expect((await stack.app.inject({ method: 'PUT', url: pathname + search, payload: Buffer.from('PK!') })).statusCode).toBe(200);
    for (const headers of [{}, { 'content-type': 'application/json' }]) {
      const download = await stack.app.inject({
        method: 'POST',
        url: `/api/problem/${problemId}/download-attachment`,
        headers: { origin: WEB_ORIGIN, authorization: `Bearer ${alice.token}`, ...headers },
      });
      expect(download.statusCode, download.body).toBe(200);
      expect(z.object({ url: z.string(), metadata: ProblemModel.shape.attachmentMetadata.unwrap() }).parse(download.json()).metadata).toEqual(metadata);
    }

    // Contests
    const contestList = await otog(z.object({ data: z.array(ContestModel), total: int }), 'GET', '/contest/list', { query: { skip: 0, limit: 10, search: '' } });
    expect(contestList.data.map((row) => row.id)).toEqual(expect.arrayContaining([contest.id, live.id]));
    expect((await otog(z.array(ContestModel), 'GET', '/contest/now')).map((row) => row.id)).toContain(live.id);
    await otog(ContestModel, 'GET', `/contest/${contest.id}`);
    await otog(
      ContestModel.extend({ contestProblem: z.array(z.object({ problem: ProblemModel.pick({ id: true, name: true, score: true }) })), _count: z.object({ announcements: int }) }),
      'GET',
      `/contest/${contest.id}/detail`,
    );
    await otog(ProblemModel, 'GET', `/contest/${live.id}/problem/${problemId}`, { as: alice });
    expect(await otog(z.array(z.object({ problemId: int, score: int, penalty: int })), 'GET', `/contest/${contest.id}/score`, { as: alice })).toEqual([
      expect.objectContaining({ problemId, score: 100 }),
    ]);
    const history = await otog(
      z.array(
        ContestScoreModel.extend({
          contestScoreHistory: z.array(
            z.object({
              contestScoreId: int,
              submissionId: int,
              score: int,
              submission: z.object({
                creationDate: date,
                submissionResult: z.object({ score: int, subtaskResults: z.array(z.object({ score: z.number(), fullScore: z.number(), subtaskIndex: int })) }).nullable(),
              }),
            }),
          ),
        }),
      ),
      'GET',
      `/contest/${contest.id}/scoreHistory/${bob.id}`,
    );
    expect(history[0]?.contestScoreHistory[0]?.submission.submissionResult?.subtaskResults).toEqual([{ score: 40, fullScore: 100, subtaskIndex: 1 }]);
    const board = await otog(
      z.object({
        contest: ContestModel.extend({ contestProblem: z.array(ContestProblemWithProblem), userContest: z.array(UserContestModel) }),
        userContest: z.array(
          UserContestModel.extend({
            user: UserModel.pick({ id: true, showName: true, rating: true, role: true }),
            contestScores: z.array(z.object({ problemId: int, score: int, penalty: int })),
            totalScore: int,
            maxPenalty: int,
          }),
        ),
      }),
      'GET',
      `/contest/${contest.id}/scoreboard`,
    );
    expect(board.userContest.map((row) => [row.userId, row.totalScore])).toEqual([
      [alice.id, 100],
      [bob.id, 40],
    ]);
    const prizes = await otog(z.object({ firstBlood: z.array(Prize), oneManSolve: z.array(Prize) }), 'GET', `/contest/${contest.id}/prize`);
    expect(prizes.firstBlood).toEqual([{ id: accepted.id, problem: { id: problemId }, user: { id: alice.id, showName: alice.showName } }]);
    await otog(z.object({ data: z.array(ContestModel), total: int }), 'GET', '/contest/admin/list', { as: admin, query: { skip: 0, limit: 10, search: String(contest.id) } });
    await otog(ContestModel.extend({ contestProblem: z.array(ContestProblemWithProblem) }), 'GET', `/contest/admin/${contest.id}`, { as: admin });
    await otog(UserContestModel, 'POST', `/contest/${live.id}/signup`, { as: admin, body: { userId: bob.id } });

    // Announcements, chat
    const announcement = await otog(AnnouncementModel, 'POST', '/announcement', { as: admin, query: { contestId: String(live.id) }, body: { value: '"hello"' }, status: 201 });
    expect(announcement.contestId).toBe(live.id);
    await otog(z.array(AnnouncementModel), 'GET', '/announcement', { as: admin, query: { contestId: String(live.id) } });
    await otog(z.array(ChatModel.extend({ user: UserModel })), 'GET', '/chat', { as: alice, query: { offset: 1_000_000_000, limit: 25 } });

    // Submissions: lists with the JSON-encoded searches the client sends, the detail views, and a new submission.
    const lists: Array<[string, Record<string, unknown>, TestUser]> = [
      ['/submission', { limit: 89, problemSearch: '' }, alice],
      ['/submission', { limit: 89, userId: alice.id, problemSearch: '' }, alice],
      [`/submission/admin/contest/${contest.id}`, { limit: 89, problemSearch: '', userSearch: '' }, admin],
      [`/submission/contest/${contest.id}`, { limit: 89, userId: alice.id }, alice],
      [`/submission/user/${alice.id}`, { limit: 89 }, alice],
      [`/submission/user/${alice.id}/problem/${problemId}`, { limit: 10 }, alice],
    ];
    for (const [path, query, as] of lists) await otog(z.array(SubmissionRow), 'GET', path, { as, query });
    await otog(SubmissionRow, 'GET', `/submission/${accepted.id}`, { as: alice });
    await otog(SubmissionDetail, 'GET', `/submission/${accepted.id}/code`, { as: alice });
    await otog(z.object({ submission: SubmissionDetail.nullable() }), 'GET', '/submission/latest', { as: alice });
    await otog(z.object({ submission: SubmissionDetail.nullable() }), 'GET', `/submission/problem/${problemId}/latest`, { as: alice });

    const form = new FormData();
    form.set('language', 'cpp');
    form.set('sourceCode', new Blob(['int main(){}\n']), 'a.cpp');
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    const submitted = await stack.app.inject({
      method: 'POST',
      url: `/api/submission/problem/${problemId}${tsRestQuery({ contestId: String(live.id) })}`,
      headers: { origin: WEB_ORIGIN, authorization: `Bearer ${alice.token}`, 'content-type': request.headers.get('content-type')! },
      payload: Buffer.from(await request.arrayBuffer()),
    });
    expect(submitted.statusCode, submitted.body).toBe(200);
    expect(SubmissionModel.parse(submitted.json())).toMatchObject({ problemId, contestId: live.id, sourceCode: 'int main(){}\n', status: 'waiting' });
  });
});

describe('cross-origin requests', () => {
  const preflight = (origin: string) =>
    stack.app.inject({
      method: 'OPTIONS',
      url: '/api/auth/login',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
    });

  it('answers preflights for the allowed origins only, with credentials', async () => {
    const allowed = await preflight(WEB_ORIGIN);
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(WEB_ORIGIN);
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect(String(allowed.headers['access-control-allow-headers'])).toMatch(/authorization/i);
    const other = await preflight('https://evil.example');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses writes that only a cookie authenticates from another origin', async () => {
    const logout = (headers: Record<string, string>) =>
      stack.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { 'content-type': 'application/json', ...headers }, payload: '{}' });
    const cookie = `accessToken=${alice.token}`;
    const refused = await logout({ cookie, origin: 'https://evil.example' });
    expect(refused.statusCode).toBe(403);
    expect((await logout({ cookie, referer: 'https://evil.example/page' })).statusCode).toBe(403);
    // The session survived both.
    expect((await stack.call(contestContract.getUserContestScores, { as: alice, params: { contestId: 1 } })).statusCode).not.toBe(401);
    // The allowed web app, the site itself, a Bearer token from anywhere and a non-browser client may.
    expect((await logout({ cookie: `accessToken=${(await stack.newSession(alice))}`, origin: WEB_ORIGIN })).statusCode).toBe(200);
    expect((await logout({ cookie: `accessToken=${(await stack.newSession(alice))}`, origin: 'http://localhost:8080', host: 'localhost:8080' })).statusCode).toBe(200);
    expect((await logout({ authorization: `Bearer ${await stack.newSession(alice)}`, origin: 'https://evil.example' })).statusCode).toBe(200);
    expect((await logout({ cookie: `accessToken=${(await stack.newSession(alice))}` })).statusCode).toBe(200);
  });
});
