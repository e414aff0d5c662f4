import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '@otog/api/app';
import { runCli, UsageError, type CliContext } from '@otog/api/cli/cli';
import { LOCAL_WORKER, rotateLocalWorkerToken } from '@otog/api/judging/worker-tokens';
import { migrate } from '@otog/platform/db/migrate';
import { sql } from '@otog/platform/db/pool';
import { createLogger } from '@otog/platform/log/logger';
import { JUDGE_INTERNAL_PREFIX } from '@otog/schemas/api/judge-internal';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness();
  token = await h.addWorker('fuzzer');
  await h.problem(1);
});
afterAll(() => h.stop());

const lease = { worker: 'fuzzer', judging: 1, attempt: 1 };
const verdictOk = { status: 'accept', result: 'P', score: 100, timeUsed: 1, memUsed: 1, errmsg: null, subtaskResults: [] };

/** Each route with bodies that must all be refused with a 4xx { message }. */
const junkBodies: unknown[] = [
  undefined,
  null,
  [],
  'text',
  42,
  {},
  { worker: 123 },
  { worker: '' },
  { worker: '../etc' },
  { worker: 'x'.repeat(200) },
  { worker: 'fuzzer', judging: 'one', attempt: 1 },
  { worker: 'fuzzer', judging: -1, attempt: 1 },
  { worker: 'fuzzer', judging: 1.5, attempt: 1 },
  { worker: 'fuzzer', judging: 1e300, attempt: 1 },
  { worker: 'fuzzer', judging: 1, attempt: 0 },
  { ...lease, extra: true },
];
const routeBodies: Record<string, unknown[]> = {
  '/claim': [
    { worker: 'fuzzer', languages: [], capacity: 1 },
    { worker: 'fuzzer', languages: ['cobol'], capacity: 1 },
    { worker: 'fuzzer', languages: ['c'], capacity: 0 },
    { worker: 'fuzzer', languages: ['c'], capacity: 65 },
    { worker: 'fuzzer', languages: ['c'], capacity: 1, waitMs: 30_001 },
    { worker: 'fuzzer', languages: ['c'], capacity: 1, waitMs: -1 },
    { worker: 'fuzzer', languages: 'c', capacity: 1 },
    { worker: 'fuzzer', languages: ['c'], capacity: '1' },
    { worker: 'fuzzer', languages: ['c'], capacity: 1, sneaky: 1 },
  ],
  '/tasks/1/heartbeat': [{ ...lease, results: [] }],
  '/tasks/1/testcases': [
    lease,
    { ...lease, results: [] },
    { ...lease, results: [{ testNumber: 0, outcome: { status: 'ACCEPTED', timeUsed: 1, memUsed: 1 } }] },
    { ...lease, results: [{ testNumber: 1, outcome: { status: 'SKIPPED', timeUsed: 1, memUsed: 1 } }] },
    { ...lease, results: [{ testNumber: 1, outcome: { status: 'PARTIAL', timeUsed: 1, memUsed: 1 } }] },
    { ...lease, results: [{ testNumber: 1, outcome: { status: 'ACCEPTED', runtimeErrorKind: 'RUNTIME_ERROR', timeUsed: 1, memUsed: 1 } }] },
    { ...lease, results: [{ testNumber: 1, outcome: { status: 'ACCEPTED', timeUsed: -1, memUsed: 1 } }] },
    { ...lease, results: [{ testNumber: 1, outcome: { status: 'ACCEPTED', timeUsed: 1, memUsed: -2 } }] },
    { ...lease, results: Array.from({ length: 1_001 }, (_, i) => ({ testNumber: i + 1, outcome: { status: 'ACCEPTED', timeUsed: 1, memUsed: 1 } })) },
  ],
  '/tasks/1/complete': [
    lease,
    { ...lease, result: {} },
    { ...lease, result: { ...verdictOk, status: 'waiting' } },
    { ...lease, result: { ...verdictOk, score: -1 } },
    { ...lease, result: { ...verdictOk, errmsg: undefined } },
  ],
  '/tasks/1/fail': [lease, { ...lease, message: '' }, { ...lease, message: 'x'.repeat(4_001) }],
};

const expectClientError = (response: { statusCode: number; json(): unknown; body: string }, what: string) => {
  expect(response.statusCode, `${what}: ${response.body}`).toBeGreaterThanOrEqual(400);
  expect(response.statusCode, `${what}: ${response.body}`).toBeLessThan(500);
  expect(response.json(), what).toEqual({ message: expect.any(String) });
};

describe('bad input never makes a 500', () => {
  it('refuses malformed bodies on every route with 4xx { message }', async () => {
    for (const [route, specific] of Object.entries(routeBodies)) {
      for (const body of [...junkBodies, ...specific]) {
        const response = await h.app.inject({
          method: 'POST',
          url: `${JUDGE_INTERNAL_PREFIX}${route}`,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        expectClientError(response, `${route} ${JSON.stringify(body)?.slice(0, 100)}`);
      }
    }
  });

  it('refuses broken JSON, wrong content types and oversized bodies', async () => {
    for (const route of Object.keys(routeBodies)) {
      for (const [type, payload] of [
        ['application/json', '{'],
        ['application/json', ''],
        ['application/json', '{"worker": "fuzzer",'],
        ['text/plain', 'hello'],
        ['application/x-www-form-urlencoded', 'worker=fuzzer'],
        ['application/json', `{"worker":"${'x'.repeat(2 * 1024 * 1024)}"}`],
      ] as const) {
        const response = await h.app.inject({
          method: 'POST',
          url: `${JUDGE_INTERNAL_PREFIX}${route}`,
          headers: { authorization: `Bearer ${token}`, 'content-type': type },
          payload,
        });
        expectClientError(response, `${route} ${type} ${payload.slice(0, 30)}`);
      }
    }
  });

  it('refuses malformed ids and hashes in paths; unknown ids are 404', async () => {
    // Past the database's integer range is malformed too: ids are Postgres integers.
    for (const id of ['abc', '0', '-1', '1.5', '1e400', '99999999999999999999999', '%00', '%2e%2e', ' ', 'NaN', 'Infinity', '0x10', '1e3', '2147483648', String(Number.MAX_SAFE_INTEGER)]) {
      for (const action of ['heartbeat', 'testcases', 'complete', 'fail']) {
        const body = action === 'testcases'
          ? { ...lease, results: [{ testNumber: 1, outcome: { status: 'ACCEPTED', timeUsed: 1, memUsed: 1 } }] }
          : action === 'complete' ? { ...lease, result: verdictOk } : action === 'fail' ? { ...lease, message: 'm' } : lease;
        const response = await h.post(`/tasks/${id}/${action}`, token, body);
        expectClientError(response, `${action} ${id}`);
      }
    }
    // Valid ids that no task has.
    for (const id of ['2147483647', '7']) {
      const response = await h.post(`/tasks/${id}/heartbeat`, token, lease);
      expect(response.statusCode, id).toBe(404);
      expect(response.json()).toEqual({ message: `no judge task for submission ${id}` });
    }
    for (const hash of ['abc', 'A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), '..%2F..%2Fetc%2Fpasswd', `${'a'.repeat(64)}%0A`]) {
      const response = await h.app.inject({ method: 'GET', url: `${JUDGE_INTERNAL_PREFIX}/testdata/${hash}`, headers: { authorization: `Bearer ${token}` } });
      expectClientError(response, `testdata ${hash}`);
    }
  });

  it('treats numbers past the database integer range in a lease as stale, not as a crash', async () => {
    await h.submit(5);
    const [task] = await h.claim(token, 'fuzzer');
    expect(task?.submissionId).toBe(5);
    for (const big of [2_147_483_648, Number.MAX_SAFE_INTEGER]) {
      const response = await h.post('/tasks/5/heartbeat', token, { worker: 'fuzzer', judging: big, attempt: big });
      expect(response.statusCode).toBe(409);
    }
    const huge = await h.post('/tasks/5/testcases', token, {
      ...lease,
      results: [{ testNumber: Number.MAX_SAFE_INTEGER, outcome: { status: 'INTERNAL_ERROR', timeUsed: 0, memUsed: -1, detail: 'x' } }],
    });
    expect(huge.statusCode).toBe(200);
  });
});

describe('shutdown', () => {
  it('answers a waiting claim at once (no tasks) when the server closes', async () => {
    const app = buildApp({ judging: { pool: h.runtime.pool, queue: h.queue, objects: h.objects } });
    await app.ready();
    const started = Date.now();
    const claiming = app.inject({
      method: 'POST',
      url: `${JUDGE_INTERNAL_PREFIX}/claim`,
      headers: { authorization: `Bearer ${token}` },
      payload: { worker: 'fuzzer', languages: ['python'], capacity: 1, waitMs: 30_000 },
    });
    await h.runtime.pool.query(sql.unsafe`SELECT 1`);
    await app.close();
    const response = await claiming;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ tasks: [] });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('judge worker CLI', () => {
  const cli = async (args: string[]) => {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (c: Buffer) => chunks.push(c.toString()));
    const logs = new PassThrough();
    const logLines: string[] = [];
    logs.on('data', (c: Buffer) => logLines.push(c.toString()));
    const ctx: CliContext = {
      pool: h.runtime.pool,
      store: h.runtime.store,
      listener: h.runtime.listener,
      projections: [],
      logger: createLogger({ name: 'cli-test', level: 'info', destination: logs }),
      out,
      progress: new PassThrough(),
      migrate: () => migrate(h.db.url),
    };
    const code = await runCli(args, ctx);
    return { code, out: chunks.join(''), logs: logLines.join('') };
  };
  const claimWith = (bearer: string, worker: string) =>
    h.post('/claim', bearer, { worker, languages: ['c'], capacity: 1 }).then((r) => r.statusCode);

  it('adds a worker, prints its token once, lists workers without tokens, revokes', async () => {
    const added = await cli(['judge', 'add-worker', 'host-1']);
    expect(added.code).toBe(0);
    const [, issued] = added.out.trim().split('\n');
    expect(issued).toMatch(/^otogw_[A-Za-z0-9_-]{43}$/);
    expect(added.logs).not.toContain(issued!);
    expect(await claimWith(issued!, 'host-1')).toBe(200);
    const stored = await h.runtime.pool.oneFirst(sql.unsafe`SELECT encode(token_sha256, 'hex') FROM judge_workers WHERE name = 'host-1'`);
    expect(stored).not.toContain(issued!.slice(6));

    await expect(cli(['judge', 'add-worker', 'host-1'])).rejects.toThrow(/already exists/);
    await expect(cli(['judge', 'add-worker', 'bad name!'])).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['judge', 'add-worker'])).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['judge', 'frobnicate'])).rejects.toBeInstanceOf(UsageError);

    const listed = await cli(['judge', 'workers']);
    expect(listed.out).toMatch(/^host-1 {2}active {2}since \d{4}-/m);
    expect(listed.out).not.toContain('otogw_');

    expect((await cli(['judge', 'revoke-worker', 'host-1'])).out).toContain('revoked');
    expect(await claimWith(issued!, 'host-1')).toBe(401);
    expect((await cli(['judge', 'workers'])).out).toMatch(/^host-1 {2}revoked at \d{4}-/m);
    await expect(cli(['judge', 'revoke-worker', 'host-1'])).rejects.toThrow(/no active judge worker/);

    const rotated = await cli(['judge', 'add-worker', 'host-1', '--rotate']);
    const [, again] = rotated.out.trim().split('\n');
    expect(again).not.toBe(issued);
    expect(await claimWith(again!, 'host-1')).toBe(200);
    expect(await claimWith(issued!, 'host-1')).toBe(401);
  });

  it("rotates the built-in local worker's token at every start", async () => {
    const first = await rotateLocalWorkerToken(h.runtime.pool);
    expect(await claimWith(first, LOCAL_WORKER)).toBe(200);
    const second = await rotateLocalWorkerToken(h.runtime.pool);
    expect(await claimWith(second, LOCAL_WORKER)).toBe(200);
    expect(await claimWith(first, LOCAL_WORKER)).toBe(401);
  });
});
