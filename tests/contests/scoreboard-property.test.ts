/**
 * Property: for random contests (every grading mode, 1-30 users, 1-5 problems, random submission times,
 * verdicts, subtask points, rejudges that change results, stale reports of replaced judgings, grading-mode
 * and start changes, problem score changes), the contest-scores tables folded live with duplicated and
 * re-delivered events equal the tables of a fresh replay in another valid interleaving, and both equal a
 * direct computation by the pure rules. The API's on-demand folds (frozen boards, replays as judged then
 * or now) give the same cells.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contestScoresProjection } from '@otog/projections';
import { scoreProblem, type JudgedContestSubmission } from '@otog/projections/contest-scores/rules/scoring';
import { sql } from '@otog/platform/db/pool';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { noticeCollector } from '@otog/platform/notices/notice';
import { slotTableName, slotTables } from '@otog/platform/runner/projection';
import { createRebuildSlot, ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { GRADING_MODES, type GradingMode } from '@otog/schemas/common/contest';
import { scaleScore } from '@otog/schemas/common/rounding';
import { judgedEntries, journalOf, scoreCells, type JournalEntry } from '@otog/projections/contest-scores/rules/journal';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';

const int = z.number().int();
const CellRow = z.object({
  contestId: int,
  userId: int,
  problemId: int,
  id: int,
  score: int,
  penalty: int,
  solvedAt: z.number().nullable(),
  deciding: int.nullable(),
  latest: z.string().nullable(),
});
const HistoryRow = z.object({ contestId: int, userId: int, problemId: int, submissionId: int, score: int });

const RUNS = Number(process.env.CONTEST_PROPERTY_RUNS ?? 100);
const HOUR = 3_600_000;

/** mulberry32: a small seeded generator, so a failing run can be reproduced from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

type Verdict = { status: 'accept' | 'reject' | 'compileError'; score: number; subtasks: { score: number; fullScore: number }[] };
type Draft = { type: string; scope: string; streamId: string; data: Record<string, unknown>; occurredAt: string };

interface Contest {
  readonly contestId: number;
  mode: GradingMode;
  start: number;
  readonly problemScore: Map<number, number>;
  /** Final state of each submission: its judged verdict, or null while its current judging has not reported. */
  readonly submissions: Map<number, { userId: number; problemId: number; at: number; verdict: Verdict | null }>;
  /** Per scope, the events in the order the log holds them. */
  readonly scopes: Map<string, Draft[]>;
}

let nextSubmissionId = 1;

function verdictFor(rng: Random, fullScores: readonly number[], problemScore: number): Verdict {
  const status = rng.pick(['accept', 'reject', 'reject', 'compileError'] as const);
  if (status === 'compileError') return { status, score: 0, subtasks: [] };
  const subtasks = fullScores.map((fullScore) => ({ fullScore, score: status === 'accept' ? fullScore : rng.int(0, fullScore) }));
  const raw = subtasks.reduce((sum, s) => sum + s.score, 0);
  const full = fullScores.reduce((sum, s) => sum + s, 0);
  return { status, score: scaleScore(raw, full, problemScore), subtasks };
}

function settings(name: string, mode: GradingMode, start: number) {
  return {
    name,
    mode: 'unrated',
    gradingMode: mode,
    scoreboardPolicy: 'DURING_CONTEST',
    timeStart: new Date(start).toISOString(),
    timeEnd: new Date(start + 5 * HOUR).toISOString(),
    announce: null,
    freezeAt: null,
  };
}

function generateContest(run: number, rng: Random): Contest {
  const contestId = 1_000 + run;
  const scope = `contest:${contestId}`;
  const base = Date.UTC(2026, 0, 1) + run * 24 * HOUR;
  const contest: Contest = { contestId, mode: rng.pick(GRADING_MODES), start: base, problemScore: new Map(), submissions: new Map(), scopes: new Map() };
  const problems = Array.from({ length: rng.int(1, 5) }, (_, p) => ({
    problemId: contestId * 10 + p,
    score: rng.pick([50, 100, 137]),
    fullScores: Array.from({ length: rng.int(1, 3) }, () => rng.int(1, 40)),
  }));
  const users = rng.int(1, 30);
  const at = (ms: number) => new Date(ms).toISOString();

  // Each problem's judging configuration, once or twice (a changed full score re-scores its cells).
  for (const problem of problems) {
    const configured = (score: number): Draft => ({
      type: 'ProblemJudgingConfigured',
      scope: `problem:${problem.problemId}`,
      streamId: `problem-${problem.problemId}`,
      data: { problemId: problem.problemId, score, timeLimit: 1_000, memoryLimit: 256 },
      occurredAt: at(base),
    });
    const drafts = [configured(problem.score)];
    if (rng.chance(0.3)) drafts.push(configured((problem.score = rng.pick([30, 100, 200]))));
    contest.problemScore.set(problem.problemId, problem.score);
    contest.scopes.set(`problem:${problem.problemId}`, drafts);
  }

  // Each submission's stream: created, judged, maybe rejudged (with a stale report of the replaced judging).
  const count = rng.int(0, Math.min(40, users * problems.length * 2));
  const times = Array.from({ length: count }, () => base + rng.int(-10, 5 * 3_600) * 1_000).sort((a, b) => a - b);
  const streams: Draft[][] = times.map((time) => {
    const submissionId = nextSubmissionId++;
    const userId = rng.int(1, users);
    const problem = rng.pick(problems);
    const streamId = `submission-${submissionId}`;
    const draft = (type: string, data: Record<string, unknown>): Draft => ({ type, scope, streamId, data: { submissionId, ...data }, occurredAt: at(time) });
    const judged = (judging: number, verdict: Verdict) =>
      draft('SubmissionJudged', {
        judging,
        status: verdict.status,
        result: verdict.status,
        score: verdict.score,
        timeUsed: 1,
        memUsed: 1,
        errmsg: null,
        subtaskResults: verdict.subtasks.map((s, i) => ({ subtaskIndex: i + 1, score: s.score, fullScore: s.fullScore, verdicts: [] })),
        judgedBy: 'w',
        attempts: 1,
      });
    const stream = [
      draft('SubmissionCreated', { userId, problemId: problem.problemId, contestId, language: 'cpp', sourceCode: '', fileName: null }),
    ];
    let verdict: Verdict | null = verdictFor(rng, problem.fullScores, problem.score);
    let judging = 1;
    stream.push(judged(judging, verdict));
    while (rng.chance(0.25)) {
      const stale = verdict;
      stream.push(draft('RejudgeRequested', { requestedBy: 1 }));
      const replaced = judging;
      judging = stream.length;
      verdict = null;
      if (stale && rng.chance(0.4)) stream.push(judged(replaced, verdictFor(rng, problem.fullScores, problem.score)));
      if (rng.chance(0.85)) {
        verdict = verdictFor(rng, problem.fullScores, problem.score);
        stream.push(judged(judging, verdict));
      }
    }
    contest.submissions.set(submissionId, { userId, problemId: problem.problemId, at: time, verdict });
    return stream;
  });

  // The contest scope: created first, then the submission streams interleaved, a settings change somewhere.
  const contestEvents: Draft[] = [
    { type: 'ContestCreated', scope, streamId: `contest-${contestId}`, data: { contestId, settings: settings(`c${run}`, contest.mode, contest.start) }, occurredAt: at(base - HOUR) },
  ];
  contestEvents.push(...interleave(rng, streams));
  if (rng.chance(0.3)) {
    contest.mode = rng.pick(GRADING_MODES);
    if (rng.chance(0.5)) contest.start = base - rng.int(0, 60) * 60_000;
    const edit: Draft = { type: 'ContestEdited', scope, streamId: `contest-${contestId}`, data: { contestId, settings: settings(`c${run}`, contest.mode, contest.start) }, occurredAt: at(base) };
    contestEvents.splice(rng.int(1, contestEvents.length), 0, edit);
  }
  contest.scopes.set(scope, contestEvents);
  return contest;
}

/** A random merge of the sequences that keeps each one's order. */
function interleave<T>(rng: Random, sequences: readonly (readonly T[])[]): T[] {
  const cursors = sequences.map(() => 0);
  const merged: T[] = [];
  for (;;) {
    const open = sequences.flatMap((sequence, i) => (cursors[i]! < sequence.length ? [i] : []));
    if (open.length === 0) return merged;
    const i = rng.pick(open);
    merged.push(sequences[i]![cursors[i]!++]!);
  }
}

/** Gives each event its stream position and log position in the order given. */
function stored(drafts: readonly Draft[]): StoredEvent[] {
  const versions = new Map<string, number>();
  return drafts.map((draft, i) => {
    const streamPosition = (versions.get(draft.streamId) ?? 0) + 1;
    versions.set(draft.streamId, streamPosition);
    return {
      txid: BigInt(i + 1),
      gpos: BigInt(i + 1),
      eventId: crypto.randomUUID(),
      streamId: draft.streamId,
      streamPosition,
      type: draft.type,
      schemaVersion: 1,
      scope: draft.scope,
      occurredAt: draft.occurredAt,
      recordedAt: draft.occurredAt,
      data: draft.data,
      meta: {},
    };
  });
}

/** Every contest's scopes, interleaved across scopes (each scope's order kept, as every transport keeps it). */
const logOrder = (rng: Random, contests: readonly Contest[]): StoredEvent[] =>
  stored(interleave(rng, contests.flatMap((contest) => [...contest.scopes.values()])));

/** The cells and history the pure rules give for the contest's final journal. */
function expected(contest: Contest) {
  const journals = new Map<string, (JudgedContestSubmission & { userId: number; problemId: number })[]>();
  for (const [submissionId, submission] of contest.submissions) {
    const verdict = submission.verdict;
    if (!verdict || verdict.status === 'compileError') continue;
    const key = `${submission.userId}:${submission.problemId}`;
    journals.set(key, [
      ...(journals.get(key) ?? []),
      { submissionId, submittedAt: submission.at, status: verdict.status, score: verdict.score, subtasks: verdict.subtasks, userId: submission.userId, problemId: submission.problemId },
    ]);
  }
  const cells = [...journals.values()].map((journal) => {
    const { userId, problemId } = journal[0]!;
    const outcome = scoreProblem(contest.mode, journal, { problemScore: contest.problemScore.get(problemId)!, contestStart: contest.start });
    return {
      userId,
      problemId,
      id: Math.min(...journal.map((entry) => entry.submissionId)),
      score: outcome.score,
      penalty: outcome.penalty,
      solvedAt: outcome.solvedAt,
      deciding: outcome.deciding?.submissionId ?? null,
      latest: outcome.deciding ? new Date(outcome.deciding.submittedAt).toISOString() : null,
      history: outcome.history.map((row) => ({ submissionId: row.submissionId, score: row.score })),
    };
  });
  return cells.sort((a, b) => a.userId - b.userId || a.problemId - b.problemId);
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe(`contest scores on ${RUNS} random contests`, () => {
  it('live with duplicates and rewinds = a fresh replay in another interleaving = the pure rules = the API folds', async () => {
    const rng = random(20261126);
    const contests = Array.from({ length: RUNS }, (_, run) => generateContest(run, rng));
    const live = logOrder(rng, contests);
    const replay = logOrder(rng, contests);
    const projection = contestScoresProjection;

    const [liveSlot] = await ensureCodeSlot(db.pool, projection);
    const replaySlot = await createRebuildSlot(db.pool, projection);
    const deliver = (version: number, events: readonly StoredEvent[]) =>
      db.pool.transaction(async (tx) => {
        const tables = slotTables(projection, version);
        const notices = noticeCollector();
        for (const event of events) await projection.handlerOf(event.type)!(tx, event, tables, notices.contextAt(event));
      });
    // Live: each event possibly delivered twice, then suffixes delivered again (a rewind after a crash).
    await deliver(liveSlot!, live.flatMap((event) => (rng.chance(0.2) ? [event, event] : [event])));
    for (const rewind of [Math.floor(live.length / 2), live.length - 1]) await deliver(liveSlot!, live.slice(rewind));
    await deliver(replaySlot, replay);

    const dump = async (version: number) => {
      const table = (name: string) => sql.identifier([slotTableName(projection.name, version, name)]);
      const cells = await db.pool.any(sql.type(CellRow)`
        SELECT contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId", id, score, penalty,
          extract(epoch FROM solved_at)::float8 * 1000 AS "solvedAt", deciding_submission AS deciding, latest_submission AS latest
        FROM ${table('cells')} ORDER BY contest_id, user_id, problem_id`);
      const history = await db.pool.any(sql.type(HistoryRow)`
        SELECT contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId", submission_id AS "submissionId", score
        FROM ${table('history')} ORDER BY submission_id`);
      return { cells, history };
    };
    const liveTables = await dump(liveSlot!);
    expect(liveTables).toEqual(await dump(replaySlot));

    let scoredCells = 0;
    for (const contest of contests) {
      const want = expected(contest);
      const cells = liveTables.cells.filter((row) => row.contestId === contest.contestId);
      const context = `contest ${contest.contestId} (${contest.mode})`;
      expect(cells.map(({ contestId: _, ...cell }) => cell), context).toEqual(want.map(({ history: _, ...cell }) => cell));
      const history = liveTables.history.filter((row) => row.contestId === contest.contestId);
      const wantHistory = want.flatMap((cell) => cell.history.map((row) => ({ ...row, userId: cell.userId, problemId: cell.problemId })));
      expect(history.map(({ contestId: _, ...row }) => row), context).toEqual(wantHistory.sort((a, b) => a.submissionId - b.submissionId));
      scoredCells += cells.length;

      // The API's folds: the final journal (judged now) and the journal replayed from the contest's own events (judged then).
      const settings = { gradingMode: contest.mode, contestStart: contest.start, problemScores: contest.problemScore };
      const fromEvents = judgedEntries(journalOf(live.filter((event) => event.scope === `contest:${contest.contestId}`)).values());
      const folded = (journal: JournalEntry[]) =>
        scoreCells(journal, settings)
          .map((cell) => ({ userId: cell.userId, problemId: cell.problemId, id: cell.id, score: cell.score, penalty: cell.penalty, solvedAt: cell.solvedAt }))
          .sort((a, b) => a.userId - b.userId || a.problemId - b.problemId);
      expect(folded(fromEvents), context).toEqual(want.map(({ userId, problemId, id, score, penalty, solvedAt }) => ({ userId, problemId, id, score, penalty, solvedAt })));
    }
    // The generator is not degenerate: most runs score something.
    expect(scoredCells).toBeGreaterThan(RUNS);
  }, 300_000);
});
