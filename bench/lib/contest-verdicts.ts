/**
 * Verdicts arriving at a contest, for the contest bench (bench/contests.ts): a child process with its own
 * pool and event store appends SubmissionJudged events at evenly paced times (open loop: one append per
 * verdict, whatever the latency of the ones before, as the judge queue appends one per worker report),
 * and optionally probes how long a verdict takes to be readable through the API: now and then one of the
 * paced verdicts is a probe user's, and the child polls the API (their own scores, or the whole scoreboard)
 * until the new score is there. It runs in a child so the pacing and the probe's clock do not share the
 * event loop of the API they measure (the API runs in the bench's own process).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDbPool } from '@otog/platform/db/pool';
import { createEventStore, type NewEvent } from '@otog/platform/eventstore/event-store';
import { otogEventRegistry } from '@otog/schemas/events';
import { onCleanup } from './services.ts';

/** One waiting contest submission to judge (its SubmissionCreated is at stream position 1). */
export interface PendingVerdict {
  readonly submissionId: number;
  readonly userId: number;
  readonly problemId: number;
  readonly score: number;
}

/** A probe user's waiting submissions, judged one at a time, each with a score that changes their cell. */
export interface ProbeUser {
  readonly userId: number;
  readonly token: string;
  /** Submission ids in id order, each the newest of the user's submissions to its problem when it is judged. */
  readonly submissions: ReadonlyArray<{ readonly submissionId: number; readonly problemId: number }>;
  /** The user's current contest score by problem id (classic: the latest judged submission's score). */
  readonly scores: Readonly<Record<number, number>>;
}

export interface VerdictStreamSpec {
  readonly databaseUrl: string;
  readonly apiUrl: string;
  readonly contestId: number;
  readonly perSecond: number;
  /** Judged in this order; the stream stops early (and says so) when they run out. */
  readonly verdicts: readonly PendingVerdict[];
  /**
   * With probes: which read shows a verdict; at most `concurrency` probes at a time (one per probe user),
   * their starts at least `gapMs` apart.
   */
  readonly probe?: {
    readonly kind: 'score' | 'scoreboard';
    readonly users: readonly ProbeUser[];
    readonly concurrency: number;
    readonly gapMs: number;
    /** Pause between one probe's GETs (0: back to back): the probes' own reads must not become the load. */
    readonly pollMs: number;
    /** A verdict not readable after this long is recorded as such (`timedOut`) and the probe moves on. */
    readonly giveUpMs: number;
  };
}

export interface ProbeSample {
  /** The append of the verdict (one transaction), ms. */
  readonly append: number;
  /** From starting the append to the end of the first GET that shows the new score, ms. */
  readonly visible: number;
  /** GETs needed (1: the first GET after the append committed showed it). */
  readonly gets: number;
  /** Round trip of the GET that showed it, ms. */
  readonly lastGet: number;
  /** Not readable after `giveUpMs`: `visible` is the time given up at. */
  readonly timedOut: boolean;
}

export interface VerdictStreamResult {
  /** Verdicts appended (background and probes). */
  readonly appended: number;
  readonly probesAppended: number;
  readonly failedAppends: number;
  readonly durationMs: number;
  readonly perSecond: number;
  /** Append latency (one transaction), over every verdict, ms. */
  readonly appendP50: number;
  readonly appendP99: number;
  /** CPU the child used (appends, pacing, probes' GETs and JSON parsing), ms. */
  readonly clientCpuMs: number;
  /** How late appends started against their schedule (the child's own event loop), ms. */
  readonly lateP99: number;
  readonly exhausted: boolean;
  readonly probes: readonly ProbeSample[];
  /** How many of `spec.verdicts` were used (the next stream starts after them). */
  readonly used: number;
  /** Each probe user's submissions used. */
  readonly probeUsed: Readonly<Record<number, number>>;
  /** Each probe user's scores after the stream. */
  readonly probeScores: Readonly<Record<number, Readonly<Record<number, number>>>>;
}

/**
 * The events of a running classic contest (board open while it runs, no freeze) with its problems, made an
 * hour before `start` and ending 20 hours from now.
 */
export function runningContestEvents(contest: { contestId: number; name: string; start: number; actor: number; problemIds: readonly number[] }): NewEvent[] {
  const { contestId, name, start, actor, problemIds } = contest;
  const scope = `contest:${contestId}`;
  const hour = 3_600_000;
  const made = { scope, occurredAt: new Date(start - hour).toISOString(), meta: { actor } };
  const settings = {
    name,
    mode: 'unrated',
    gradingMode: 'classic',
    scoreboardPolicy: 'DURING_CONTEST',
    timeStart: new Date(start).toISOString(),
    timeEnd: new Date(Date.now() + 20 * hour).toISOString(),
    announce: null,
    freezeAt: null,
  } as const;
  return [
    { type: 'ContestCreated', ...made, data: { contestId, settings } },
    { type: 'ContestProblemsAdded', ...made, data: { contestId, problemIds: [...problemIds] } },
  ];
}

/** A SubmissionJudged for a submission's first judging: one subtask of 10 tests, `score` out of 100, in `scope` (`contest:<id>`, `user:<id>`). */
export function verdictEvent(scope: string, submissionId: number, score: number, occurredAt?: string): NewEvent {
  const accepted = score === 100;
  const passed = Math.round(score / 10);
  const verdicts = Array.from({ length: 10 }, (_, k) => ({
    testcaseIndex: k + 1,
    status: k < passed ? ('ACCEPTED' as const) : ('REJECTED' as const),
    percent: k < passed ? 1 : 0,
    timeUsed: 3 + k,
    memUsed: 3_200,
  }));
  return {
    type: 'SubmissionJudged',
    scope,
    ...(occurredAt ? { occurredAt } : {}),
    data: {
      submissionId,
      judging: 1,
      status: accepted ? 'accept' : 'reject',
      result: verdicts.map((v) => (v.status === 'ACCEPTED' ? 'P' : '-')).join(''),
      score,
      timeUsed: 12,
      memUsed: 3_200,
      errmsg: null,
      subtaskResults: [{ subtaskIndex: 1, score, fullScore: 100, verdicts }],
      judgedBy: 'bench',
      attempts: 1,
    },
  };
}

type Reply = { kind: 'started' } | { kind: 'done'; result: VerdictStreamResult } | { kind: 'failed'; error: string };

const CHILD = fileURLToPath(import.meta.url);

/** Starts the stream in a child process; `stop()` ends it and resolves with what it did. */
export function startVerdictStream(spec: VerdictStreamSpec): { started: Promise<void>; stop(): Promise<VerdictStreamResult> } {
  const child: ChildProcess = fork(CHILD, ['--verdict-child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const kill = onCleanup(`verdict stream ${child.pid}`, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const result = new Promise<VerdictStreamResult>((resolve, reject) => {
    child.on('message', (message: Reply) => {
      if (message.kind === 'started') markStarted();
      else if (message.kind === 'done') resolve(message.result);
      else reject(new Error(`verdict stream: ${message.error}`));
    });
    child.on('exit', (code, signal) => reject(new Error(`verdict stream exited (${code ?? signal}) without a result`)));
    child.on('error', reject);
  }).finally(() => {
    markStarted();
    void kill();
  });
  // A failure before stop() is reported by stop().
  result.catch(() => undefined);
  child.send(spec);
  return {
    started,
    stop() {
      if (child.connected) child.send({ kind: 'stop' });
      return result;
    },
  };
}

// ---- child side ----

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function quantile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Whether the answer shows `score` for the user on the problem. */
function shows(kind: 'score' | 'scoreboard', body: unknown, userId: number, problemId: number, score: number): boolean {
  const cells =
    kind === 'score'
      ? (body as Array<{ problemId: number; score: number }>)
      : ((body as { userContest: Array<{ userId: number; contestScores: Array<{ problemId: number; score: number }> }> }).userContest.find((row) => row.userId === userId)
          ?.contestScores ?? []);
  return cells.some((cell) => cell.problemId === problemId && cell.score === score);
}

async function childStream(spec: VerdictStreamSpec, send: (reply: Reply) => void): Promise<VerdictStreamResult> {
  // Enough connections that appends do not queue here for long (the API's pool is 20).
  const pool = await createDbPool(spec.databaseUrl, { maximumPoolSize: 16 });
  const store = createEventStore(pool, otogEventRegistry);
  let stopped = false;
  process.on('message', (message: { kind?: string }) => {
    if (message.kind === 'stop') stopped = true;
  });

  const appendTimes: number[] = [];
  const lateness: number[] = [];
  let failed = 0;
  let probesAppended = 0;
  const append = async (submissionId: number, score: number): Promise<number> => {
    const t0 = performance.now();
    await store.append(`submission-${submissionId}`, [verdictEvent(`contest:${spec.contestId}`, submissionId, score)], { expectedVersion: 1 });
    const elapsed = performance.now() - t0;
    appendTimes.push(elapsed);
    return elapsed;
  };

  // Probes: each takes the next paced slot when a probe user is free and the gap since the last start is over.
  const probe = spec.probe;
  const probes: ProbeSample[] = [];
  const probeUsed: Record<number, number> = {};
  const probeScores: Record<number, Record<number, number>> = {};
  for (const user of probe?.users ?? []) {
    probeUsed[user.userId] = 0;
    probeScores[user.userId] = { ...user.scores };
  }
  let probeTurn = 0;
  const busy = new Set<number>();
  let probeError: Error | null = null;
  let nextProbeAt = 0;
  const runProbe = async (user: ProbeUser): Promise<void> => {
    const submission = user.submissions[probeUsed[user.userId]!]!;
    probeUsed[user.userId]! += 1;
    const scores = probeScores[user.userId]!;
    // Classic grading: the newest judged submission's score is the cell's: pick one that differs from it.
    const score = scores[submission.problemId] === 91 ? 47 : 91;
    const path =
      probe!.kind === 'score' ? `/api/contest/${spec.contestId}/score` : `/api/contest/${spec.contestId}/scoreboard`;
    const t0 = performance.now();
    const appendMs = await append(submission.submissionId, score);
    probesAppended += 1;
    for (let gets = 1; ; gets += 1) {
      const g0 = performance.now();
      const response = await fetch(`${spec.apiUrl}${path}`, { headers: { authorization: `Bearer ${user.token}` } });
      const text = await response.text();
      const g1 = performance.now();
      if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 300)}`);
      if (shows(probe!.kind, JSON.parse(text), user.userId, submission.problemId, score)) {
        probes.push({ append: appendMs, visible: g1 - t0, gets, lastGet: g1 - g0, timedOut: false });
        scores[submission.problemId] = score;
        return;
      }
      if (g1 - t0 > probe!.giveUpMs) {
        probes.push({ append: appendMs, visible: g1 - t0, gets, lastGet: g1 - g0, timedOut: true });
        // The verdict is in the log: the cell shows it once the fold gets there.
        scores[submission.problemId] = score;
        return;
      }
      if (probe!.pollMs > 0) await sleep(probe!.pollMs);
    }
  };

  const inflight = new Set<Promise<void>>();
  const interval = 1000 / spec.perSecond;
  let used = 0;
  let exhausted = false;
  const start = performance.now();
  const cpu = process.cpuUsage();
  send({ kind: 'started' });
  let i = 0;
  for (; !stopped && !probeError; i += 1) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    lateness.push(Math.max(0, performance.now() - due));
    let user: ProbeUser | undefined;
    if (probe && busy.size < probe.concurrency && performance.now() >= nextProbeAt) {
      for (let k = 0; k < probe.users.length && !user; k += 1) {
        const candidate = probe.users[(probeTurn + k) % probe.users.length]!;
        if (!busy.has(candidate.userId) && probeUsed[candidate.userId]! < candidate.submissions.length) {
          user = candidate;
          probeTurn += k + 1;
        }
      }
    }
    if (user) {
      const userId = user.userId;
      busy.add(userId);
      nextProbeAt = performance.now() + probe!.gapMs;
      void runProbe(user)
        .catch((error: unknown) => {
          probeError = error instanceof Error ? error : new Error(String(error));
        })
        .finally(() => {
          busy.delete(userId);
          // One at a time: the gap runs from the end of the previous probe.
          if (probe!.concurrency === 1) nextProbeAt = performance.now() + probe!.gapMs;
        });
      continue;
    }
    const verdict = spec.verdicts[used];
    if (!verdict) {
      exhausted = true;
      break;
    }
    used += 1;
    const sent = append(verdict.submissionId, verdict.score).then(
      () => undefined,
      () => {
        failed += 1;
      },
    );
    inflight.add(sent);
    void sent.finally(() => inflight.delete(sent));
  }
  const elapsed = performance.now() - start;
  await Promise.all(inflight);
  while (busy.size > 0) await sleep(5);
  const cpuUsed = process.cpuUsage(cpu);
  await pool.end();
  if (probeError) throw probeError as Error;
  return {
    appended: appendTimes.length,
    probesAppended,
    failedAppends: failed,
    durationMs: elapsed,
    perSecond: (appendTimes.length / elapsed) * 1000,
    appendP50: quantile(appendTimes, 50),
    appendP99: quantile(appendTimes, 99),
    clientCpuMs: (cpuUsed.user + cpuUsed.system) / 1000,
    lateP99: quantile(lateness, 99),
    exhausted,
    probes,
    used,
    probeUsed,
    probeScores,
  };
}

if (process.argv[2] === '--verdict-child' && process.send) {
  const send = (reply: Reply) => process.send!(reply);
  process.once('message', (spec: VerdictStreamSpec) => {
    childStream(spec, send)
      .then(
        (result) => send({ kind: 'done', result }),
        (error: unknown) => send({ kind: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      )
      .finally(() => process.disconnect());
  });
}
