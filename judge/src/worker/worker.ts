/**
 * The judge worker (DESIGN.md section 7): leases tasks from the API's internal judge endpoints with its
 * per-worker token, judges each with judgeSubmission in its own sandbox slot, reports every test case as
 * it finishes, and completes. Per task it keeps the lease alive with heartbeats; when the API says the
 * lease is gone (409) it abandons the task silently (another worker has it, or a rejudge replaced it).
 *
 * Endings: a verdict, a special result of the package or a checker (Problem Error, Subtask Error, ...)
 * and a compile error are completed. A Judge Error (the sandbox failed, test data could not be fetched,
 * anything unexpected) is given back with /fail: the API re-queues it, and after its maximum of attempts
 * ends the submission as judgeError with the messages for admins. One bad task never stops the loop.
 *
 * stop() drains: no new claims (a waiting long-poll is aborted), running tasks finish and report, then
 * the sandbox is closed (when the worker made it).
 */
import { join } from 'node:path';
import { LANGUAGES, type Language, type SubmissionResult } from '@otog/schemas/common/judging';
import type { JudgeTask } from '@otog/schemas/api/judge-internal';
import { checkerLimits as defaultCheckerLimits, languages as languageTable } from '../languages/index.ts';
import { judgeSubmission } from '../pipeline/judge-submission.ts';
import { sandboxReadProblem } from '../pipeline/problem-access.ts';
import { unusableTestdataResult } from '../pipeline/special.ts';
import { SPECIAL_RESULTS } from '../scoring/special-results.ts';
import { createSandbox, type RunLimits, type Sandbox, type SandboxOptions } from '../sandbox/index.ts';
import { createTestdataCache, type TestdataCache } from '../testdata/cache.ts';
import { TestdataError, type UnzipLimits } from '../testdata/unzip.ts';
import { createJudgeApiClient, JudgeApiRequestError, LeaseLostError, type JudgeApiClient, type LeaseRef } from './api-client.ts';
import { createTestcaseReporter } from './reporter.ts';

export interface WorkerLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** JSON lines on stderr. */
export function jsonLogger(name = 'otog-judge'): WorkerLogger {
  const write = (level: string) => (message: string, fields: Record<string, unknown> = {}) => {
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, name, msg: message, ...fields })}\n`);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

export const silentLogger: WorkerLogger = { info() {}, warn() {}, error() {} };

export interface WorkerOptions {
  /** The API's base URL, e.g. http://127.0.0.1:3000. */
  readonly apiUrl: string;
  /** The worker's name and token (`npm run cli -- judge add-worker <name>`). */
  readonly worker: string;
  readonly token: string;
  /** Submissions judged at once; one sandbox slot each (default 1). */
  readonly slots?: number;
  /**
   * A running sandbox with at least `slots` slots (the caller closes it), or the options to start one
   * (its `slots` is set to ours; the worker closes it when it stops).
   */
  readonly sandbox: Sandbox | Omit<SandboxOptions, 'slots'>;
  /** Test data by hash under `<cacheDir>/testdata`, compiled checkers under `<cacheDir>/checkers`. */
  readonly cacheDir: string;
  /** Unpacked packages kept when unused (default 32). */
  readonly cacheKeep?: number;
  readonly unzipLimits?: Partial<UnzipLimits>;
  /** Largest test-data zip downloaded (default 1 GiB). */
  readonly maxZipBytes?: number;
  /** Languages claimed (default: every language both the contract and the languages table know). */
  readonly languages?: readonly Language[];
  /** How long one claim long-polls (default 20 s). */
  readonly claimWaitMs?: number;
  /** One checker run's limits (default 60 s). */
  readonly checkerLimits?: RunLimits;
  /** Fixed heartbeat interval; default a third of the time left on the lease, between 250 ms and 10 s. */
  readonly heartbeatMs?: number;
  readonly logger?: WorkerLogger;
  readonly fetch?: typeof fetch;
  /** Told of every task that ended on this worker: its status when judged, else how it ended (for metrics). */
  readonly onTaskEnded?: (outcome: { readonly status: string; readonly seconds: number }) => void;
}

export interface RunningWorker {
  readonly name: string;
  readonly slots: number;
  /** Tasks being judged now. */
  readonly active: number;
  /** Resolves when the worker has stopped (after stop(), once drained). */
  readonly done: Promise<void>;
  /** Graceful drain: stop claiming, finish the running tasks, close what the worker opened. */
  stop(): Promise<void>;
}

const isSandbox = (value: WorkerOptions['sandbox']): value is Sandbox => typeof (value as Sandbox).withSlot === 'function';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });

/** The default claim languages: the contract's, where the languages table can judge them. */
export function supportedLanguages(): Language[] {
  const known = new Set(languageTable.map((language) => language.key));
  return LANGUAGES.filter((language) => known.has(language));
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const slots = options.slots ?? 1;
  if (!Number.isInteger(slots) || slots < 1 || slots > 64) throw new Error(`slots must be a whole number from 1 to 64, got ${slots}`);
  const logger = options.logger ?? jsonLogger();
  const languages = [...(options.languages ?? supportedLanguages())];
  const claimWaitMs = options.claimWaitMs ?? 20_000;
  const maxZipBytes = options.maxZipBytes ?? 1024 * 1024 * 1024;
  const client: JudgeApiClient = createJudgeApiClient({ baseUrl: options.apiUrl, token: options.token, ...(options.fetch ? { fetch: options.fetch } : {}) });

  const ownsSandbox = !isSandbox(options.sandbox);
  const sandbox: Sandbox = isSandbox(options.sandbox) ? options.sandbox : await createSandbox({ ...options.sandbox, slots });
  if (sandbox.slotCount < slots) throw new Error(`the sandbox has ${sandbox.slotCount} slot(s); the worker needs ${slots}`);

  let cache: TestdataCache;
  try {
    cache = createTestdataCache({
      dir: join(options.cacheDir, 'testdata'),
      fetch: (hash) => client.downloadTestdata(hash, maxZipBytes),
      ...(options.cacheKeep === undefined ? {} : { keep: options.cacheKeep }),
      ...(options.unzipLimits ? { limits: options.unzipLimits } : {}),
      onSkipped: (hash, skipped) => logger.warn('test data entries not extracted', { hash, skipped: skipped.slice(0, 20) }),
    });
    if (sandbox.mode === 'bwrap') {
      const problem = sandboxReadProblem(cache.dir);
      if (problem) throw new Error(`the test-data cache must be readable by the sandbox uids (custom checkers read it): ${problem}`);
    }
  } catch (error) {
    if (ownsSandbox) await sandbox.close().catch(() => undefined);
    throw error;
  }
  const checkerCacheDir = join(options.cacheDir, 'checkers');
  const checkerLimits = options.checkerLimits ?? defaultCheckerLimits;

  const running = new Set<Promise<void>>();
  const stopping = new AbortController();
  let claimAbort: AbortController | undefined;

  /** Retries a final call (complete/fail) on transient errors; a lost lease is silent. */
  const settle = async (what: string, task: JudgeTask, call: () => Promise<void>): Promise<void> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await call();
        return;
      } catch (error) {
        if (error instanceof LeaseLostError) {
          logger.info('lease lost; task abandoned', { submissionId: task.submissionId, judging: task.judging, attempt: task.attempt, during: what });
          return;
        }
        const transient = error instanceof JudgeApiRequestError && error.transient;
        if (!transient || attempt >= 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1)));
      }
    }
  };

  const giveBack = async (task: JudgeTask, lease: LeaseRef, message: string) => {
    logger.warn('judging attempt failed; giving it back', { submissionId: task.submissionId, judging: task.judging, attempt: task.attempt, message });
    try {
      await settle('fail', task, () => client.fail(task.submissionId, lease, message));
    } catch (error) {
      // The lease expires and the task is claimed again.
      logger.error('cannot report a failed attempt', { submissionId: task.submissionId, error: (error as Error).message });
    }
  };

  const startHeartbeat = (task: JudgeTask, lease: LeaseRef, onLost: (error: LeaseLostError) => void) => {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const delayFor = (leaseUntil: string) => {
      if (options.heartbeatMs !== undefined) return options.heartbeatMs;
      const left = Date.parse(leaseUntil) - Date.now();
      return Math.min(10_000, Math.max(250, Math.floor(left / 3)));
    };
    const schedule = (ms: number) => {
      if (stopped) return;
      timer = setTimeout(beat, ms);
    };
    const beat = async () => {
      try {
        const { leaseUntil } = await client.heartbeat(task.submissionId, lease);
        schedule(delayFor(leaseUntil));
      } catch (error) {
        if (error instanceof LeaseLostError) {
          onLost(error);
          return;
        }
        logger.warn('heartbeat failed', { submissionId: task.submissionId, error: (error as Error).message });
        schedule(1_000);
      }
    };
    schedule(delayFor(task.leaseUntil));
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  };

  const judgeTask = async (task: JudgeTask): Promise<void> => {
    const lease: LeaseRef = { worker: options.worker, judging: task.judging, attempt: task.attempt };
    const lost = new AbortController();
    const onLost = (error: LeaseLostError) => {
      if (!lost.signal.aborted) lost.abort(error);
    };
    const stopHeartbeat = startHeartbeat(task, lease, onLost);
    const reporter = createTestcaseReporter({
      client,
      submissionId: task.submissionId,
      lease,
      onLeaseLost: onLost,
      log: (message, fields) => logger.warn(message, fields),
    });
    const started = Date.now();
    // Unless judged or lost below, the attempt was given back to the queue.
    let ended = 'gaveBack';
    logger.info('judging', { submissionId: task.submissionId, judging: task.judging, attempt: task.attempt, problemId: task.problem.id, language: task.language });
    let release: (() => void) | undefined;
    try {
      let result: SubmissionResult | undefined;
      let problemDir: string | undefined;
      try {
        const testdata = await cache.acquire(task.problem.testdataHash);
        release = testdata.release;
        problemDir = testdata.dir;
      } catch (error) {
        if (!(error instanceof TestdataError && error.permanent)) {
          await giveBack(task, lease, `cannot get the test data ${task.problem.testdataHash}: ${(error as Error).message}`);
          return;
        }
        result = unusableTestdataResult(error);
      }
      result ??= await judgeSubmission({
        problemDir: problemDir!,
        problemCase: task.problem.case,
        language: task.language,
        sourceCode: task.sourceCode,
        fileName: task.fileName,
        limits: { timeLimit: task.problem.timeLimit, memoryLimit: task.problem.memoryLimit, score: task.problem.score },
        contest: task.contest,
        sandbox,
        checkerLimits,
        checkerCacheDir,
        signal: lost.signal,
        onTestcase: (testNumber, outcome) => reporter.push({ testNumber, outcome }),
      });
      await reporter.flush();
      if (lost.signal.aborted) throw lost.signal.reason;
      if (result.result === SPECIAL_RESULTS.judgeError) {
        await giveBack(task, lease, result.errmsg ?? 'Judge Error');
        return;
      }
      const final = result;
      await settle('complete', task, () => client.complete(task.submissionId, lease, final));
      logger.info('judged', { submissionId: task.submissionId, judging: task.judging, result: final.result, score: final.score, ms: Date.now() - started });
      ended = final.status;
    } catch (error) {
      if (error instanceof LeaseLostError || lost.signal.aborted) {
        logger.info('lease lost; task abandoned', { submissionId: task.submissionId, judging: task.judging, attempt: task.attempt });
        ended = 'leaseLost';
        return;
      }
      await giveBack(task, lease, `the worker failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      options.onTaskEnded?.({ status: ended, seconds: (Date.now() - started) / 1_000 });
      stopHeartbeat();
      release?.();
    }
  };

  const launch = (task: JudgeTask) => {
    const promise: Promise<void> = judgeTask(task)
      .catch((error: unknown) => logger.error('unexpected task failure', { submissionId: task.submissionId, error: String(error) }))
      .finally(() => running.delete(promise));
    running.add(promise);
  };

  const loop = async () => {
    let backoff = 0;
    while (!stopping.signal.aborted) {
      const free = slots - running.size;
      if (free <= 0) {
        await Promise.race([...running, new Promise((resolve) => stopping.signal.addEventListener('abort', resolve, { once: true }))]);
        continue;
      }
      claimAbort = new AbortController();
      let tasks: JudgeTask[];
      try {
        tasks = await client.claim({ worker: options.worker, languages, capacity: free, waitMs: claimWaitMs }, AbortSignal.any([claimAbort.signal, stopping.signal]));
        backoff = 0;
      } catch (error) {
        if (stopping.signal.aborted) break;
        backoff = Math.min(30_000, Math.max(1_000, backoff * 2));
        logger.error('claim failed; retrying', { error: (error as Error).message, retryInMs: backoff });
        await sleep(backoff, stopping.signal);
        continue;
      }
      for (const task of tasks) launch(task);
    }
    await Promise.allSettled([...running]);
  };

  logger.info('judge worker started', { worker: options.worker, slots, languages, sandbox: sandbox.mode, cgroup: sandbox.cgroupVersion });
  const done = loop().finally(async () => {
    if (ownsSandbox) await sandbox.close().catch((error: unknown) => logger.error('closing the sandbox failed', { error: String(error) }));
    logger.info('judge worker stopped', { worker: options.worker });
  });

  return {
    name: options.worker,
    slots,
    get active() {
      return running.size;
    },
    done,
    async stop() {
      if (!stopping.signal.aborted) {
        logger.info('draining: no new claims; finishing running tasks', { worker: options.worker, running: running.size });
        stopping.abort();
        claimAbort?.abort();
      }
      await done;
    },
  };
}
