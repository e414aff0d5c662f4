/**
 * Contest prizes from the accepted contest submissions. First blood: per problem, the earliest accepted
 * submission (by submission time, then submissionId). One-man solve: per problem solved by exactly one
 * contestant, that contestant's earliest accepted submission (OTOG picked an arbitrary one of them). Both
 * lists are ordered by problemId ascending. Pure; the input order does not matter and duplicated
 * entries change nothing.
 */

export interface AcceptedContestSubmission {
  readonly submissionId: number;
  readonly problemId: number;
  readonly userId: number;
  readonly submittedAt: number;
}

export interface PrizeWinner {
  readonly submissionId: number;
  readonly problemId: number;
  readonly userId: number;
}

export function awardPrizes(accepted: readonly AcceptedContestSubmission[]): { firstBlood: PrizeWinner[]; oneManSolve: PrizeWinner[] } {
  const earliest = new Map<number, AcceptedContestSubmission>();
  const solvers = new Map<number, Set<number>>();
  for (const submission of accepted) {
    const current = earliest.get(submission.problemId);
    if (!current || isEarlier(submission, current)) earliest.set(submission.problemId, submission);
    const users = solvers.get(submission.problemId) ?? new Set<number>();
    users.add(submission.userId);
    solvers.set(submission.problemId, users);
  }
  const firstBlood = [...earliest.values()]
    .sort((a, b) => a.problemId - b.problemId)
    .map(({ submissionId, problemId, userId }) => ({ submissionId, problemId, userId }));
  // With a single solver, the problem's earliest accepted submission is that solver's earliest.
  const oneManSolve = firstBlood.filter((winner) => solvers.get(winner.problemId)?.size === 1).map((winner) => ({ ...winner }));
  return { firstBlood, oneManSolve };
}

function isEarlier(a: AcceptedContestSubmission, b: AcceptedContestSubmission): boolean {
  return a.submittedAt !== b.submittedAt ? a.submittedAt < b.submittedAt : a.submissionId < b.submissionId;
}
