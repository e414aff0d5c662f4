/**
 * The judge worker against the REAL API (tests/judging harness listening on a port): sample problems
 * seeded as events with their zips in the object store, submissions appended as SubmissionCreated, a real
 * worker (startWorker, two slots, bwrap sandbox) judging them. Then the robustness cases through the
 * worker, TestcaseJudged appearing while grading, a sandbox that always fails (given back, Judge Error
 * after the attempts), a worker process drained by SIGTERM, and one SIGKILLed mid-submission whose task
 * a second worker re-claims once the (short) lease expires.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkerLimits } from '@otog/judge/languages/index';
import { createSandbox, type Sandbox, type SandboxSlot } from '@otog/judge/sandbox/index';
import { silentLogger, startWorker, type RunningWorker } from '@otog/judge/worker/index';
import { sql } from '@otog/platform/db/pool';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import type { SubmissionResult } from '@otog/schemas/common/judging';
import { livingProcessesOf } from '../sandbox/support.ts';
import { aplusbFiles, caseName, expectedFor, problemDir, sampleCases, sandboxTmp, solutionFile, type SampleCase } from '../judge-pipeline/support.ts';
import { cleanUpKilledWorker, countTests, spawnWorkerProcess, startApi, zipFolder, type ApiUnderTest } from './support.ts';

const LEASE_MS = 4_000;
const uids = { a: 61240, failing: 61260, child: 61270, rescuer: 61280 };
const smallCheckerLimits = { ...checkerLimits, cpuMs: 1500, wallMs: 2500 };

let api: ApiUnderTest;
let tmp: string;
let worker: RunningWorker | undefined;
let nextSubmission = 1;
let nextProblem = 1;
const problemIds = new Map<string, number>();
const zips = (files: Record<string, string>) => zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));

async function problemFor(name: string, timeLimit: number, memoryLimit: number): Promise<number> {
  const key = `${name}:${timeLimit}:${memoryLimit}`;
  const known = problemIds.get(key);
  if (known) return known;
  const problemId = nextProblem++;
  await api.seedProblem(problemId, zipFolder(problemDir(name)), { timeLimit, memoryLimit, testCount: countTests(problemDir(name)) });
  problemIds.set(key, problemId);
  return problemId;
}

async function submitSample(entry: SampleCase, contest: boolean): Promise<number> {
  const problemId = await problemFor(entry.problem, entry.timeLimit ?? 1000, entry.memoryLimit ?? 256);
  const submissionId = nextSubmission++;
  await api.submit(submissionId, {
    problemId,
    language: entry.language,
    sourceCode: readFileSync(solutionFile(entry), 'utf8'),
    fileName: entry.solution,
    contestId: contest ? 1 : null,
  });
  return submissionId;
}

async function startMainWorker(name = 'judge-a', firstUid = uids.a): Promise<RunningWorker> {
  const token = await api.harness.addWorker(name);
  return startWorker({
    apiUrl: api.url,
    worker: name,
    token,
    slots: 2,
    sandbox: { mode: 'bwrap', rootDir: join(tmp, `sandbox-${name}`), firstUid, cgroupParent: `otog-test-${name}-${process.pid}`, calibrationRuns: 10 },
    cacheDir: join(tmp, `cache-${name}`),
    claimWaitMs: 2_000,
    checkerLimits: smallCheckerLimits,
    logger: silentLogger,
  });
}

const judgedData = (event: StoredEvent) => event.data as SubmissionResult & { judgedBy: string | null; attempts: number; judging: number };

beforeAll(async () => {
  tmp = sandboxTmp('judge-worker');
  api = await startApi({ leaseMs: LEASE_MS, maxAttempts: 3 });
  worker = await startMainWorker();
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await api?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 120_000);

describe('conformance through the worker', () => {
  const cases = sampleCases();
  const runs = [...cases.map((entry) => ({ entry, contest: false })), ...cases.filter((entry) => entry.contest).map((entry) => ({ entry, contest: true }))];
  const judged = new Map<string, { submissionId: number; event: StoredEvent }>();

  beforeAll(async () => {
    const submitted: Array<{ name: string; submissionId: number }> = [];
    for (const run of runs) submitted.push({ name: caseName(run.entry, run.contest), submissionId: await submitSample(run.entry, run.contest) });
    for (const { name, submissionId } of submitted) judged.set(name, { submissionId, event: await api.judged(submissionId, 600_000) });
  }, 900_000);

  it.each(runs.map((run) => [caseName(run.entry, run.contest), run] as const))('%s', (name, { entry, contest }) => {
    const data = judgedData(judged.get(name)!.event);
    expect({ status: data.status, result: data.result, score: data.score }).toEqual(expectedFor(entry, contest));
    expect(data).toMatchObject({ judgedBy: 'judge-a', attempts: 1 });
    if (entry.runtimeErrorKind) {
      for (const verdict of data.subtaskResults.flatMap((subtask) => subtask.verdicts)) expect(verdict.runtimeErrorKind).toBe(entry.runtimeErrorKind);
    }
    if (entry.errmsgIncludes) expect(data.errmsg).toContain(entry.errmsgIncludes);
  });

  it('every executed test was appended as TestcaseJudged before the SubmissionJudged', async () => {
    for (const [name, { submissionId }] of judged) {
      const events = await api.harness.events(submissionId);
      const final = events.findIndex((event) => event.type === 'SubmissionJudged');
      const testcases = events.filter((event) => event.type === 'TestcaseJudged');
      expect(events.slice(final + 1).filter((event) => event.type === 'TestcaseJudged'), name).toEqual([]);
      const data = judgedData(events[final]!);
      const ran = data.subtaskResults.flatMap((subtask) => subtask.verdicts).filter((verdict) => verdict.status !== 'SKIPPED');
      expect(testcases.length, name).toBe(ran.length);
      expect(testcases.map((event) => (event.data as { outcome: { status: string } }).outcome.status).sort(), name).toEqual(ran.map((verdict) => verdict.status).sort());
    }
  });

  it('leaves no sandboxed process behind', () => {
    expect(livingProcessesOf([uids.a, uids.a + 1])).toEqual([]);
  });
});

describe('robustness through the worker: the documented ending, and the queue keeps moving', () => {
  const AC_C = readFileSync(solutionFile({ problem: 'aplusb', solution: 'accept.c' }), 'utf8');

  async function judgeWith(testdata: Uint8Array, testCount: number, sourceCode = AC_C): Promise<ReturnType<typeof judgedData>> {
    const problemId = nextProblem++;
    await api.seedProblem(problemId, testdata, { timeLimit: 1000, memoryLimit: 256, testCount });
    const submissionId = nextSubmission++;
    await api.submit(submissionId, { problemId, language: 'c', sourceCode });
    return judgedData(await api.judged(submissionId));
  }

  it('a corrupt package (not a zip): No Testcase at once', async () => {
    const data = await judgeWith(strToU8(`not a zip ${Date.now()}`), 2);
    expect(data).toMatchObject({ status: 'judgeError', result: 'No Testcase', score: 0, attempts: 1 });
    expect(data.errmsg).toMatch(/not a valid zip/);
  });

  it('a missing .sol: Solution missing', async () => {
    const files = aplusbFiles(3);
    delete files['3.sol'];
    const data = await judgeWith(zips(files), 3);
    expect(data).toMatchObject({ status: 'judgeError', result: 'Solution missing', attempts: 1 });
    expect(data.errmsg).toContain('3.sol');
  });

  it('an invalid subtask.json: Subtask Error', async () => {
    const data = await judgeWith(zips({ ...aplusbFiles(2), 'subtask.json': '{"data": {"subtask 1": {"case": "1-7"}}}' }), 2);
    expect(data).toMatchObject({ status: 'judgeError', result: 'Subtask Error', attempts: 1 });
  });

  it('a checker that hangs: Problem Error at the worker\'s checker limit', async () => {
    const data = await judgeWith(zips({ ...aplusbFiles(2), 'interactive_script.py': 'while True:\n    pass\n' }), 2);
    expect(data).toMatchObject({ status: 'judgeError', result: 'Problem Error', attempts: 1 });
    expect(data.errmsg).toMatch(/CPU time limit of 1\.5 s/);
  });

  it('the queue kept moving: a normal submission is judged right after', async () => {
    const data = await judgeWith(zips(aplusbFiles(2)), 2);
    expect(data).toMatchObject({ status: 'accept', result: 'PP', score: 100 });
  });

  it('a lost lease (409 on a report or heartbeat) abandons the task silently; it is finished by a later lease', async () => {
    const entry = sampleCases().find((candidate) => candidate.problem === 'aplusb' && candidate.solution === 'tle.py')!;
    const submissionId = await submitSample(entry, false);
    const deadline = Date.now() + 60_000;
    while ((await api.harness.events(submissionId, 'TestcaseJudged')).length === 0) {
      if (Date.now() > deadline) throw new Error('no test case reported');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Another worker takes the task over (as a claim after an expired lease would), atomically.
    await api.harness.runtime.pool.query(sql.unsafe`
      UPDATE judge_tasks SET lease_owner = 'thief', attempts = attempts + 1, lease_until = now() + interval '4 seconds'
      WHERE submission_id = ${submissionId}`);
    while (worker!.active > 0) {
      if (Date.now() > deadline) throw new Error('the worker kept judging a task it lost');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // No complete and no fail from the old lease: the task is still the thief's.
    expect(await api.harness.events(submissionId, 'SubmissionJudged')).toEqual([]);
    expect(await api.harness.task(submissionId)).toMatchObject({ state: 'leased', lease_owner: 'thief', attempts: 2, last_error: null });
    // The thief never reports; when its lease expires judge-a claims the task again and finishes it.
    const data = judgedData(await api.judged(submissionId, 60_000));
    expect(data).toMatchObject({ result: 'TTTTTTTTTT', judgedBy: 'judge-a', attempts: 3 });
  }, 120_000);

  it('TestcaseJudged events appear while the submission is grading', async () => {
    const entry = sampleCases().find((candidate) => candidate.problem === 'aplusb' && candidate.solution === 'tle.py')!;
    const submissionId = await submitSample(entry, false);
    let seenWhileGrading = false;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const events = await api.harness.events(submissionId);
      const testcases = events.filter((event) => event.type === 'TestcaseJudged').length;
      const done = events.some((event) => event.type === 'SubmissionJudged');
      if (done) break;
      if (testcases > 0 && testcases < 10) seenWhileGrading = true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seenWhileGrading).toBe(true);
    expect(judgedData(await api.judged(submissionId))).toMatchObject({ result: 'TTTTTTTTTT' });
  });
});

describe('a sandbox that fails: each attempt is given back, then Judge Error with the messages for admins', () => {
  let failing: Sandbox;

  afterAll(async () => {
    await failing?.close();
  }, 60_000);

  it('ends as judgeError after the maximum attempts, with no TestcaseJudged', async () => {
    await worker!.stop();
    worker = undefined;
    const real = await createSandbox({
      mode: 'bwrap',
      rootDir: join(tmp, 'sandbox-failing'),
      firstUid: uids.failing,
      slots: 1,
      cgroupParent: `otog-test-failing-${process.pid}`,
      calibrationRuns: 10,
    });
    const broken = (slot: SandboxSlot): SandboxSlot => ({
      ...slot,
      resetBox: () => slot.resetBox(),
      addFile: (name, from, options) => slot.addFile(name, from, options),
      copyOut: (name, destination, maxBytes) => slot.copyOut(name, destination, maxBytes),
      readFile: (name, maxBytes) => slot.readFile(name, maxBytes),
      async run(request) {
        const result = await slot.run(request);
        return { ...result, status: 'sandbox-error', detail: 'injected: the cgroup cannot be created' };
      },
    });
    failing = { ...real, close: () => real.close(), withSlot: (use) => real.withSlot((slot) => use(broken(slot))) };
    const token = await api.harness.addWorker('judge-broken');
    const brokenWorker = await startWorker({
      apiUrl: api.url,
      worker: 'judge-broken',
      token,
      slots: 1,
      sandbox: failing,
      cacheDir: join(tmp, 'cache-broken'),
      claimWaitMs: 1_000,
      logger: silentLogger,
    });
    try {
      const problemId = await problemFor('aplusb', 1000, 256);
      const submissionId = nextSubmission++;
      await api.submit(submissionId, { problemId, language: 'c', sourceCode: readFileSync(solutionFile({ problem: 'aplusb', solution: 'accept.c' }), 'utf8') });
      const data = judgedData(await api.judged(submissionId, 60_000));
      expect(data).toMatchObject({ status: 'judgeError', result: 'Judge Error', score: 0, attempts: 3 });
      expect(data.errmsg).toMatch(/gave up after 3 attempts/);
      expect(data.errmsg).toContain('injected: the cgroup cannot be created');
      expect(await api.harness.events(submissionId, 'TestcaseJudged')).toEqual([]);
    } finally {
      await brokenWorker.stop();
    }
  }, 120_000);
});

describe('worker processes: SIGTERM drains, SIGKILL is recovered by another worker', () => {
  const childRoot = () => join(tmp, 'sandbox-child');
  const childCgroup = `otog-test-child-${process.pid}`;
  let tleEntry: SampleCase;

  beforeAll(() => {
    tleEntry = sampleCases().find((candidate) => candidate.problem === 'aplusb' && candidate.solution === 'tle.py')!;
  });

  afterAll(() => {
    cleanUpKilledWorker(childRoot(), childCgroup);
  });

  async function childWorker(name: string) {
    const token = await api.harness.addWorker(name);
    return spawnWorkerProcess({
      OTOG_API_URL: api.url,
      OTOG_JUDGE_WORKER: name,
      OTOG_JUDGE_TOKEN: token,
      OTOG_JUDGE_SLOTS: '1',
      OTOG_JUDGE_CACHE_DIR: join(tmp, 'cache-child'),
      OTOG_JUDGE_CLAIM_WAIT_MS: '1000',
      OTOG_SANDBOX: 'bwrap',
      OTOG_SANDBOX_ROOT: childRoot(),
      OTOG_SANDBOX_FIRST_UID: String(uids.child),
      OTOG_SANDBOX_CGROUP: childCgroup,
    });
  }

  async function firstTestcase(submissionId: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await api.harness.events(submissionId, 'TestcaseJudged')).length === 0) {
      if (Date.now() > deadline) throw new Error(`no TestcaseJudged for ${submissionId} (task ${JSON.stringify(await api.harness.task(submissionId))})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  let queuedAfterDrain: number;

  it('SIGTERM: the running submission finishes and reports, nothing new is claimed, exit 0', async () => {
    expect(worker).toBeUndefined();
    const child = await childWorker('judge-child');
    const running = await submitSample(tleEntry, false);
    await firstTestcase(running);
    child.child.kill('SIGTERM');
    queuedAfterDrain = await submitSample(tleEntry, false);
    expect(await child.exited, child.output()).toBe(0);
    const data = judgedData(await api.judged(running, 10_000));
    expect(data).toMatchObject({ result: 'TTTTTTTTTT', judgedBy: 'judge-child', attempts: 1 });
    expect(child.output()).toMatch(/draining/);
    expect(await api.harness.task(queuedAfterDrain)).toMatchObject({ state: 'queued', attempts: 0 });
    expect(livingProcessesOf([uids.child])).toEqual([]);
  }, 120_000);

  it('SIGKILL mid-submission: the lease expires and a second worker re-claims and finishes it', async () => {
    const child = await childWorker('judge-crashy');
    await firstTestcase(queuedAfterDrain);
    child.child.kill('SIGKILL');
    await child.exited;
    const killedAt = Date.now();
    // The sandboxed program dies with its worker (the runner's parent-death signal, bwrap --die-with-parent); the
    // kernel tears the namespace down asynchronously, so wait for it, with a deadline.
    const goneBy = Date.now() + 15_000;
    while (livingProcessesOf([uids.child]).length > 0 && Date.now() < goneBy) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(livingProcessesOf([uids.child])).toEqual([]);
    cleanUpKilledWorker(childRoot(), childCgroup);
    const before = (await api.harness.events(queuedAfterDrain, 'TestcaseJudged')).length;
    expect(before).toBeGreaterThan(0);
    expect(await api.harness.events(queuedAfterDrain, 'SubmissionJudged')).toEqual([]);

    worker = await startMainWorker('judge-rescuer', uids.rescuer);
    const data = judgedData(await api.judged(queuedAfterDrain, 60_000));
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS - 1_000);
    expect(data).toMatchObject({ status: 'reject', result: 'TTTTTTTTTT', judgedBy: 'judge-rescuer', attempts: 2 });
    // Re-reported tests were not appended twice (deterministic event ids).
    const testcases = await api.harness.events(queuedAfterDrain, 'TestcaseJudged');
    expect(new Set(testcases.map((event) => (event.data as { testNumber: number }).testNumber)).size).toBe(testcases.length);
    expect(testcases.length).toBe(10);
  }, 120_000);
});
