/**
 * `classic`: the latest judged submission counts, even when it scores lower than an earlier one (or 0);
 * it is always the deciding submission.
 */
import { decidedOutcome, normaliseJournal, type JudgedContestSubmission, type ProblemOutcome, type ProblemScoringContext } from './scoring.ts';

export function scoreClassic(journal: readonly JudgedContestSubmission[], context: ProblemScoringContext): ProblemOutcome {
  const submissions = normaliseJournal(journal);
  const history = submissions.map((submission) => ({ submissionId: submission.submissionId, score: submission.score }));
  const latest = submissions.at(-1) ?? null;
  return decidedOutcome(latest?.score ?? 0, latest, history, context);
}
