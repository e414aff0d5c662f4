/**
 * Scoreboards as pure functions. The live board ranks the contest-scores projection's cells; a frozen
 * board, a replay and a frozen score history fold a journal cut at a moment with the same scoring rules
 * the projection uses, so every view of a contest agrees with what a fresh replay of the log gives.
 */
import { isEvent, type FoldableEvent } from '@otog/platform/eventstore/command';
import { DEFAULT_PROBLEM_SCORE } from '@otog/projections/contest-scores/contest-scores.projection';
import { rankContestants } from '@otog/projections/contest-scores/rules/ranking';
import { scoreProblem, type JudgedContestSubmission } from '@otog/projections/contest-scores/rules/scoring';
import type { GradingMode } from '@otog/schemas/common/contest';
import { RejudgeRequested, SubmissionCreated, SubmissionJudged } from '@otog/schemas/events';

/** A judged contest submission of one user to one problem. */
export interface JournalEntry extends JudgedContestSubmission {
  readonly userId: number;
  readonly problemId: number;
}

/** One user's contest score on one problem (OTOG's contestScore with its penalty). */
export interface Cell {
  /** The smallest submission id of the cell's journal, as the projection numbers its cells. */
  readonly id: number;
  readonly userId: number;
  readonly problemId: number;
  readonly score: number;
  readonly penalty: number;
  /** acm: when the problem was first accepted (ms). */
  readonly solvedAt: number | null;
  /** The deciding submission's time (ISO), null when none decided the score. */
  readonly latestSubmission: string | null;
}

export interface FoldedCell extends Cell {
  /** The contest score right after each judged submission, in journal order. */
  readonly history: readonly { readonly submissionId: number; readonly score: number }[];
}

export interface ScoringSettings {
  readonly gradingMode: GradingMode;
  /** ms */
  readonly contestStart: number;
  /** Full scores by problem id; a problem missing here scores out of OTOG's default. */
  readonly problemScores: ReadonlyMap<number, number>;
}

/** Scores every (user, problem) of a journal with the contest's grading mode. */
export function foldJournal(entries: readonly JournalEntry[], settings: ScoringSettings): FoldedCell[] {
  const byCell = new Map<string, JournalEntry[]>();
  for (const entry of entries) {
    const key = `${entry.userId}:${entry.problemId}`;
    byCell.set(key, [...(byCell.get(key) ?? []), entry]);
  }
  return [...byCell.values()].map((journal) => {
    const { userId, problemId } = journal[0]!;
    const problemScore = settings.problemScores.get(problemId) ?? DEFAULT_PROBLEM_SCORE;
    const outcome = scoreProblem(settings.gradingMode, journal, { problemScore, contestStart: settings.contestStart });
    return {
      id: Math.min(...journal.map((entry) => entry.submissionId)),
      userId,
      problemId,
      score: outcome.score,
      penalty: outcome.penalty,
      solvedAt: outcome.solvedAt,
      latestSubmission: outcome.deciding ? new Date(outcome.deciding.submittedAt).toISOString() : null,
      history: outcome.history,
    };
  });
}

export interface BoardCell {
  readonly problemId: number;
  readonly score: number;
  readonly penalty: number;
  /** On a frozen board: the user's submissions to the problem made after the freeze. */
  readonly pending?: number;
}

export interface BoardRow {
  readonly userId: number;
  readonly rank: number;
  readonly totalScore: number;
  readonly maxPenalty: number;
  readonly cells: readonly BoardCell[];
}

/**
 * Ranks the participants on the contest's problems only (cells of problems no longer in the contest do
 * not count). `pending` maps `userId:problemId` to a count shown on a frozen board.
 */
export function rankBoard(
  mode: GradingMode,
  participants: readonly number[],
  cells: readonly Cell[],
  problemIds: ReadonlySet<number>,
  pending: ReadonlyMap<string, number> = new Map(),
): BoardRow[] {
  const cellsOf = new Map<number, Cell[]>(participants.map((userId) => [userId, []]));
  for (const cell of cells) if (problemIds.has(cell.problemId)) cellsOf.get(cell.userId)?.push(cell);
  const ranked = rankContestants(
    mode,
    [...cellsOf].map(([userId, own]) => ({ userId, cells: own })),
  );
  return ranked.map((row) => {
    const own = cellsOf.get(row.userId)!;
    const shown: BoardCell[] = own.map(({ problemId, score, penalty }) => withPending({ problemId, score, penalty }, pending.get(`${row.userId}:${problemId}`)));
    for (const problemId of problemIds) {
      const count = pending.get(`${row.userId}:${problemId}`);
      if (count && !own.some((cell) => cell.problemId === problemId)) shown.push({ problemId, score: 0, penalty: 0, pending: count });
    }
    shown.sort((a, b) => a.problemId - b.problemId);
    return { userId: row.userId, rank: row.rank, totalScore: row.totalScore, maxPenalty: row.maxPenalty, cells: shown };
  });
}

const withPending = (cell: BoardCell, count: number | undefined): BoardCell => (count ? { ...cell, pending: count } : cell);

interface ReplayedSubmission {
  readonly userId: number;
  readonly problemId: number;
  readonly submittedAt: number;
  /** The stream position of the request being judged (the creation or the latest rejudge). */
  readonly judging: number;
  readonly verdict: Pick<JudgedContestSubmission, 'status' | 'score' | 'subtasks'> | null;
}

type ReplayableEvent = FoldableEvent & { readonly occurredAt: string; readonly streamPosition: number };

/**
 * The journal as the verdicts stood when the given events were all there was: a contest's submission
 * events up to a moment, in log order. A rejudge clears the verdict until its own judging reports, and a
 * report of an older judging counts for nothing, as in the projection.
 */
export function journalFromEvents(events: readonly ReplayableEvent[]): JournalEntry[] {
  const submissions = new Map<number, ReplayedSubmission>();
  for (const event of events) {
    if (isEvent(event, SubmissionCreated)) {
      const { submissionId, userId, problemId } = event.data;
      if (submissions.has(submissionId)) continue;
      submissions.set(submissionId, { userId, problemId, submittedAt: Date.parse(event.occurredAt), judging: event.streamPosition, verdict: null });
    } else if (isEvent(event, RejudgeRequested)) {
      const submission = submissions.get(event.data.submissionId);
      if (submission && submission.judging < event.streamPosition) {
        submissions.set(event.data.submissionId, { ...submission, judging: event.streamPosition, verdict: null });
      }
    } else if (isEvent(event, SubmissionJudged)) {
      const { submissionId, judging, status, score, subtaskResults } = event.data;
      const submission = submissions.get(submissionId);
      if (!submission || submission.judging !== judging) continue;
      const verdict = status === 'accept' || status === 'reject' ? { status, score, subtasks: subtaskResults.map((s) => ({ score: s.score, fullScore: s.fullScore })) } : null;
      submissions.set(submissionId, { ...submission, verdict });
    }
  }
  return [...submissions]
    .filter(([, submission]) => submission.verdict !== null)
    .map(([submissionId, { userId, problemId, submittedAt, verdict }]) => ({ submissionId, userId, problemId, submittedAt, ...verdict! }));
}

/** The event types a replay reads. */
export const REPLAY_EVENT_TYPES: ReadonlySet<string> = new Set([SubmissionCreated.type, RejudgeRequested.type, SubmissionJudged.type]);
