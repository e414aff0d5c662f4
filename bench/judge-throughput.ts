/**
 * Judging throughput: a generated a+b problem with 100 tests and the sample C++ accepted solution,
 * submissions judged per minute with every slot busy —
 *   1. judgeSubmission directly (judge/src/pipeline/judge-submission.ts) on a bwrap sandbox with 1 slot,
 *   2. the same with 2 slots (2 submissions at a time),
 *   3. the real worker (startWorker, 2 slots) against the real API (bench/lib/judge-api.ts): N
 *      SubmissionCreated events appended, from the first append to the last SubmissionJudged.
 * Each sandbox is wrapped (bench/lib/judge-support.ts timedSandbox) to split a submission into its compile
 * and its tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { judgeSubmission } from '@otog/judge/pipeline/judge-submission';
import { createSandbox, type Sandbox } from '@otog/judge/sandbox/index';
import { startWorker, type WorkerLogger } from '@otog/judge/worker/index';
import type { SubmissionResult } from '@otog/schemas/common/judging';
import type { BenchContext } from './lib/context.ts';
import { startBenchJudgeApi } from './lib/judge-api.ts';
import { BENCH_UIDS, benchTmp, closeOnCleanup, cpuBusy, notMeasured, sandboxUnavailable, sectionLoad, summarizeUses, timedSandbox, writeAplusbProblem, type UseSummary } from './lib/judge-support.ts';
import type { BenchResult, Figure, Table } from './lib/report.ts';
import { benchStopping, onCleanup } from './lib/services.ts';
import { int, ms, now, seconds } from './lib/stats.ts';

const TITLE = 'Judging throughput (a+b, 100 tests)';
const TESTS = 100;
const LIMITS = { timeLimit: 1_000, memoryLimit: 256, score: 100 } as const;
const SOURCE_FILE = fileURLToPath(new URL('../judge/samples/solutions/aplusb/accept.cpp', import.meta.url));

interface PathResult {
  readonly path: string;
  readonly slots: number;
  readonly submissions: number;
  readonly elapsedMs: number;
  readonly perMinute: number;
  readonly uses: UseSummary;
  /** Busy share of all CPUs during the timed part. */
  readonly cpuBusy: number;
  /** CPU of this Node process (judge driver; plus API and worker client for the worker path) per submission. */
  readonly nodeCpuMsPerSubmission: number;
  /** 1-minute load average at the end of the timed part. */
  readonly loadAfter: number;
  readonly extra?: readonly string[];
}

function stopIfInterrupted(): void {
  if (benchStopping()) throw new Error('interrupted');
}

function checkAccepted(result: Pick<SubmissionResult, 'status' | 'score' | 'result' | 'errmsg'>, what: string): void {
  if (result.status !== 'accept' || result.score !== LIMITS.score) {
    throw new Error(`${what} was not accepted: ${result.status} ${result.result} score ${result.score}${result.errmsg ? `: ${result.errmsg.slice(0, 500)}` : ''}`);
  }
}

function zipFolder(dir: string): Uint8Array {
  return zipSync(Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name))])));
}

async function judgeDirect(options: { slots: number; submissions: number; problemDir: string; sourceCode: string; rootDir: string }): Promise<PathResult> {
  const cgroupParent = `otog-bench-${process.pid}-judge${options.slots}`;
  const inner = await createSandbox({
    mode: 'bwrap',
    rootDir: options.rootDir,
    slots: options.slots,
    firstUid: options.slots === 1 ? BENCH_UIDS.oneSlot : BENCH_UIDS.twoSlots,
    cgroupParent,
  });
  const closeSandbox = closeOnCleanup(`sandbox (${options.slots} slots)`, inner, options.rootDir, cgroupParent);
  try {
    process.stdout.write(`    sandbox with ${options.slots} slot(s) ready\n`);
    const { sandbox, uses } = timedSandbox(inner);
    const judgeOne = (s: Sandbox) =>
      judgeSubmission({ problemDir: options.problemDir, language: 'cpp', sourceCode: options.sourceCode, fileName: 'accept.cpp', limits: LIMITS, contest: false, sandbox: s });
    // Warm-up (untimed): the compiler's files in the page cache, the slots' boxes used once.
    checkAccepted(await judgeOne(inner), 'the warm-up submission');

    process.stdout.write(`  judging: ${options.submissions} submissions through judgeSubmission, ${options.slots} slot(s)\n`);
    const busy = cpuBusy();
    const cpuBefore = process.cpuUsage();
    const started = now();
    let done = 0;
    const results = await Promise.all(
      Array.from({ length: options.submissions }, async () => {
        const result = await judgeOne(sandbox);
        done += 1;
        if (done % Math.max(1, Math.floor(options.submissions / 4)) === 0) process.stdout.write(`    ${done} / ${options.submissions} judged, ${seconds(now() - started)} s\n`);
        return result;
      }),
    );
    const elapsedMs = now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    results.forEach((result, index) => checkAccepted(result, `submission ${index + 1}`));
    return {
      path: 'judgeSubmission',
      slots: options.slots,
      submissions: options.submissions,
      elapsedMs,
      perMinute: (options.submissions / elapsedMs) * 60_000,
      uses: summarizeUses(uses),
      cpuBusy: busy(),
      nodeCpuMsPerSubmission: (cpu.user + cpu.system) / 1000 / options.submissions,
      loadAfter: loadavg()[0]!,
    };
  } finally {
    await closeSandbox();
  }
}

async function judgeThroughWorker(options: { adminUrl: string; submissions: number; problemDir: string; sourceCode: string; tmp: string }): Promise<PathResult> {
  const setupStarted = now();
  const api = await startBenchJudgeApi(options.adminUrl, join(options.tmp, 'api-data'));
  process.stdout.write(`    API started in ${seconds(now() - setupStarted)} s\n`);
  try {
    const problemId = 1;
    await api.seedProblem(problemId, zipFolder(options.problemDir), { ...LIMITS, testCount: TESTS });
    const workerName = 'bench-judge';
    const token = await api.addWorker(workerName);

    const rootDir = join(options.tmp, 'sandbox-worker');
    const cgroupParent = `otog-bench-${process.pid}-worker`;
    const inner = await createSandbox({ mode: 'bwrap', rootDir, slots: 2, firstUid: BENCH_UIDS.worker, cgroupParent });
    const closeSandbox = closeOnCleanup('worker sandbox', inner, rootDir, cgroupParent);
    const { sandbox, uses } = timedSandbox(inner);
    const complaints: string[] = [];
    const logger: WorkerLogger = {
      info() {},
      warn: (message, fields) => void complaints.push(`${message} ${JSON.stringify(fields ?? {})}`),
      error: (message, fields) => void complaints.push(`${message} ${JSON.stringify(fields ?? {})}`),
    };
    try {
      const worker = await startWorker({ apiUrl: api.url, worker: workerName, token, slots: 2, sandbox, cacheDir: join(options.tmp, 'worker-cache'), logger });
      const stopWorker = onCleanup('judge worker', () => worker.stop());
      let elapsedMs: number;
      let cpuBusyShare: number;
      let cpu: NodeJS.CpuUsage;
      let loadAfter: number;
      try {
        process.stdout.write(`  judging: ${options.submissions} submissions through the worker (2 slots) and the API\n`);
        const busy = cpuBusy();
        const cpuBefore = process.cpuUsage();
        const started = now();
        for (let id = 1; id <= options.submissions; id++) {
          await api.submit(id, { problemId, language: 'cpp', sourceCode: options.sourceCode, fileName: 'accept.cpp' });
        }
        const deadline = Date.now() + 120_000 + options.submissions * 60_000;
        let reported = 0;
        for (;;) {
          const judged = await api.judgedCount();
          if (judged >= options.submissions) break;
          if (judged >= reported + Math.max(1, Math.floor(options.submissions / 4))) {
            reported = judged;
            process.stdout.write(`    ${judged} / ${options.submissions} judged, ${seconds(now() - started)} s\n`);
          }
          stopIfInterrupted();
          if (Date.now() > deadline) throw new Error(`only ${judged} of ${options.submissions} submissions judged in time${complaints.length ? `; worker said: ${complaints.slice(0, 3).join(' | ')}` : ''}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        cpu = process.cpuUsage(cpuBefore);
        cpuBusyShare = busy();
        loadAfter = loadavg()[0]!;
        elapsedMs = await api.firstCreatedToLastJudgedMs();
      } finally {
        const stopping = now();
        await stopWorker();
        process.stdout.write(`    worker stopped in ${seconds(now() - stopping)} s\n`);
      }

      const waits: number[] = [];
      for (let id = 1; id <= options.submissions; id++) {
        const events = await api.events(id);
        const created = events.find((event) => event.type === 'SubmissionCreated');
        const judged = events.find((event) => event.type === 'SubmissionJudged');
        if (!created || !judged) throw new Error(`submission ${id} has no SubmissionJudged event`);
        checkAccepted(judged.data as SubmissionResult, `submission ${id} (worker)`);
        const reportedTests = events.filter((event) => event.type === 'TestcaseJudged').length;
        if (reportedTests !== TESTS) throw new Error(`submission ${id}: ${reportedTests} TestcaseJudged events, expected ${TESTS}`);
        waits.push(Date.parse(judged.recordedAt) - Date.parse(created.recordedAt));
      }
      waits.sort((a, b) => a - b);
      const reports = await api.testcaseReportCount();
      return {
        path: 'worker + API',
        slots: 2,
        submissions: options.submissions,
        elapsedMs,
        perMinute: (options.submissions / elapsedMs) * 60_000,
        uses: summarizeUses(uses),
        cpuBusy: cpuBusyShare,
        nodeCpuMsPerSubmission: (cpu.user + cpu.system) / 1000 / options.submissions,
        loadAfter,
        extra: [
          `SubmissionCreated → SubmissionJudged per submission (all ${options.submissions} appended at once, so it includes queueing): ` +
            `fastest ${seconds(waits[0]!)} s, slowest ${seconds(waits[waits.length - 1]!)} s.`,
          `The worker reported the ${TESTS} tests of a submission in ${(reports / options.submissions).toFixed(1)} requests on average ` +
            '(each one HTTP request and one append of TestcaseJudged events; the reporter sends at once when nothing is in flight).',
          ...(complaints.length > 0 ? [`The worker logged ${complaints.length} warning(s)/error(s), first: ${complaints[0]!.slice(0, 300)}`] : []),
        ],
      };
    } finally {
      await closeSandbox();
    }
  } finally {
    const stopping = now();
    await api.stop();
    process.stdout.write(`    API stopped in ${seconds(now() - stopping)} s\n`);
  }
}

export async function benchJudging(context: BenchContext): Promise<BenchResult> {
  const unavailable = sandboxUnavailable();
  if (unavailable) return notMeasured('judging', TITLE, unavailable);
  const load = sectionLoad();
  const submissions = context.quick ? 10 : 20;
  const tmp = benchTmp('judging');
  try {
    const problemDir = writeAplusbProblem(join(tmp.dir, 'aplusb-100'), TESTS);
    const sourceCode = readFileSync(SOURCE_FILE, 'utf8');
    const results: PathResult[] = [];
    for (const slots of [1, 2]) {
      stopIfInterrupted();
      results.push(await judgeDirect({ slots, submissions, problemDir, sourceCode, rootDir: join(tmp.dir, `sandbox-${slots}`) }));
    }
    stopIfInterrupted();
    results.push(await judgeThroughWorker({ adminUrl: context.adminUrl, submissions, problemDir, sourceCode, tmp: tmp.dir }));
    const { start, end } = load();
    return report(results, submissions, start, end);
  } finally {
    await tmp.remove();
  }
}

function report(results: readonly PathResult[], submissions: number, loadStart: string, loadEnd: string): BenchResult {
  const label = (result: PathResult) => `${result.path}, ${result.slots} slot${result.slots > 1 ? 's' : ''}`;
  const throughput: Table = {
    title: `${submissions} submissions of the accepted C++ a+b, ${TESTS} tests each, all queued at once`,
    header: ['path', 'elapsed', 'submissions/min', 'per submission (slot held)', 'compile', 'per test', 'sandboxed test run', 'a+b CPU (calibrated)', 'CPUs busy', 'Node CPU / submission', 'load avg (1 min) after'],
    rows: results.map((result) => [
      label(result),
      `${seconds(result.elapsedMs)} s`,
      `**${result.perMinute.toFixed(1)}**`,
      `${seconds(result.uses.perSubmissionMs)} s`,
      `${int(result.uses.compileMs)} ms`,
      `${ms(result.uses.perTestMs)} ms`,
      `${ms(result.uses.testRunMs)} ms`,
      `${ms(result.uses.programCpuMs)} ms`,
      `${Math.round(result.cpuBusy * 100)}%`,
      `${int(result.nodeCpuMsPerSubmission)} ms`,
      result.loadAfter.toFixed(2),
    ]),
  };
  const one = results.find((result) => result.path === 'judgeSubmission' && result.slots === 1);
  const testsShare = one ? (one.uses.perTestMs * (TESTS - 1) + one.uses.testRunMs) / one.uses.perSubmissionMs : Number.NaN;
  const figures: Figure[] = results.map((result) => ({
    name: `judging a+b (${TESTS} tests), ${label(result)}`,
    value: result.perMinute,
    unit: 'submissions/min',
    display: `${result.perMinute.toFixed(1)} submissions/min (${ms(result.uses.perTestMs)} ms per test, compile ${int(result.uses.compileMs)} ms)`,
    summary: true,
  }));
  return {
    id: 'judging',
    title: TITLE,
    method: [
      `Problem: ${TESTS} generated tests (two integers up to ±10^12 per test; bench/lib/judge-support.ts), no subtask.json, standard ` +
        `checker, ${LIMITS.timeLimit} ms / ${LIMITS.memoryLimit} MB. Solution: judge/samples/solutions/aplusb/accept.cpp ` +
        '(`<bits/stdc++.h>`), compiled per submission in the sandbox; every submission must come back accepted with all tests run.',
      '`judgeSubmission` rows: all submissions started at once on a bwrap sandbox with 1 or 2 slots (one slot per submission), ' +
        'so every slot stays busy until the queue is empty; one untimed warm-up submission first. Elapsed: first start to last result.',
      'Worker row: the real API (platform runtime with the judge-task reactor, the leased queue and its sweeper, the object ' +
        'store, the Fastify app with the internal judge routes, on a fresh database of the bench cluster; bench/lib/judge-api.ts) ' +
        'listening on loopback, and `startWorker` with 2 slots talking to it over HTTP (claim long-poll, test data download and ' +
        'unzip into its cache, per-test reports, complete). The submissions are appended as `SubmissionCreated` events one after ' +
        'another; elapsed is from the first `SubmissionCreated` to the last `SubmissionJudged` (their `recorded_at`). API, worker ' +
        'and bench share this Node process and the 2 cores, as with `npm start`\'s built-in worker.',
      'Per submission / compile / per test come from a timing wrapper around the sandbox (every `slot.run` timed): "per test" is ' +
        'the median time from one test\'s run to the next (fresh box, copy the program in, sandboxed run, standard check, report), ' +
        '"sandboxed test run" the `slot.run` part of it, "a+b CPU" what the program itself used (cgroup CPU minus the calibrated wrapper cost, so ±1 ms noise). "CPUs busy" is the share of both cores ' +
        'in use during the timed part (/proc/stat), "Node CPU" this process\'s own CPU per submission.',
    ],
    figures,
    tables: [
      throughput,
      {
        title: 'Conditions',
        header: ['item', 'value'],
        rows: [
          ['load average (1/5/15 min) at section start', loadStart],
          ['load average (1/5/15 min) at section end', loadEnd],
        ],
      },
    ],
    notes: [
      ...(one
        ? [
            `With 1 slot a submission holds its slot ${seconds(one.uses.perSubmissionMs)} s: compile ${int(one.uses.compileMs)} ms and ` +
              `${TESTS} tests of about ${ms(one.uses.perTestMs)} ms (${Math.round(testsShare * 100)}% of it), of which the sandboxed run is ` +
              `${ms(one.uses.testRunMs)} ms and a+b itself ${ms(one.uses.programCpuMs)} ms of CPU: the tests' time is the sandbox's per-run cost.`,
          ]
        : []),
      ...results.flatMap((result) => result.extra ?? []),
    ],
  };
}
