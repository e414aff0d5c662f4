/**
 * `acm` (ICPC rules): a problem is solved by its first accepted submission. Its penalty is the whole
 * minutes from the contest start to that submission (0 for a submission before the start) plus 20 minutes
 * for every rejected submission before it; submissions after it change nothing. A solved problem scores
 * problem.score, an unsolved one 0 with no penalty, however many rejections it had.
 */
import { normaliseJournal, undecidedOutcome, type JudgedContestSubmission, type ProblemOutcome, type ProblemScoringContext } from './scoring.ts';

/** Minutes added to a solved problem's penalty per rejected submission before the accepted one. */
export const ACM_REJECT_PENALTY_MINUTES = 20;

export function scoreAcm(journal: readonly JudgedContestSubmission[], context: ProblemScoringContext): ProblemOutcome {
  const submissions = normaliseJournal(journal);
  const solvedIndex = submissions.findIndex((submission) => submission.status === 'accept');
  const history = submissions.map((submission, index) => ({
    submissionId: submission.submissionId,
    score: solvedIndex !== -1 && index >= solvedIndex ? context.problemScore : 0,
  }));
  const solving = submissions[solvedIndex];
  if (!solving) return undecidedOutcome(history);

  // Every submission before the first accept is a reject.
  const rejects = solvedIndex;
  const minutes = Math.max(0, Math.floor((solving.submittedAt - context.contestStart) / 60_000));
  return {
    score: context.problemScore,
    deciding: { submissionId: solving.submissionId, submittedAt: solving.submittedAt },
    penalty: 60 * (minutes + ACM_REJECT_PENALTY_MINUTES * rejects),
    solvedAt: solving.submittedAt,
    history,
  };
}
