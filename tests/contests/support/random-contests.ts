/**
 * Random contests for the contest-score properties, the one-contest rebuild and the benchmarks: events
 * per scope (each scope in log order), and the final state they lead to, from a seeded generator.
 */
import { scoreProblem, type JudgedContestSubmission } from '@otog/projections/contest-scores/rules/scoring';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { GRADING_MODES, type GradingMode } from '@otog/schemas/common/contest';
import { scaleScore } from '@otog/schemas/common/rounding';

const HOUR = 3_600_000;

/** mulberry32: a small seeded generator, so a failing run can be reproduced from its seed. */
export function random(seed: number) {
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
export type Random = ReturnType<typeof random>;

type Verdict = { status: 'accept' | 'reject' | 'compileError'; score: number; subtasks: { score: number; fullScore: number }[] };
export type Draft = { type: string; scope: string; streamId: string; data: Record<string, unknown>; occurredAt: string };

export interface Contest {
  readonly contestId: number;
  mode: GradingMode;
  start: number;
  readonly problemScore: Map<number, number>;
  /** Final state of each submission: its judged verdict, or null while its current judging has not reported. */
  readonly submissions: Map<number, { userId: number; problemId: number; at: number; verdict: Verdict | null }>;
  /** Per scope, the events in the order the log holds them. */
  readonly scopes: Map<string, Draft[]>;
}


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

export interface ContestShape {
  /** Most users (at least one). */
  readonly users: number;
  /** Most submissions. */
  readonly submissions: number;
  /** Chance of a rejudge after each judging. */
  readonly rejudges: number;
}

const SMALL: ContestShape = { users: 30, submissions: 40, rejudges: 0.25 };

/**
 * A random contest numbered `run`: its problems' configurations, its submissions with verdicts and
 * rejudges, maybe a settings change, as events per scope, and the final state the events lead to.
 * Submission ids start at `ids.next` and grow with submission time.
 */
export function generateContest(run: number, rng: Random, ids: { next: number }, shape: ContestShape = SMALL): Contest {
  const contestId = 1_000 + run;
  const scope = `contest:${contestId}`;
  const base = Date.UTC(2026, 0, 1) + run * 24 * HOUR;
  const contest: Contest = { contestId, mode: rng.pick(GRADING_MODES), start: base, problemScore: new Map(), submissions: new Map(), scopes: new Map() };
  const problems = Array.from({ length: rng.int(1, 5) }, (_, p) => ({
    problemId: contestId * 10 + p,
    score: rng.pick([50, 100, 137]),
    fullScores: Array.from({ length: rng.int(1, 3) }, () => rng.int(1, 40)),
  }));
  const users = rng.int(1, shape.users);
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
  const count = rng.int(0, Math.min(shape.submissions, users * problems.length * 2));
  const times = Array.from({ length: count }, () => base + rng.int(-10, 5 * 3_600) * 1_000).sort((a, b) => a - b);
  const streams: Draft[][] = times.map((time) => {
    const submissionId = ids.next++;
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
    while (rng.chance(shape.rejudges)) {
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
export function interleave<T>(rng: Random, sequences: readonly (readonly T[])[]): T[] {
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
export function stored(drafts: readonly Draft[]): StoredEvent[] {
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
export const logOrder = (rng: Random, contests: readonly Contest[]): StoredEvent[] =>
  stored(interleave(rng, contests.flatMap((contest) => [...contest.scopes.values()])));

/** The cells and history the pure rules give for the contest's final journal. */
export function expected(contest: Contest) {
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

