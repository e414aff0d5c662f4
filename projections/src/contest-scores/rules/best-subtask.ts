/**
 * `bestSubtask`: each subtask counts with its best raw score over all submissions so far, and the sum is
 * scaled to problem.score like a single submission's score: roundHalfToEven(Σ best raw × problem.score ÷
 * Σ full), 0 when there are no full points. The full points of a subtask are the largest seen at its
 * index so far, so a subtask that became worth more (the problem changed during the contest) is not
 * counted as more than complete. A running value strictly greater than the one before makes that
 * submission the deciding one.
 *
 * Unlike OTOG, which summed the raw subtask points, the result is scaled to problem.score so it adds up
 * with the other modes' scores on the scoreboard.
 */
import { scaleScore } from '@otog/schemas/common/rounding';
import { decidedOutcome, normaliseJournal, type JudgedContestSubmission, type ProblemOutcome, type ProblemScoringContext } from './scoring.ts';

export function scoreBestSubtask(journal: readonly JudgedContestSubmission[], context: ProblemScoringContext): ProblemOutcome {
  // By array position (subtaskIndex − 1).
  const bestRaw: number[] = [];
  const full: number[] = [];
  let value = 0;
  let deciding: JudgedContestSubmission | null = null;
  const history = normaliseJournal(journal).map((submission) => {
    submission.subtasks.forEach((subtask, position) => {
      bestRaw[position] = Math.max(bestRaw[position] ?? 0, subtask.score);
      full[position] = Math.max(full[position] ?? 0, subtask.fullScore);
    });
    const rawTotal = sum(bestRaw);
    const fullTotal = sum(full);
    const running = fullTotal > 0 ? scaleScore(rawTotal, fullTotal, context.problemScore) : 0;
    if (running > value) deciding = submission;
    value = running;
    return { submissionId: submission.submissionId, score: value };
  });
  return decidedOutcome(value, deciding, history, context);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
