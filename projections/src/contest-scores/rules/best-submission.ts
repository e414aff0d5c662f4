/**
 * `bestSubmission`: the best single submission counts. The running best starts at 0; only a strictly
 * greater score replaces it, so the deciding submission is the earliest one reaching the best score, and
 * a contestant who never scores above 0 has no deciding submission.
 */
import { decidedOutcome, normaliseJournal, type JudgedContestSubmission, type ProblemOutcome, type ProblemScoringContext } from './scoring.ts';

export function scoreBestSubmission(journal: readonly JudgedContestSubmission[], context: ProblemScoringContext): ProblemOutcome {
  let best = 0;
  let deciding: JudgedContestSubmission | null = null;
  const history = normaliseJournal(journal).map((submission) => {
    if (submission.score > best) {
      best = submission.score;
      deciding = submission;
    }
    return { submissionId: submission.submissionId, score: best };
  });
  return decidedOutcome(best, deciding, history, context);
}
