/**
 * A contestant's contest score for one problem, from that contestant's judged contest submissions to it
 * (the problem's "journal"), under the contest's grading mode. Pure: no IO, no clock, no randomness; the
 * same journal always gives the same outcome, whatever order it arrives in and however often an entry
 * is delivered.
 */
import type { GradingMode } from '@otog/schemas/common/contest';
import { scoreAcm } from './acm.ts';
import { scoreBestSubmission } from './best-submission.ts';
import { scoreBestSubtask } from './best-subtask.ts';
import { scoreClassic } from './classic.ts';

export interface JudgedContestSubmission {
  readonly submissionId: number;
  /** The submission's creation time, ms since the epoch. */
  readonly submittedAt: number;
  /** Only judged accept/reject submissions reach a journal (compile and judge errors never count). */
  readonly status: 'accept' | 'reject';
  /** The submission's own score, already scaled to the problem's full score. */
  readonly score: number;
  /** Raw subtask points in subtaskIndex order (1-based index → array position index-1). */
  readonly subtasks: readonly { readonly score: number; readonly fullScore: number }[];
}

export interface ProblemScoringContext {
  /** problem.score: the full score of the problem. */
  readonly problemScore: number;
  /** ms */
  readonly contestStart: number;
}

export interface ProblemOutcome {
  /** contestScore.score */
  readonly score: number;
  /** The submission that decided the score (contestScore.latestSubmission is its time); null when none did. */
  readonly deciding: { readonly submissionId: number; readonly submittedAt: number } | null;
  /**
   * Seconds. Non-acm: floor((deciding.submittedAt − contestStart)/1000), at least 0, 0 without a deciding
   * submission. acm: the ICPC penalty of the problem in seconds (60 × minutes), 0 when unsolved.
   */
  readonly penalty: number;
  /** acm only: time (ms) of the first accepted submission; null when unsolved or in other modes. */
  readonly solvedAt: number | null;
  /**
   * One entry per journal submission, in journal order (sorted, see normaliseJournal): the contest score
   * for this problem right after that submission.
   */
  readonly history: readonly { readonly submissionId: number; readonly score: number }[];
}

export function scoreProblem(mode: GradingMode, journal: readonly JudgedContestSubmission[], context: ProblemScoringContext): ProblemOutcome {
  switch (mode) {
    case 'classic':
      return scoreClassic(journal, context);
    case 'bestSubmission':
      return scoreBestSubmission(journal, context);
    case 'bestSubtask':
      return scoreBestSubtask(journal, context);
    case 'acm':
      return scoreAcm(journal, context);
    default: {
      // Unreachable for a well-typed caller; a mode read from stored data might still be anything.
      const unknown: never = mode;
      throw new RangeError(`unknown grading mode ${String(unknown)}`);
    }
  }
}

/**
 * The journal in the order the rules read it: by submissionId ascending (ids grow with creation time, so
 * this is submission order), each id once. A duplicated id keeps its LAST occurrence: a later entry is a
 * later judging of the same submission (a rejudge), so it supersedes the earlier one.
 */
export function normaliseJournal(journal: readonly JudgedContestSubmission[]): JudgedContestSubmission[] {
  const byId = new Map<number, JudgedContestSubmission>();
  for (const submission of journal) byId.set(submission.submissionId, submission);
  return [...byId.values()].sort((a, b) => a.submissionId - b.submissionId);
}

/** The outcome of a problem nobody decided: no score, no penalty, and the given history. */
export function undecidedOutcome(history: ProblemOutcome['history']): ProblemOutcome {
  return { score: 0, deciding: null, penalty: 0, solvedAt: null, history };
}

/** The non-acm penalty: whole seconds from the contest start to the deciding submission, never negative. */
export function secondsSinceStart(submittedAt: number, contestStart: number): number {
  return Math.max(0, Math.floor((submittedAt - contestStart) / 1000));
}

/**
 * The outcome of a non-acm mode: `score` decided by `deciding` (null: nobody decided it), penalised by
 * the time of the deciding submission.
 */
export function decidedOutcome(
  score: number,
  deciding: JudgedContestSubmission | null,
  history: ProblemOutcome['history'],
  context: ProblemScoringContext,
): ProblemOutcome {
  if (!deciding) return { ...undecidedOutcome(history), score };
  return {
    score,
    deciding: { submissionId: deciding.submissionId, submittedAt: deciding.submittedAt },
    penalty: secondsSinceStart(deciding.submittedAt, context.contestStart),
    solvedAt: null,
    history,
  };
}
