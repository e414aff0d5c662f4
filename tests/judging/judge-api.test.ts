import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JudgeTask } from '@otog/schemas/api/judge-internal';
import { JUDGING_LIMITS, RESULT_MAX_LENGTH, type SubmissionResult } from '@otog/schemas/common/judging';
import { SPECIAL_RESULTS, specialSubmissionResult } from '@otog/judge/scoring/special-results';
import { testcaseEventId } from '@otog/api/judging/judge-queue';
import { revokeWorker } from '@otog/api/judging/worker-tokens';
import { sql } from '@otog/platform/db/pool';
import type { AppendResult } from '@otog/platform/eventstore/event-store';
import { expireLease, SOURCE, startHarness, testdataZip, type Harness } from './harness.ts';

let h: Harness;
let tokenA: string;
let tokenB: string;
let hash: string;
beforeAll(async () => {
  h = await startHarness({ maxAttempts: 3 });
  tokenA = await h.addWorker('worker-a');
  tokenB = await h.addWorker('worker-b');
  hash = (await h.problem(1, { cases: 3, score: 100 })).hash!;
  await h.problem(2, { cases: 5, score: 50 });
});
afterEach(() => h.drain());
afterAll(() => h.stop());

const lease = (task: JudgeTask, worker = 'worker-a') => ({ worker, judging: task.judging, attempt: task.attempt });

const accepted: SubmissionResult = {
  status: 'accept',
  result: 'PPP',
  score: 100,
  timeUsed: 12,
  memUsed: 1_024,
  errmsg: null,
  subtaskResults: [
    {
      subtaskIndex: 1,
      score: 100,
      fullScore: 100,
      verdicts: [1, 2, 3].map((testcaseIndex) => ({ testcaseIndex, status: 'ACCEPTED' as const, percent: 1, timeUsed: 12, memUsed: 1_024 })),
    },
  ],
};

const passed = (testNumber: number) => ({ testNumber, outcome: { status: 'ACCEPTED', timeUsed: 10 + testNumber, memUsed: 1_000 } });

describe('claiming', () => {
  it('leases a task with everything the worker needs, once', async () => {
    await h.submit(101, { problemId: 1, language: 'cpp', contestId: 5 });
    const [task, ...rest] = await h.claim(tokenA, 'worker-a');
    expect(rest).toEqual([]);
    expect(task).toMatchObject({
      submissionId: 101,
      judging: 1,
      attempt: 1,
      language: 'cpp',
      sourceCode: SOURCE,
      fileName: 'a.cpp',
      contest: true,
      problem: { id: 1, score: 100, timeLimit: 1_000, memoryLimit: 256, case: '3', testdataHash: hash },
    });
    const leaseUntil = Date.parse(task!.leaseUntil);
    expect(leaseUntil).toBeGreaterThan(Date.now() + 50_000);
    expect(await h.claim(tokenB, 'worker-b')).toEqual([]);
    expect(await h.task(101)).toMatchObject({ state: 'leased', lease_owner: 'worker-a', attempts: 1 });
  });

  it('gives only the languages the worker asks for, and at most its capacity, oldest first', async () => {
    for (const [id, language] of [[111, 'python'], [112, 'cpp'], [113, 'python'], [114, 'c'], [115, 'python']] as const) {
      await h.submit(id, { language });
    }
    const python = await h.claim(tokenA, 'worker-a', { languages: ['python'], capacity: 2 });
    expect(python.map((t) => t.submissionId)).toEqual([111, 113]);
    const rest = await h.claim(tokenB, 'worker-b', { languages: ['c', 'cpp', 'python'], capacity: 64 });
    expect(rest.map((t) => t.submissionId)).toEqual([112, 114, 115]);
  });

  it("takes turns between users: one user's burst cannot hold every judge", async () => {
    for (const id of [121, 122, 123, 124]) await h.submit(id, { userId: 31 });
    await h.submit(125, { userId: 32 });
    await h.submit(126, { userId: 33 });
    const ids = async (token: string, worker: string, capacity: number) => (await h.claim(token, worker, { capacity })).map((task) => task.submissionId);
    // Each user's first task before anyone's second.
    expect(await ids(tokenA, 'worker-a', 3)).toEqual([121, 125, 126]);
    await h.submit(127, { userId: 32 });
    // Users 31 and 32 each have one being judged: their next tasks take turns in log order.
    expect(await ids(tokenB, 'worker-b', 1)).toEqual([122]);
    // A newcomer goes first; then 32's second (one running) before 31's third (two running).
    await h.submit(128, { userId: 34 });
    expect(await ids(tokenB, 'worker-b', 1)).toEqual([128]);
    expect(await ids(tokenB, 'worker-b', 1)).toEqual([127]);
    expect(await ids(tokenB, 'worker-b', 5)).toEqual([123, 124]);
  });

  it('never leases one task to two workers claiming at the same time', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => 200 + i);
    for (const id of ids) await h.submit(id, { problemId: 2 });
    const claimed: Array<[string, number]> = [];
    const drainAs = async (token: string, worker: string) => {
      for (;;) {
        const tasks = await h.claim(token, worker, { capacity: 3 });
        if (tasks.length === 0) return;
        for (const task of tasks) claimed.push([worker, task.submissionId]);
      }
    };
    await Promise.all([drainAs(tokenA, 'worker-a'), drainAs(tokenB, 'worker-b'), drainAs(tokenA, 'worker-a'), drainAs(tokenB, 'worker-b')]);
    const taken = claimed.map(([, id]) => id).sort((a, b) => a - b);
    expect(taken).toEqual(ids);
    for (const [worker, id] of claimed) expect(await h.task(id)).toMatchObject({ state: 'leased', lease_owner: worker, attempts: 1 });
  });

  it('waits for a submission when asked to long-poll, and wakes up as soon as one arrives', async () => {
    const started = Date.now();
    expect(await h.claim(tokenA, 'worker-a', { waitMs: 300 })).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);

    const waitMs = 20_000;
    const t0 = Date.now();
    const claiming = h.claim(tokenA, 'worker-a', { waitMs });
    await h.submit(301);
    const tasks = await claiming;
    const elapsed = Date.now() - t0;
    expect(tasks.map((t) => t.submissionId)).toEqual([301]);
    expect(elapsed).toBeLessThan(waitMs / 4);
  });

  it('re-leases an expired lease as the next attempt and records why', async () => {
    await h.submit(401);
    const [first] = await h.claim(tokenA, 'worker-a');
    expect(await h.claim(tokenB, 'worker-b')).toEqual([]);
    await expireLease(h, 401);
    const [second] = await h.claim(tokenB, 'worker-b');
    expect(second).toMatchObject({ submissionId: 401, judging: 1, attempt: 2 });
    expect(await h.task(401)).toMatchObject({ lease_owner: 'worker-b', attempts: 2, last_error: expect.stringContaining('attempt 1 by worker-a: the lease expired') });
    // The first lease is gone: its reports are stale.
    const stale = await h.post('/tasks/401/testcases', tokenA, { ...lease(first!), results: [passed(1)] });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toEqual({ message: expect.stringContaining('stale lease') });
  });

  it('ends a submission as judgeError with a message for admins once its attempts are used up', async () => {
    await h.submit(501);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const [task] = await h.claim(attempt % 2 ? tokenA : tokenB, attempt % 2 ? 'worker-a' : 'worker-b');
      expect(task).toMatchObject({ submissionId: 501, attempt });
      await expireLease(h, 501);
    }
    // The next claim finds the last attempt expired: it ends the judging instead of leasing a fourth time.
    expect(await h.claim(tokenA, 'worker-a')).toEqual([]);
    const [judged, ...more] = await h.events(501, 'SubmissionJudged');
    expect(more).toEqual([]);
    expect(judged!.data).toMatchObject({
      submissionId: 501,
      judging: 1,
      status: 'judgeError',
      result: 'Judge Error',
      score: 0,
      subtaskResults: [],
      attempts: 3,
      judgedBy: null,
    });
    const errmsg = (judged!.data as { errmsg: string }).errmsg;
    expect(errmsg).toContain('gave up after 3 attempts');
    expect(errmsg).toContain('attempt 3 by worker-a: the lease expired');
    expect(judged!.scope).toBe('user:7');
    expect(await h.task(501)).toMatchObject({ state: 'done', lease_owner: null });
  });

  it("the sweeper ends a dead worker's last attempt without waiting for another claim", async () => {
    await h.submit(502);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await h.claim(tokenA, 'worker-a');
      await expireLease(h, 502);
    }
    expect(await h.queue.sweep()).toBe(1);
    expect(await h.queue.sweep()).toBe(0);
    const judged = await h.events(502, 'SubmissionJudged');
    expect(judged.map((e) => (e.data as { result: string }).result)).toEqual(['Judge Error']);

    // The same through the periodic sweeper the API process runs.
    await h.submit(503);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      await h.claim(tokenA, 'worker-a');
      await expireLease(h, 503);
    }
    const sweeper = h.queue.startSweeper(20);
    try {
      const deadline = Date.now() + 10_000;
      while ((await h.events(503, 'SubmissionJudged')).length === 0) {
        if (Date.now() > deadline) throw new Error('the sweeper did not end the task within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await sweeper.stop();
    }
    expect(await h.task(503)).toMatchObject({ state: 'done' });
  });

  it('ends a submission to a problem without test data as No Testcase', async () => {
    await h.problem(3, { testdata: false });
    await h.submit(601, { problemId: 3 });
    expect(await h.claim(tokenA, 'worker-a')).toEqual([]);
    const [judged] = await h.events(601, 'SubmissionJudged');
    expect(judged!.data).toMatchObject({ status: 'judgeError', result: 'No Testcase', score: 0, attempts: 1 });
    expect(await h.task(601)).toMatchObject({ state: 'done' });
  });

  /**
   * Runs `work` while the problem read model folds nothing, as when it lags behind the judge-task reactor.
   * (A transaction held open would stop every log reader instead: they read below the oldest running one.)
   */
  const whileProblemsFoldStopped = async (work: () => Promise<void>) => {
    const consumer = (await h.runtime.pool.oneFirst(sql.unsafe`
      SELECT 'projection:judge_problems:v' || version FROM projection_slots WHERE projection = 'judge_problems' AND state = 'live'`)) as string;
    const set = (status: string) => h.runtime.pool.query(sql.unsafe`UPDATE consumer_checkpoints SET status = ${status} WHERE consumer = ${consumer}`);
    await set('faulted');
    try {
      await work();
    } finally {
      await set('running');
    }
  };

  it('does not believe "no test data" while test data the problem read model has not folded is in the log', async () => {
    await h.submit(602, { problemId: 4 });
    let appended!: AppendResult;
    await whileProblemsFoldStopped(async () => {
      // The test data arrives after the submission and before the read model folds it.
      const testdataHash = await h.objects.put(testdataZip(2));
      appended = await h.appendProblem(4, [
        { type: 'ProblemJudgingConfigured', data: { problemId: 4, score: 100, timeLimit: 1_000, memoryLimit: 256 } },
        { type: 'ProblemTestdataUploaded', data: { problemId: 4, testdataHash, case: '2' } },
      ]);
      expect(await h.queue.sweep()).toBe(0);
      expect(await h.claim(tokenA, 'worker-a')).toEqual([]);
      expect(await h.task(602)).toMatchObject({ state: 'queued', attempts: 0 });
    });
    await h.problemFolded(4, appended);
    const [task] = await h.claim(tokenA, 'worker-a');
    expect(task).toMatchObject({ submissionId: 602, problem: { id: 4, case: '2' } });
    expect(await h.events(602, 'SubmissionJudged')).toEqual([]);
  });

  it('a rejudge after new test data waits for the problem read model to fold the new package', async () => {
    const old = (await h.problem(5, { cases: 2 })).hash!;
    await h.submit(603, { problemId: 5 });
    expect((await h.claim(tokenA, 'worker-a'))[0]).toMatchObject({ submissionId: 603, problem: { case: '2', testdataHash: old } });
    await h.drain();
    const fresh = await h.objects.put(testdataZip(4));
    let upload!: AppendResult;
    await whileProblemsFoldStopped(async () => {
      upload = await h.appendProblem(5, [{ type: 'ProblemTestdataUploaded', data: { problemId: 5, testdataHash: fresh, case: '4' } }]);
      await h.rejudge(603);
      // The problem stream's third event (configured, first package, this package) is what it waits for.
      expect(await h.task(603)).toMatchObject({ state: 'queued', problem_version: 3 });
      expect(await h.claim(tokenA, 'worker-a')).toEqual([]);
      expect(await h.queue.sweep()).toBe(0);
    });
    await h.problemFolded(5, upload);
    const [task] = await h.claim(tokenA, 'worker-a');
    expect(task).toMatchObject({ submissionId: 603, judging: 2, problem: { case: '4', testdataHash: fresh } });
  });
});

describe('reports', () => {
  it('heartbeat extends the lease of its holder only', async () => {
    await h.submit(701);
    const [task] = await h.claim(tokenA, 'worker-a');
    await h.runtime.pool.query(sql.unsafe`UPDATE judge_tasks SET lease_until = now() + interval '5 seconds' WHERE submission_id = 701`);
    const beat = await h.post('/tasks/701/heartbeat', tokenA, lease(task!));
    expect(beat.statusCode).toBe(200);
    expect(Date.parse(beat.json<{ leaseUntil: string }>().leaseUntil)).toBeGreaterThan(Date.now() + 50_000);
    const foreign = await h.post('/tasks/701/heartbeat', tokenB, lease(task!, 'worker-b'));
    expect(foreign.statusCode).toBe(409);
    const wrongAttempt = await h.post('/tasks/701/heartbeat', tokenA, { ...lease(task!), attempt: 2 });
    expect(wrongAttempt.statusCode).toBe(409);
    const unknown = await h.post('/tasks/999999/heartbeat', tokenA, lease(task!));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: 'no judge task for submission 999999' });
  });

  it('appends test-case results as TestcaseJudged events in order, once each however often they are reported', async () => {
    await h.submit(801, { problemId: 2 });
    const [task] = await h.claim(tokenA, 'worker-a');
    const first = await h.post('/tasks/801/testcases', tokenA, { ...lease(task!), results: [passed(1), passed(2)] });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ ok: true });
    // The same report again (a retry after a lost answer), then an overlapping one.
    expect((await h.post('/tasks/801/testcases', tokenA, { ...lease(task!), results: [passed(1), passed(2)] })).statusCode).toBe(200);
    expect((await h.post('/tasks/801/testcases', tokenA, { ...lease(task!), results: [passed(2), passed(3)] })).statusCode).toBe(200);
    const partial = { testNumber: 4, outcome: { status: 'PARTIAL', percent: 0.5, timeUsed: 3, memUsed: -1 } };
    const crashed = { testNumber: 5, outcome: { status: 'RUNTIME_ERROR', runtimeErrorKind: 'MEMORY_LIMIT_EXCEEDED', timeUsed: 3, memUsed: 9_999 } };
    expect((await h.post('/tasks/801/testcases', tokenA, { ...lease(task!), results: [partial, crashed] })).statusCode).toBe(200);

    const events = await h.events(801, 'TestcaseJudged');
    expect(events.map((e) => (e.data as { testNumber: number }).testNumber)).toEqual([1, 2, 3, 4, 5]);
    expect(events.map((e) => e.eventId)).toEqual([1, 2, 3, 4, 5].map((n) => testcaseEventId(801, 1, n)));
    expect(events[0]!.data).toEqual({ submissionId: 801, judging: 1, testNumber: 1, outcome: passed(1).outcome });
    expect(events[4]!.data).toMatchObject({ outcome: crashed.outcome });
    expect(events.every((e) => e.scope === 'user:7')).toBe(true);
    // Positions follow the report order.
    const positions = events.map((e) => e.streamPosition);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);

    const twice = await h.post('/tasks/801/testcases', tokenA, { ...lease(task!), results: [passed(6), passed(6)] });
    expect(twice.statusCode).toBe(400);
    const foreign = await h.post('/tasks/801/testcases', tokenB, { ...lease(task!, 'worker-b'), results: [passed(6)] });
    expect(foreign.statusCode).toBe(409);
    expect(await h.events(801, 'TestcaseJudged')).toHaveLength(5);
  });

  it('complete appends SubmissionJudged and marks the task done; a retried complete changes nothing', async () => {
    await h.submit(901, { problemId: 1 });
    const [task] = await h.claim(tokenA, 'worker-a');
    await h.post('/tasks/901/testcases', tokenA, { ...lease(task!), results: [passed(1), passed(2), passed(3)] });
    const done = await h.post('/tasks/901/complete', tokenA, { ...lease(task!), result: accepted });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ ok: true });
    expect(await h.task(901)).toMatchObject({ state: 'done', lease_owner: 'worker-a', lease_until: null });
    const again = await h.post('/tasks/901/complete', tokenA, { ...lease(task!), result: accepted });
    expect(again.statusCode).toBe(200);

    const events = await h.events(901);
    expect(events.map((e) => e.type)).toEqual(['SubmissionCreated', 'TestcaseJudged', 'TestcaseJudged', 'TestcaseJudged', 'SubmissionJudged']);
    expect(events[4]!.data).toEqual({ submissionId: 901, judging: 1, ...accepted, judgedBy: 'worker-a', attempts: 1 });

    // Late reports of a finished judging are stale.
    expect((await h.post('/tasks/901/heartbeat', tokenA, lease(task!))).statusCode).toBe(409);
    expect((await h.post('/tasks/901/testcases', tokenA, { ...lease(task!), results: [passed(1)] })).statusCode).toBe(409);
    expect((await h.post('/tasks/901/fail', tokenA, { ...lease(task!), message: 'late' })).statusCode).toBe(409);
    // Another worker completing it is refused too.
    expect((await h.post('/tasks/901/complete', tokenB, { ...lease(task!, 'worker-b'), result: accepted })).statusCode).toBe(409);
    expect(await h.claim(tokenB, 'worker-b')).toEqual([]);
  });

  it('complete takes the verdict string of a problem with the most tests (and a bracketed subtask per test)', async () => {
    await h.submit(903);
    const [task] = await h.claim(tokenA, 'worker-a');
    const longest = '[P]'.repeat(JUDGING_LIMITS.maxTests);
    expect(longest.length).toBe(RESULT_MAX_LENGTH);
    const done = await h.post('/tasks/903/complete', tokenA, { ...lease(task!), result: { ...accepted, result: longest } });
    expect(done.statusCode, done.body).toBe(200);
    expect((await h.events(903, 'SubmissionJudged'))[0]!.data).toMatchObject({ result: longest });
  });

  it("a compiler's message over the limit is cut and the submission is a compilation error, not a judge error", async () => {
    await h.submit(904);
    const [task] = await h.claim(tokenA, 'worker-a');
    const result = specialSubmissionResult(SPECIAL_RESULTS.compilationError, `main.cpp:1: error: ${'x'.repeat(200_000)}`);
    const done = await h.post('/tasks/904/complete', tokenA, { ...lease(task!), result });
    expect(done.statusCode, done.body).toBe(200);
    const [judged] = await h.events(904, 'SubmissionJudged');
    expect(judged!.data).toMatchObject({ status: 'compileError', result: 'Compilation Error' });
    const errmsg = (judged!.data as { errmsg: string }).errmsg;
    expect(errmsg.length).toBeLessThanOrEqual(JUDGING_LIMITS.errmsgLength);
    expect(errmsg).toMatch(/^main\.cpp:1: error: x+\n\.\.\. \(\d+ more characters cut\)$/);
  });

  it('complete refuses a result the event cannot hold with 400', async () => {
    await h.submit(902);
    const [task] = await h.claim(tokenA, 'worker-a');
    const long = await h.post('/tasks/902/complete', tokenA, { ...lease(task!), result: { ...accepted, result: 'P'.repeat(RESULT_MAX_LENGTH + 1) } });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toEqual({ message: expect.any(String) });
    const badVerdict = await h.post('/tasks/902/complete', tokenA, {
      ...lease(task!),
      result: { ...accepted, subtaskResults: [{ ...accepted.subtaskResults[0]!, verdicts: [{ testcaseIndex: 0, status: 'ACCEPTED', percent: 1, timeUsed: 1, memUsed: 1 }] }] },
    });
    expect(badVerdict.statusCode).toBe(400);
    expect(await h.events(902, 'SubmissionJudged')).toEqual([]);
    expect(await h.task(902)).toMatchObject({ state: 'leased' });
  });

  it('fail re-queues the task for another attempt, then ends it as judgeError with the last error', async () => {
    await h.submit(1001);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const [task] = await h.claim(tokenB, 'worker-b');
      expect(task).toMatchObject({ submissionId: 1001, attempt });
      const failed = await h.post('/tasks/1001/fail', tokenB, { ...lease(task!, 'worker-b'), message: `sandbox broke (${attempt})` });
      expect(failed.statusCode).toBe(200);
      if (attempt < 3) expect(await h.task(1001)).toMatchObject({ state: 'queued', lease_owner: null, last_error: `attempt ${attempt} by worker-b: sandbox broke (${attempt})` });
    }
    const [judged] = await h.events(1001, 'SubmissionJudged');
    expect(judged!.data).toMatchObject({ status: 'judgeError', result: 'Judge Error', attempts: 3, judgedBy: 'worker-b' });
    expect((judged!.data as { errmsg: string }).errmsg).toBe(
      'Judging gave up after 3 attempts (at most 3). Last error: attempt 3 by worker-b: sandbox broke (3)',
    );
    expect(await h.claim(tokenA, 'worker-a')).toEqual([]);
  });

  it('a rejudge while leased makes the old lease stale and a new claim gets the new judging', async () => {
    await h.submit(1101);
    const [old] = await h.claim(tokenA, 'worker-a');
    await h.post('/tasks/1101/testcases', tokenA, { ...lease(old!), results: [passed(1)] });
    const rejudge = await h.rejudge(1101);
    const judging = rejudge.events[0]!.streamPosition;
    expect(judging).toBe(3);
    expect((await h.post('/tasks/1101/testcases', tokenA, { ...lease(old!), results: [passed(2)] })).statusCode).toBe(409);
    expect((await h.post('/tasks/1101/complete', tokenA, { ...lease(old!), result: accepted })).statusCode).toBe(409);
    expect((await h.post('/tasks/1101/heartbeat', tokenA, lease(old!))).statusCode).toBe(409);
    const [fresh] = await h.claim(tokenB, 'worker-b');
    expect(fresh).toMatchObject({ submissionId: 1101, judging, attempt: 1 });
    await h.post('/tasks/1101/testcases', tokenB, { ...lease(fresh!, 'worker-b'), results: [passed(1)] });
    expect((await h.post('/tasks/1101/complete', tokenB, { ...lease(fresh!, 'worker-b'), result: accepted })).statusCode).toBe(200);
    const events = await h.events(1101);
    expect(events.map((e) => [e.type, (e.data as { judging?: number }).judging ?? null])).toEqual([
      ['SubmissionCreated', null],
      ['TestcaseJudged', 1],
      ['RejudgeRequested', null],
      ['TestcaseJudged', judging],
      ['SubmissionJudged', judging],
    ]);
  });
});

describe('authentication', () => {
  it('refuses a missing, malformed or unknown token with 401, and a body naming another worker with 403', async () => {
    const body = { worker: 'worker-a', languages: ['cpp'], capacity: 1 };
    for (const token of [null, '', 'nope', `otogw_${'A'.repeat(43)}`, `${tokenA}x`, tokenA.toUpperCase()]) {
      const response = await h.post('/claim', token, body);
      expect(response.statusCode, String(token)).toBe(401);
      expect(response.json()).toEqual({ message: expect.any(String) });
    }
    const basic = await h.app.inject({ method: 'POST', url: '/api/internal/judge/claim', headers: { authorization: `Basic ${tokenA}` }, payload: body });
    expect(basic.statusCode).toBe(401);
    const mismatch = await h.post('/claim', tokenB, body);
    expect(mismatch.statusCode).toBe(403);
    expect(mismatch.json()).toEqual({ message: 'this token belongs to worker "worker-b", not "worker-a"' });
  });

  it('refuses a revoked worker at once', async () => {
    const token = await h.addWorker('short-lived');
    expect((await h.post('/claim', token, { worker: 'short-lived', languages: ['c'], capacity: 1 })).statusCode).toBe(200);
    expect(await revokeWorker(h.runtime.pool, 'short-lived')).toBe(true);
    expect((await h.post('/claim', token, { worker: 'short-lived', languages: ['c'], capacity: 1 })).statusCode).toBe(401);
  });
});

describe('test data', () => {
  it('serves the zip by its hash, 404 for an unknown hash, and needs a token', async () => {
    const response = await h.app.inject({ method: 'GET', url: `/api/internal/judge/testdata/${hash}`, headers: { authorization: `Bearer ${tokenA}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(createHash('sha256').update(response.rawPayload).digest('hex')).toBe(hash);
    expect(Object.keys(unzipSync(response.rawPayload)).sort()).toEqual(['1.in', '1.sol', '2.in', '2.sol', '3.in', '3.sol']);
    expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);

    const unknown = await h.app.inject({ method: 'GET', url: `/api/internal/judge/testdata/${'0'.repeat(64)}`, headers: { authorization: `Bearer ${tokenA}` } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: expect.stringContaining('no test data') });
    const anonymous = await h.app.inject({ method: 'GET', url: `/api/internal/judge/testdata/${hash}` });
    expect(anonymous.statusCode).toBe(401);
  });
});
