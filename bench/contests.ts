/**
 * Contests under load (the contest performance targets): one running contest of 10,000 contestants ×
 * 10 problems and 100,000 submissions (--quick: 300 contestants, 5,000 submissions).
 *
 * 1. GET /api/contest/:id/scoreboard while verdicts arrive at 200/s (target p99 < 50 ms);
 * 2. verdict → readable: from appending a SubmissionJudged to the contestant's own scores and the
 *    scoreboard showing it through the API, at 200 verdicts/s (target p99 < 1 s);
 * 3. the board replayed as of a moment, `judged=then` and `judged=now`, as admin (target < 2 s);
 * 4. `rebuildContestScores` of the contest (target < 10 s), checked equal to the live fold's rows.
 *
 * The API runs in this process (bench/lib/api-stack.ts, every projection folding live); the board load is
 * autocannon in a child (bench/lib/api-load.ts); the verdicts are appended and the probes run in another
 * child (bench/lib/contest-verdicts.ts). Everything shares the 2 cores.
 */
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { createContestQueries, createContestScoreQueries, createProblemQueries, contestScoresProjection } from '@otog/projections';
import { rebuildContestScores } from '@otog/projections/contest-scores/contest-rebuild';
import { JOURNAL_EVENT_TYPES, judgedEntries, journalOf, scoreCells, type JournalRecord } from '@otog/projections/contest-scores/rules/journal';
import { readJournal } from '@otog/projections/contest-scores/journal-log';
import { insertAccount, summariesOf } from '@otog/api/modules/users/accounts';
import { hashPassword } from '@otog/api/modules/auth/passwords';
import { rankBoard } from '@otog/api/modules/contests/scoreboard';
import { columnsScoreboard, otogScoreboard } from '@otog/api/modules/contests/board-answers';
import { buildBoard } from '@otog/api/modules/contests/board-cache';
import { boardVersion } from '@otog/projections/contest-scores/board.queries';
import { sql } from '@otog/platform/db/pool';
import type { NewEvent } from '@otog/platform/eventstore/event-store';
import { LOG_START } from '@otog/platform/eventstore/position';
import { liveSlot } from '@otog/platform/runner/read-model';
import { contestContract } from '@otog/schemas/api/contest';
import { random } from '../tests/contests/support/random-contests.ts';
import type { BenchContext } from './lib/context.ts';
import type { LoadResult } from './lib/api-load.ts';
import { CPP_SOURCE, postgresCpuBetween, startBenchApiStack, type BenchApiStack, type BenchUser } from './lib/api-stack.ts';
import { measure, type Cost } from './lib/load-cost.ts';
import { runningContestEvents, startVerdictStream, verdictEvent, type PendingVerdict, type ProbeSample, type ProbeUser, type VerdictStreamResult } from './lib/contest-verdicts.ts';
import type { BenchResult, Figure, Table } from './lib/report.ts';
import { benchStopping } from './lib/services.ts';
import { int, ms, now, progressPrinter, seconds, summarize } from './lib/stats.ts';

const TITLE = 'Contests: scoreboard, verdict → board, replay and rebuild';
const BOARD_P99_TARGET = { op: '<' as const, value: 50, text: 'p99 < 50 ms while verdicts arrive at 200/s' };
const VISIBLE_P99_TARGET = { op: '<' as const, value: 1_000, text: 'p99 < 1 s at 200 verdicts/s' };
const REPLAY_TARGET = { op: '<' as const, value: 2_000, text: '< 2 s' };
const REBUILD_TARGET = { op: '<' as const, value: 10_000, text: '< 10 s' };

const VERDICTS_PER_SECOND = 200;
const PROBLEMS = 10;
/** Contestants with access tokens: the board load rotates them; the first PROBE_USERS also probe. */
const TOKEN_USERS = 20;
const PROBE_USERS = 5;
/** Own-score probes: two at a time, starts 200 ms apart, each GET 50 ms after the previous answer (at most 40 GETs/s in all). */
const SCORE_PROBE = { concurrency: 2, gapMs: 200, pollMs: 50 };
/** Concurrent board readers in the loaded row (one board costs the API most of a second: more only queue). */
const BOARD_CONNECTIONS = 4;
const HOUR = 3_600_000;

interface Sizes {
  readonly contestants: number;
  readonly submissions: number;
  /** Of the submissions: waiting ones the verdict streams judge (the rest is judged while seeding). */
  readonly waiting: number;
  /** Of the submissions: each probe user's waiting ones. */
  readonly probeEach: number;
  readonly durationMs: number;
  readonly scoreProbeMs: number;
  readonly boardProbeMs: number;
  readonly replays: number;
  readonly rebuilds: number;
}

const FULL: Sizes = {
  contestants: 10_000,
  submissions: 100_000,
  waiting: 32_000,
  probeEach: 150,
  durationMs: 20_000,
  scoreProbeMs: 30_000,
  boardProbeMs: 30_000,
  replays: 5,
  rebuilds: 3,
};

const QUICK: Sizes = {
  contestants: 300,
  submissions: 5_000,
  waiting: 3_400,
  probeEach: 20,
  durationMs: 2_000,
  scoreProbeMs: 2_000,
  boardProbeMs: 2_000,
  replays: 2,
  rebuilds: 1,
};

/** One submission of the seeded contest. */
interface Planned {
  readonly submissionId: number;
  readonly userId: number;
  readonly problemId: number;
  /** ms */
  readonly at: number;
  /** Judged while seeding with this score, or null: waiting for a verdict stream. */
  readonly score: number | null;
}

/** ms(), or – when there is no figure (no answer arrived: a NaN sent over IPC arrives as null). */
const msOr = (n: number | null): string => (n === null || !Number.isFinite(n) ? '–' : ms(n));

const bearer = (user: BenchUser | null): Record<string, string> => (user ? { authorization: `Bearer ${user.token}` } : {});

const statusText = (result: LoadResult) =>
  Object.entries(result.statusCounts)
    .map(([status, count]) => `${status}: ${int(count)}`)
    .join(', ') + (result.errors ? `, errors: ${int(result.errors)}` : '');

/** `count` fresh values of a sequence, in order. */
async function nextIds(stack: BenchApiStack, sequence: 'problem_ids' | 'submission_ids' | 'contest_ids', count: number): Promise<number[]> {
  const rows = await stack.db.pool.anyFirst(sql.unsafe`SELECT nextval(${sequence}::regclass)::int FROM generate_series(1, ${count})`);
  return rows.map(Number);
}

/** Runs `write(from, to)` over [0, total) in chunks of `chunk`, `writers` at a time, with progress lines. */
async function inChunks(label: string, total: number, chunk: number, writers: number, write: (from: number, to: number) => Promise<void>): Promise<void> {
  const progress = progressPrinter(label, total, 5_000);
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (;;) {
        const from = next;
        if (from >= total || benchStopping()) return;
        const to = Math.min(total, from + chunk);
        next = to;
        await write(from, to);
        done += to - from;
        progress.update(done);
      }
    }),
  );
  if (benchStopping()) throw new Error('interrupted');
  progress.update(done, true);
}

/** A probe's figures: its samples' percentiles. */
function probeCells(samples: readonly ProbeSample[]): string[] {
  const visible = summarize(samples.map((s) => s.visible));
  const append = summarize(samples.map((s) => s.append));
  const first = samples.filter((s) => s.gets === 1).length;
  const lastGet = summarize(samples.map((s) => s.lastGet));
  const timedOut = samples.filter((s) => s.timedOut).length;
  return [
    `${int(samples.length)}${timedOut ? ` (${int(timedOut)} not readable within 120 s: counted at 120 s)` : ''}`,
    `${ms(append.p50)} / ${ms(append.p99)} ms`,
    `${ms(visible.p50)} ms`,
    `${ms(visible.p99)} ms`,
    `${ms(visible.max)} ms`,
    `${ms(lastGet.p50)} ms`,
    `${int(first)} of ${int(samples.length)}`,
  ];
}

const streamText = (stream: VerdictStreamResult) =>
  `${int(stream.perSecond)}/s (${int(stream.appended)} appended${stream.probesAppended ? `, ${int(stream.probesAppended)} of them probes` : ''}; ` +
  `append p50 ${ms(stream.appendP50)} ms, p99 ${ms(stream.appendP99)} ms${stream.failedAppends ? `; ${int(stream.failedAppends)} failed` : ''}${stream.exhausted ? '; ran out of waiting submissions' : ''})`;

export async function benchContests(context: BenchContext): Promise<BenchResult> {
  const size = context.quick ? QUICK : FULL;
  const seedRng = random(20_261_126);
  const stack = await startBenchApiStack(context.adminUrl);
  try {
    const pool = stack.db.pool;
    const deps = { pool: stack.runtime.pool, store: stack.runtime.store };
    const seeding: Array<[string, string, number]> = [];

    // ---- accounts: TOKEN_USERS signed in (argon2 each), the rest in bulk with one precomputed hash ----
    let t = now();
    const [admin] = await stack.createUsers(1, 'admin', 'bench_contest_admin_');
    const tokenUsers = await stack.createUsers(TOKEN_USERS, 'user', 'bench_contestant_');
    if (!admin || tokenUsers.length < PROBE_USERS) throw new Error('accounts not created');
    const passwordHash = await hashPassword('bench-contestant-password');
    const bulk = size.contestants - TOKEN_USERS;
    const bulkIds: number[] = new Array<number>(bulk);
    await inChunks('accounts', bulk, 500, 2, async (from, to) => {
      await pool.transaction(async (tx) => {
        for (let i = from; i < to; i += 1) {
          const row = await insertAccount(deps, tx, { username: `bench_c${i + 1}`, showName: `Contestant ${i + 1}`, passwordHash, role: 'user', actor: admin.id });
          bulkIds[i] = row.id;
        }
      });
    });
    const contestants = [...tokenUsers.map((u) => u.id), ...bulkIds];
    seeding.push([`accounts: ${TOKEN_USERS} signed-in contestants + 1 admin (createAccount), ${int(bulk)} more (insertAccount + UserRegistered, one shared hash)`, int(size.contestants + 1), now() - t]);

    // ---- problems and the contest ----
    t = now();
    const problemIds = await stack.seedProblems(PROBLEMS, admin, { perTransaction: 500, writers: 1 });
    const contestId = (await nextIds(stack, 'contest_ids', 1))[0]!;
    const start = Date.now() - 4 * HOUR;
    const scope = `contest:${contestId}`;
    await stack.runtime.store.append(
      `contest-${contestId}`,
      runningContestEvents({ contestId, name: 'Bench contest', start, actor: admin.id, problemIds }),
      { expectedVersion: 'none' },
    );
    seeding.push([`${PROBLEMS} problems (details, judging limits, shown) and the contest (classic grading, running, no freeze)`, '', now() - t]);

    // ---- the submissions plan: judged ones spread over the contest, then the waiting ones ----
    const probers = tokenUsers.slice(0, PROBE_USERS);
    const proberIds = new Set(probers.map((u) => u.id));
    const ids = await nextIds(stack, 'submission_ids', size.submissions);
    const probeTotal = PROBE_USERS * size.probeEach;
    const judgedCount = size.submissions - size.waiting - probeTotal;
    if (judgedCount < size.contestants) throw new Error('too few judged submissions for every contestant to have one');
    const seededEnd = Date.now() - 40 * 60_000;
    const waitingStart = seededEnd + 60_000;
    const waitingEnd = Date.now() - 60_000;
    const plan: Planned[] = [];
    const problem = () => problemIds[seedRng.int(0, PROBLEMS - 1)]!;
    const verdictScore = () => (seedRng.chance(0.25) ? 100 : seedRng.int(0, 9) * 10);
    for (let i = 0; i < judgedCount; i += 1) {
      // Every contestant submits at least once (that is how they join the board), then at random.
      const userId = i < contestants.length ? contestants[(i * 7_919) % contestants.length]! : contestants[seedRng.int(0, contestants.length - 1)]!;
      plan.push({ submissionId: ids[i]!, userId, problemId: problem(), at: start + 60_000 + ((seededEnd - start - 60_000) * i) / judgedCount, score: verdictScore() });
    }
    // Waiting: the background ones (never a probe user's) and each probe user's, in submission order.
    const waitingTotal = size.waiting + probeTotal;
    const probeSlots = new Set<number>();
    while (probeSlots.size < probeTotal) probeSlots.add(seedRng.int(0, waitingTotal - 1));
    const others = contestants.filter((id) => !proberIds.has(id));
    let probeIndex = 0;
    for (let k = 0; k < waitingTotal; k += 1) {
      const i = judgedCount + k;
      const at = waitingStart + ((waitingEnd - waitingStart) * k) / waitingTotal;
      if (probeSlots.has(k)) {
        const user = probers[probeIndex % PROBE_USERS]!;
        const problemId = problemIds[Math.floor(probeIndex / PROBE_USERS) % PROBLEMS]!;
        probeIndex += 1;
        plan.push({ submissionId: ids[i]!, userId: user.id, problemId, at, score: null });
      } else {
        plan.push({ submissionId: ids[i]!, userId: others[seedRng.int(0, others.length - 1)]!, problemId: problem(), at, score: null });
      }
    }

    t = now();
    const created = (p: Planned): NewEvent => ({
      type: 'SubmissionCreated',
      scope,
      occurredAt: new Date(p.at).toISOString(),
      meta: { actor: p.userId },
      data: { submissionId: p.submissionId, userId: p.userId, problemId: p.problemId, contestId, language: 'cpp', sourceCode: CPP_SOURCE, fileName: 'main.cpp' },
    });
    await inChunks('contest submissions', plan.length, 500, 2, async (from, to) => {
      await pool.transaction(async (tx) => {
        for (const p of plan.slice(from, to)) {
          const events = [created(p)];
          if (p.score !== null) events.push(verdictEvent(`contest:${contestId}`, p.submissionId, p.score, new Date(p.at + 2_000).toISOString()));
          await stack.runtime.store.appendInTransaction(tx, `submission-${p.submissionId}`, events, { expectedVersion: 'none' });
        }
      });
    });
    seeding.push([
      `contest submissions: SubmissionCreated (+ SubmissionJudged for ${int(judgedCount)}; ${int(waitingTotal)} left waiting for the verdict streams), ` +
        'transactions of 500 streams, 2 writers, the projections folding live meanwhile',
      int(plan.length),
      now() - t,
    ]);
    const appendMs = now() - t;
    t = now();
    await stack.waitForCatchUp(3_600_000);
    const catchUpMs = now() - t;
    seeding.push(['projections (contests, contest_scores, submissions, ...) and the judge-task reactor catching up', '', catchUpMs]);
    const seedFold = { submissions: plan.length, verdicts: judgedCount, ms: appendMs + catchUpMs };
    t = now();
    await pool.query(sql.unsafe`VACUUM ANALYZE`);
    seeding.push(['VACUUM ANALYZE', '', now() - t]);
    if (benchStopping()) throw new Error('interrupted');

    // ---- the board answers right, and what one answer is made of ----
    const boardPath = `/api/contest/${contestId}/scoreboard`;
    const route = contestContract.getContestScoreboard;
    const board = await stack.app.inject({ method: 'GET', url: boardPath, headers: bearer(tokenUsers[0]!) });
    if (board.statusCode !== 200) throw new Error(`GET ${boardPath} answered ${board.statusCode}: ${board.body.slice(0, 300)}`);
    const boardBytes = board.rawPayload.length;
    const parsed = (route.responses[200] as z.ZodType).safeParse(board.json());
    if (!parsed.success) throw new Error(`GET ${boardPath}: the body does not match its contract: ${parsed.error.message.slice(0, 500)}`);
    const boardBody = parsed.data as { userContest: unknown[]; contest: { contestProblem: unknown[] } };
    if (boardBody.userContest.length !== size.contestants || boardBody.contest.contestProblem.length !== PROBLEMS) {
      throw new Error(`the board has ${boardBody.userContest.length} rows and ${boardBody.contest.contestProblem.length} problems, expected ${size.contestants} and ${PROBLEMS}`);
    }
    const cellCount = Number(await pool.oneFirst(sql.unsafe`SELECT count(*) FROM ${(await liveSlot(pool, contestScoresProjection))!.tables.cells} WHERE contest_id = ${contestId}`));
    process.stdout.write(`  contests: board of ${int(boardBody.userContest.length)} contestants, ${int(cellCount)} cells, ${int(boardBytes)} bytes\n`);
    const breakdown = await boardBreakdown(stack, contestId, board.json(), route.responses[200] as z.ZodType);

    // ---- verdict streams ----
    const background: PendingVerdict[] = plan
      .filter((p) => p.score === null && !proberIds.has(p.userId))
      .map((p) => ({ submissionId: p.submissionId, userId: p.userId, problemId: p.problemId, score: verdictScore() }));
    let backgroundUsed = 0;
    const probeState = new Map<number, { used: number; scores: Record<number, number> }>(
      probers.map((u) => {
        // Classic grading: a cell is the newest judged submission's score.
        const scores: Record<number, number> = {};
        for (const p of plan) if (p.userId === u.id && p.score !== null) scores[p.problemId] = p.score;
        return [u.id, { used: 0, scores }];
      }),
    );
    const probeUsers = (): ProbeUser[] =>
      probers.map((u) => {
        const state = probeState.get(u.id)!;
        const own = plan.filter((p) => p.userId === u.id && p.score === null).map((p) => ({ submissionId: p.submissionId, problemId: p.problemId }));
        return { userId: u.id, token: u.token, submissions: own.slice(state.used), scores: state.scores };
      });
    const stream = (probe?: { kind: 'score' | 'scoreboard'; concurrency: number; gapMs: number; pollMs: number }, perSecond = VERDICTS_PER_SECOND) =>
      startVerdictStream({
        databaseUrl: stack.db.url,
        apiUrl: stack.url,
        contestId: contestId,
        perSecond,
        verdicts: background.slice(backgroundUsed),
        ...(probe ? { probe: { ...probe, users: probeUsers(), giveUpMs: 120_000 } } : {}),
      });
    const settle = (result: VerdictStreamResult) => {
      backgroundUsed += result.used;
      for (const [userId, used] of Object.entries(result.probeUsed)) {
        const state = probeState.get(Number(userId))!;
        state.used += used;
        state.scores = { ...result.probeScores[Number(userId)] };
      }
    };

    // ---- (1) the board under load ----
    const boardRequests = tokenUsers.map((u) => ({ path: boardPath, headers: bearer(u) }));
    const boardRows: Array<{ condition: string; connections: number; result: LoadResult; cost: Cost; stream: VerdictStreamResult | null; drainMs: number | null }> = [];
    /** How long the projections took to fold what was still behind once a verdict stream stopped. */
    const drain = async (): Promise<number> => {
      const d0 = now();
      await stack.waitForCatchUp(1_800_000);
      return now() - d0;
    };
    for (const run of [
      { connections: 1, verdicts: false },
      { connections: 1, verdicts: true },
      { connections: BOARD_CONNECTIONS, verdicts: true },
    ]) {
      if (benchStopping()) throw new Error('interrupted');
      await stack.waitForCatchUp(600_000);
      process.stdout.write(`  contests: GET scoreboard, ${run.connections} connection(s)${run.verdicts ? `, ${VERDICTS_PER_SECOND} verdicts/s (own-score probe on)` : ', no verdicts'}… `);
      const verdicts = run.verdicts ? stream({ kind: 'score', ...SCORE_PROBE }) : null;
      let measured: { result: LoadResult; cost: Cost };
      let streamed: VerdictStreamResult | null = null;
      try {
        await verdicts?.started;
        // No autocannon warm-up: its requests still running when it ends would hold the API into the measured
        // part (a board takes most of a second); the route was warmed up by the checks and the breakdown above.
        measured = await measure(stack, { url: stack.url, method: 'GET', requests: boardRequests, connections: run.connections, warmupMs: 0, durationMs: size.durationMs });
      } finally {
        streamed = verdicts ? await verdicts.stop() : null;
      }
      if (streamed) settle(streamed);
      const drainMs = streamed ? await drain() : null;
      const { result, cost } = measured;
      process.stdout.write(
        `${msOr(result.okPerSecond)} req/s, p50 ${msOr(result.p50)} ms, p99 ${msOr(result.p99)} ms (${statusText(result)})` +
          `${streamed ? `; verdicts ${streamText(streamed)}` : ''}\n`,
      );
      boardRows.push({
        condition: run.verdicts ? `${VERDICTS_PER_SECOND} verdicts/s` : 'no verdicts (idle)',
        connections: run.connections,
        result,
        cost,
        stream: streamed,
        drainMs,
      });
    }

    // ---- (2) verdict → readable, no other read load ----
    const probeRows: Array<{ condition: string; rate: number; stream: VerdictStreamResult; drainMs: number; cpu: string }> = [];
    for (const run of [
      { kind: 'score' as const, rate: VERDICTS_PER_SECOND, durationMs: size.scoreProbeMs, ...SCORE_PROBE, label: 'GET /api/contest/:id/score (own scores)' },
      { kind: 'scoreboard' as const, rate: VERDICTS_PER_SECOND, durationMs: size.boardProbeMs, concurrency: 1, gapMs: 0, pollMs: 0, label: 'GET /api/contest/:id/scoreboard (the whole board)' },
      { kind: 'score' as const, rate: VERDICTS_PER_SECOND / 2, durationMs: size.scoreProbeMs, ...SCORE_PROBE, label: 'GET /api/contest/:id/score (own scores)' },
    ]) {
      if (benchStopping()) throw new Error('interrupted');
      await stack.waitForCatchUp(600_000);
      process.stdout.write(`  contests: verdict → ${run.kind === 'score' ? 'own scores' : 'scoreboard'}, ${run.rate} verdicts/s for ${seconds(run.durationMs)} s… `);
      const before = await stack.usage();
      const verdicts = stream({ kind: run.kind, concurrency: run.concurrency, gapMs: run.gapMs, pollMs: run.pollMs }, run.rate);
      await verdicts.started;
      await new Promise((resolve) => setTimeout(resolve, run.durationMs));
      const streamed = await verdicts.stop();
      settle(streamed);
      const visible = summarize(streamed.probes.map((s) => s.visible));
      process.stdout.write(`${int(streamed.probes.length)} probes, p50 ${ms(visible.p50)} ms, p99 ${ms(visible.p99)} ms; verdicts ${streamText(streamed)}\n`);
      const drainMs = await drain();
      const after = await stack.usage();
      const postgres = postgresCpuBetween(before, after);
      const n = Math.max(1, streamed.appended);
      probeRows.push({
        condition: `${run.label}, polled by the probe user`,
        rate: run.rate,
        stream: streamed,
        drainMs,
        cpu: `${ms((after.apiCpuMs - before.apiCpuMs) / n)} / ${postgres === null ? '?' : ms(postgres / n)} / ${ms(streamed.clientCpuMs / n)} ms`,
      });
    }
    const underLoadRow = boardRows.find((r) => r.connections === BOARD_CONNECTIONS && r.stream);
    const underLoad = underLoadRow?.stream ?? undefined;

    // ---- every submission judged, then the replays and the rebuild ----
    t = now();
    const leftover: PendingVerdict[] = [
      ...background.slice(backgroundUsed),
      ...probeUsers().flatMap((u) => u.submissions.map((s) => ({ submissionId: s.submissionId, userId: u.userId, problemId: s.problemId, score: 50 }))),
    ];
    await inChunks('remaining verdicts', leftover.length, 500, 2, async (from, to) => {
      await pool.transaction(async (tx) => {
        for (const v of leftover.slice(from, to)) {
          await stack.runtime.store.appendInTransaction(tx, `submission-${v.submissionId}`, [verdictEvent(`contest:${contestId}`, v.submissionId, v.score)], { expectedVersion: 1 });
        }
      });
    });
    const burstAppendMs = now() - t;
    await stack.waitForCatchUp(1_800_000);
    const burst = { verdicts: leftover.length, appendMs: burstAppendMs, foldedMs: now() - t };
    await pool.query(sql.unsafe`VACUUM ANALYZE`);
    const remainingMs = now() - t;
    const slot = (await liveSlot(pool, contestScoresProjection))!;
    const counts = (await pool.one(sql.unsafe`SELECT
      (SELECT count(*) FROM ${slot.tables.entries} WHERE contest_id = ${contestId})::int AS submissions,
      (SELECT count(*) FROM ${slot.tables.entries} WHERE contest_id = ${contestId} AND status IN ('accept', 'reject'))::int AS judged,
      (SELECT count(*) FROM ${slot.tables.cells} WHERE contest_id = ${contestId})::int AS cells,
      (SELECT count(*) FROM event_log WHERE scope = ${scope})::int AS events`)) as { submissions: number; judged: number; cells: number; events: number };
    seeding.push([`the ${int(leftover.length)} submissions still waiting judged (same appends), folded, VACUUM ANALYZE`, int(leftover.length), remainingMs]);
    process.stdout.write(`  contests: ${int(counts.submissions)} submissions (${int(counts.judged)} judged), ${int(counts.cells)} cells, ${int(counts.events)} events in scope ${scope}\n`);

    const replayAt = new Date().toISOString();
    const replaySteps = await replayBreakdown(stack, contestId, Date.parse(replayAt));
    const replayRows: Array<{ judged: 'then' | 'now'; times: number[]; bytes: number; rows: number }> = [];
    for (const judged of ['then', 'now'] as const) {
      if (benchStopping()) throw new Error('interrupted');
      const path = `${boardPath}?at=${encodeURIComponent(replayAt)}&judged=${judged}`;
      const check = await stack.app.inject({ method: 'GET', url: path, headers: bearer(admin) });
      if (check.statusCode !== 200) throw new Error(`GET ${path} answered ${check.statusCode}: ${check.body.slice(0, 300)}`);
      const body = (route.responses[200] as z.ZodType).parse(check.json()) as { userContest: unknown[] };
      process.stdout.write(`  contests: replay judged=${judged}, ${size.replays} sequential requests… `);
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i <= size.replays; i += 1) {
        const t0 = now();
        const response = await fetch(`${stack.url}${path}`, { headers: bearer(admin) });
        const buffer = await response.arrayBuffer();
        if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
        // The first one warms up (JIT, caches) and is not counted.
        if (i > 0) times.push(now() - t0);
        bytes = buffer.byteLength;
      }
      const s = summarize(times);
      process.stdout.write(`p50 ${ms(s.p50)} ms, max ${ms(s.max)} ms\n`);
      replayRows.push({ judged, times, bytes, rows: body.userContest.length });
    }

    const digestBefore = await contestDigest(stack, contestId);
    const rebuilds: Array<{ ms: number; events: number; submissions: number; cells: number }> = [];
    for (let i = 0; i < size.rebuilds; i += 1) {
      if (benchStopping()) throw new Error('interrupted');
      process.stdout.write(`  contests: rebuildContestScores #${i + 1}… `);
      const t0 = now();
      const rebuilt = await rebuildContestScores(pool, stack.runtime.store, contestId);
      const elapsed = now() - t0;
      process.stdout.write(`${seconds(elapsed)} s (${int(rebuilt.events)} events, ${int(rebuilt.submissions)} submissions, ${int(rebuilt.cells)} cells)\n`);
      rebuilds.push({ ms: elapsed, ...rebuilt });
    }
    const digestAfter = await contestDigest(stack, contestId);
    const differing = (['entries', 'cells', 'history'] as const).filter((table) => digestBefore[table] !== digestAfter[table]);

    // ---- report ----
    const boardFigure = (row: (typeof boardRows)[number]): Figure => ({
      name: `GET /api/contest/:id/scoreboard p99, ${int(size.contestants)} contestants × ${PROBLEMS} problems, ${row.connections} connection${row.connections > 1 ? 's' : ''}, ${row.condition}`,
      value: row.result.p99 ?? Number.NaN,
      unit: 'ms',
      display: `${msOr(row.result.p99)} ms (p50 ${msOr(row.result.p50)} ms, ${msOr(row.result.okPerSecond)} req/s, ${int(row.result.requests)} answers)`,
      target: BOARD_P99_TARGET,
    });
    const probeFigure = (name: string, stream: VerdictStreamResult): Figure => {
      const visible = summarize(stream.probes.map((s) => s.visible));
      return {
        name,
        value: visible.p99,
        unit: 'ms',
        display: `${ms(visible.p99)} ms (p50 ${ms(visible.p50)} ms, ${int(visible.count)} probes, ${int(stream.perSecond)} verdicts/s)`,
        target: VISIBLE_P99_TARGET,
      };
    };
    const rebuildWorst = Math.max(...rebuilds.map((r) => r.ms));
    const figures: Figure[] = [
      ...boardRows.filter((r) => r.stream).map(boardFigure),
      probeFigure('verdict → own scores (GET /api/contest/:id/score) p99, no other reads', probeRows[0]!.stream),
      probeFigure('verdict → scoreboard (GET /api/contest/:id/scoreboard) p99', probeRows[1]!.stream),
      ...(underLoad ? [probeFigure(`verdict → own scores p99, while ${BOARD_CONNECTIONS} connections read the board`, underLoad)] : []),
      ...replayRows.map((r) => {
        const s = summarize(r.times);
        return {
          name: `replay of the board as of T, judged=${r.judged}, ${int(counts.submissions)} submissions (admin, slowest of ${r.times.length})`,
          value: s.max,
          unit: 'ms',
          display: `${seconds(s.max)} s (p50 ${seconds(s.p50)} s)`,
          target: REPLAY_TARGET,
        };
      }),
      {
        name: `rebuildContestScores, one contest of ${int(rebuilds[0]!.submissions)} submissions (slowest of ${rebuilds.length})`,
        value: rebuildWorst,
        unit: 'ms',
        display: `${seconds(rebuildWorst)} s (${int(rebuilds[0]!.events)} events)`,
        target: REBUILD_TARGET,
      },
    ];

    const costCells = (cost: Cost) => [`${ms(cost.apiCpuMs)} / ${cost.postgresCpuMs === null ? '?' : ms(cost.postgresCpuMs)} ms`, cost.transactions.toFixed(1)];
    const tables: Table[] = [
      {
        title: 'Seeding (not through HTTP: accounts, then events appended in transactions of 500 streams)',
        header: ['step', 'count', 'time'],
        rows: seeding.map(([step, count, elapsed]) => [step, count, `${seconds(elapsed)} s`]),
      },
      {
        title: `One live board answer, step by step (in-process, sequential, median of ${BREAKDOWN_RUNS}; the route runs the first two reads concurrently)`,
        header: ['step', 'rows', 'time'],
        rows: breakdown.map((b) => [b.step, b.rows === null ? '' : int(b.rows), `${ms(b.ms)} ms`]),
      },
      {
        title:
          `GET /api/contest/:id/scoreboard: ${int(size.contestants)} contestants × ${PROBLEMS} problems (${int(cellCount)} cells, ${int(boardBytes)} bytes per answer), ` +
          `${size.durationMs / 1000} s each (no warm-up run: see the method); signed in as ${TOKEN_USERS} contestants in turn`,
        header: [
          'condition',
          'connections',
          'req/s',
          'p50',
          'p99',
          'max',
          'statuses',
          'CPU per answer: API / Postgres',
          'DB transactions per answer',
          'verdicts meanwhile',
          'projections still behind when the verdicts stopped: caught up in',
        ],
        rows: boardRows.map((r) => [
          r.condition,
          String(r.connections),
          msOr(r.result.okPerSecond),
          `${msOr(r.result.p50)} ms`,
          `${msOr(r.result.p99)} ms`,
          `${msOr(r.result.max)} ms`,
          statusText(r.result),
          ...costCells(r.cost),
          r.stream ? streamText(r.stream) : '–',
          r.drainMs === null ? '–' : `${seconds(r.drainMs)} s`,
        ]),
      },
      {
        title:
          'Verdict → readable: now and then one of the paced verdicts is a probe user’s, then GETs until their new score is there ' +
          '(time from starting the append to the end of that GET)',
        header: [
          'read polled',
          'verdicts offered',
          'probes',
          'append p50 / p99',
          'visible p50',
          'visible p99',
          'max',
          'GET round trip p50',
          'visible on the first GET',
          'verdicts appended',
          'projections still behind when the verdicts stopped: caught up in',
          'CPU per verdict: API process (folds, reads) / Postgres / appender and probe',
        ],
        rows: [
          ...probeRows.map((r) => [r.condition, `${r.rate}/s`, ...probeCells(r.stream.probes), streamText(r.stream), `${seconds(r.drainMs)} s`, r.cpu]),
          ...(underLoad && underLoadRow
            ? [
                [
                  `GET /api/contest/:id/score, while ${BOARD_CONNECTIONS} connections read the board (board table above)`,
                  `${VERDICTS_PER_SECOND}/s`,
                  ...probeCells(underLoad.probes),
                  streamText(underLoad),
                  underLoadRow.drainMs === null ? '–' : `${seconds(underLoadRow.drainMs)} s`,
                  '(board reads included: see the board table)',
                ],
              ]
            : []),
        ],
      },
      {
        title: `Replay as of T (T = after every submission and verdict: ${int(counts.submissions)} submissions, all judged; ${int(counts.events)} events in the contest's scope), as admin, ${size.replays} sequential requests after one warm-up`,
        header: ['judged', 'rows', 'bytes', 'p50', 'max'],
        rows: replayRows.map((r) => {
          const s = summarize(r.times);
          return [`\`${r.judged}\``, int(r.rows), int(r.bytes), `${ms(s.p50)} ms`, `${ms(s.max)} ms`];
        }),
      },
      {
        title: 'What a replay folds, step by step (in-process, sequential, once each; the board around it costs what the live one does)',
        header: ['step', 'rows', 'time'],
        rows: replaySteps.map((b) => [b.step, b.rows === null ? '' : int(b.rows), `${ms(b.ms)} ms`]),
      },
      {
        title: 'rebuildContestScores (what `npm run cli -- projections rebuild scoreboard --contest <id>` runs), on the live slot, the projector caught up and idle',
        header: ['run', 'events read', 'submissions', 'cells', 'time'],
        rows: rebuilds.map((r, i) => [String(i + 1), int(r.events), int(r.submissions), int(r.cells), `${seconds(r.ms)} s`]),
      },
    ];

    const logged = [...stack.log.counts].map(([message, count]) => `${int(count)}× “${message}”`);
    const notes = [
      `Live fold while seeding: ${int(seedFold.submissions)} SubmissionCreated and ${int(seedFold.verdicts)} SubmissionJudged were folded by every projection ` +
        `${seconds(seedFold.ms)} s after the first append (appends and folds sharing the cores): ${int((seedFold.verdicts / seedFold.ms) * 1000)} verdicts/s ` +
        `with ${int((seedFold.submissions / seedFold.ms) * 1000)} creations/s.`,
      `Burst: the ${int(burst.verdicts)} verdicts still waiting after the streams were appended at once (transactions of 500, 2 writers, ${seconds(burst.appendMs)} s) ` +
        `and every projection had folded them ${seconds(burst.foldedMs)} s after the first append: ${int((burst.verdicts / burst.foldedMs) * 1000)} verdicts/s, ` +
        'about what the live fold can take when only the appends compete with it.',
      `The rebuilt rows equal the live fold's (md5 of the contest's entries, cells and history rows before and after): **${differing.length === 0 ? 'yes' : `NO (${differing.join(', ')} differ)`}**.`,
      logged.length
        ? `The API logged warnings/errors: ${logged.join('; ')}${stack.log.examples.length ? ` (first: ${stack.log.examples.slice(0, 2).join(' | ')})` : ''}.`
        : 'The API logged no warnings or errors during the bench.',
    ];

    return {
      id: 'contests',
      title: TITLE,
      method: [
        'The API as in the API section (bench/lib/api-stack.ts: every projection and the judge-task reactor folding live in the bench process, `buildApp`, loopback HTTP; no judge worker).',
        `Seeded: ${int(size.contestants)} role-user accounts (${TOKEN_USERS} through createAccount with access tokens, the rest through insertAccount in transactions of 500 with one shared password hash, each with its UserRegistered), ` +
          `${PROBLEMS} problems, one running contest (classic grading, board open during the contest, no freeze) with the ${PROBLEMS} problems, and ${int(size.submissions)} contest submissions ` +
          `(every contestant at least one, the rest at random users and problems): ${int(judgedCount)} created and judged (25 % accepted, the rest 0–90 points) spread over the first hours of the contest, ` +
          `${int(size.waiting + probeTotal)} created in its last 40 minutes and left waiting for the verdict streams. Contestants join the board by their SubmissionCreated (contests projection). ` +
          'The events are appended with `appendInTransaction` in transactions of 500 submission streams (2 writers) while the projections fold them live, event by event; the bench waits until everything is folded. ' +
          'No checkpoint is moved by hand and no read model is written directly.',
        `Verdicts: a child process (bench/lib/contest-verdicts.ts, its own pool) appends one SubmissionJudged per append to waiting submissions, at evenly paced times, ${VERDICTS_PER_SECOND}/s (open loop), ` +
          'as the judge queue appends one per worker report. TestcaseJudged progress events and new submissions are not part of this stream.',
        'Board load: autocannon in a child process (closed loop), signed in as the contestants with tokens in turn; latency of every answer, client side. Each load run starts with the projections caught up. ' +
          'No warm-up run: a board takes the API most of a second, so the requests of a warm-up run still in the API when it ends would hold it well into the measured part; the route was warmed up by the checks and the step-by-step timing.',
        'Verdict → readable: in the same child as the verdicts, one of the paced verdicts now and then is a probe user’s, with a score that changes their cell (classic: the newest verdict counts); ' +
          'the child then GETs their own scores (or the whole scoreboard) until the new score is there. Own scores: up to 2 probes at a time (one per probe user), ' +
          'their starts at least 200 ms apart, each GET 50 ms after the previous answer (so the probes add at most 40 light GETs/s and their figures are up to 50 ms coarse); ' +
          'the board: one probe at a time, polled back to back (the probe is then itself a board reader, like the 1-connection row above).',
        `Replay: GET scoreboard?at=T&judged=then|now as admin, T after every submission and verdict, so the whole contest is folded: \`then\` reads the journal's fields of the contest's events from the log (readJournal, pages of 5,000) and folds them in the API; \`now\` folds the contest-scores entries. Each answer is checked against its contract first.`,
        '`rebuildContestScores` (projections/src/contest-scores/contest-rebuild.ts) on the live contest_scores slot, called directly with the bench pool, after the projector folded everything.',
      ],
      figures,
      tables,
      notes,
    };
  } finally {
    await stack.stop();
  }
}

// ---- helpers ----

const BREAKDOWN_RUNS = 5;

/** The live board's reads and steps as the route does them, each timed alone (median of BREAKDOWN_RUNS). */
async function boardBreakdown(stack: BenchApiStack, contestId: number, body: unknown, schema: z.ZodType): Promise<Array<{ step: string; rows: number | null; ms: number }>> {
  const pool = stack.runtime.pool;
  const contests = createContestQueries(pool);
  const scores = createContestScoreQueries(pool);
  const problems = createProblemQueries(pool);
  const steps: Array<{ step: string; run: () => Promise<number | null> | number | null }> = [];
  let participants: number[] = [];
  let cells: Awaited<ReturnType<typeof scores.cells>> = [];
  let problemIds = new Set<number>();
  steps.push({ step: 'the contest row (`contests.find`)', run: async () => ((await contests.find(contestId)) ? 1 : 0) });
  steps.push({
    step: "the contest's problems (`contests.problems` + `problems.findMany`)",
    run: async () => {
      const rows = await problems.findMany((await contests.problems(contestId)).map((p) => p.id));
      problemIds = new Set(rows.map((p) => p.id));
      return rows.length;
    },
  });
  steps.push({ step: 'every participant (`participants`, for `contest.userContest`)', run: async () => (await contests.participants(contestId, { usersOnly: false })).length });
  steps.push({
    step: 'the ranked participants (`participants`, role user, joined with accounts)',
    run: async () => {
      participants = await contests.participants(contestId, { usersOnly: true });
      return participants.length;
    },
  });
  steps.push({
    step: 'the cells (`scores.cells`: every cell of the contest, zod-parsed rows)',
    run: async () => {
      cells = await scores.cells(contestId);
      return cells.length;
    },
  });
  const { tables } = (await liveSlot(pool, contestScoresProjection))!;
  steps.push({
    step: 'the same cells query without its zod row type (diagnostic)',
    run: async () =>
      (
        await pool.query(sql.unsafe`
          SELECT c.id, c.user_id AS "userId", c.problem_id AS "problemId", c.score, c.penalty,
            extract(epoch FROM c.solved_at)::float8 * 1000 AS "solvedAt", c.latest_submission AS "latestSubmission"
          FROM ${tables.cells} c WHERE c.contest_id = ${contestId} ORDER BY c.user_id, c.problem_id`)
      ).rows.length,
  });
  steps.push({ step: 'the users (`summariesOf`)', run: async () => (await summariesOf(pool, participants)).size });
  steps.push({ step: 'ranking (`rankBoard`)', run: () => rankBoard('classic', participants, cells, problemIds).length });
  steps.push({ step: 'the response checked against its contract (zod, as the serializer does)', run: () => (schema.safeParse(body).success ? 1 : 0) });
  steps.push({ step: 'the response serialised (`JSON.stringify`)', run: () => JSON.stringify(body).length });
  // What the route runs now (board-cache.ts) when the board's version has moved: the old steps above are the
  // reads it replaced, kept for comparison.
  let kept: Awaited<ReturnType<typeof buildBoard>> = null;
  steps.push({
    step: 'the kept board built: one REPEATABLE READ snapshot (version, contest, problems, participants with accounts, cells as JSON columns, results), ranked (`buildBoard`)',
    run: async () => {
      kept = await buildBoard(pool, contestId, { kind: 'live' });
      return kept?.board.rows.length ?? 0;
    },
  });
  steps.push({ step: 'its OTOG answer as JSON (`otogScoreboard`, `JSON.stringify`, no zod)', run: () => (kept ? Buffer.from(JSON.stringify(otogScoreboard(kept.board))).length : 0) });
  steps.push({ step: 'its columns answer as JSON (`columnsScoreboard`, `JSON.stringify`)', run: () => (kept ? Buffer.from(JSON.stringify(columnsScoreboard(kept.board))).length : 0) });
  steps.push({ step: 'the board version read (`boardVersion`, every request)', run: async () => (await boardVersion(pool)).length });
  const out: Array<{ step: string; rows: number | null; ms: number }> = [];
  for (const { step, run } of steps) {
    const times: number[] = [];
    let rows: number | null = null;
    for (let i = 0; i <= BREAKDOWN_RUNS; i += 1) {
      const t0 = now();
      rows = await run();
      if (i > 0) times.push(now() - t0);
    }
    out.push({ step, rows: ['contract', 'serialised', 'as JSON', 'version read'].some((word) => step.includes(word)) ? null : rows, ms: summarize(times).p50 });
  }
  const whole: number[] = [];
  const path = `/api/contest/${contestId}/scoreboard`;
  for (let i = 0; i <= BREAKDOWN_RUNS; i += 1) {
    const t0 = now();
    await stack.app.inject({ method: 'GET', url: path });
    if (i > 0) whole.push(now() - t0);
  }
  out.push({ step: '**the whole answer, board unchanged** (`app.inject`, anonymous: routing, policy, version read, the kept JSON)', rows: null, ms: summarize(whole).p50 });
  return out;
}

/** The parts of a replay as of `until`: the journal read (judged=then from the log, judged=now from the read model) and the fold. */
async function replayBreakdown(stack: BenchApiStack, contestId: number, until: number): Promise<Array<{ step: string; rows: number | null; ms: number }>> {
  const pool = stack.runtime.pool;
  const scores = createContestScoreQueries(pool);
  const out: Array<{ step: string; rows: number | null; ms: number }> = [];
  let t0 = now();
  const judgedNow = await scores.judged(contestId, { until });
  out.push({ step: '`now`: the judged entries made by T (`scores.judged`, zod-parsed rows)', rows: judgedNow.length, ms: now() - t0 });
  t0 = now();
  const picked = await readJournal(stack.runtime.store, pool, `contest:${contestId}`, { until: new Date(until) });
  const entries = judgedEntries(picked.values());
  out.push({ step: '`then`: the journal up to T read from the log and folded (`readJournal`: only its fields picked in SQL, pages of 5,000)', rows: entries.length, ms: now() - t0 });
  t0 = now();
  const journal = new Map<number, JournalRecord>();
  let events = 0;
  for (let after = LOG_START; ; ) {
    const page = await stack.runtime.store.readScope(pool, `contest:${contestId}`, JOURNAL_EVENT_TYPES, { after, until: new Date(until), limit: 5_000 });
    journalOf(page, journal);
    events += page.length;
    if (page.length < 5_000) break;
    after = page[page.length - 1]!;
  }
  out.push({ step: '(the same from whole events, as before 2026-11-29: `readScope` decoded, `journalOf`; events read)', rows: events, ms: now() - t0 });
  // Both reads must give the same journal, record for record.
  if (!isDeepStrictEqual(judgedEntries(journal.values()), entries)) throw new Error('the journal read with picked fields differs from the one folded from whole events');
  t0 = now();
  const problemScores = await scores.problemScores([...new Set(entries.map((entry) => entry.problemId))]);
  const cells = scoreCells(entries, { gradingMode: 'classic', contestStart: Date.parse((await createContestQueries(pool).find(contestId))!.timeStart), problemScores });
  out.push({ step: 'the cells scored from the journal (`scoreCells`)', rows: cells.length, ms: now() - t0 });
  return out;
}

/** md5 of the contest's rows in the live contest_scores slot, per table. */
async function contestDigest(stack: BenchApiStack, contestId: number): Promise<Record<'entries' | 'cells' | 'history', string>> {
  const { tables } = (await liveSlot(stack.db.pool, contestScoresProjection))!;
  const digest = async (table: (typeof tables)['cells'], order: string) =>
    String(
      await stack.db.pool.oneFirst(sql.unsafe`
        SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY ${sql.identifier([order])})), '') FROM ${table} t WHERE contest_id = ${contestId}`),
    );
  return {
    entries: await digest(tables.entries, 'submission_id'),
    // (user, problem) is the key; order by a text of both.
    cells: String(
      await stack.db.pool.oneFirst(sql.unsafe`
        SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY user_id, problem_id)), '') FROM ${tables.cells} t WHERE contest_id = ${contestId}`),
    ),
    history: await digest(tables.history, 'submission_id'),
  };
}
