/**
 * Who may see a problem, its PDF and its attachment (DOMAIN.md "Visibility"): a shown problem, everyone;
 * a hidden one, admins only. The contest issue extends this with "or a contestant while the problem is in a
 * running contest they are in" by passing what it knows of the caller's running contests.
 */
import type { AuthUser } from '../../http/access.ts';

export interface ProblemVisibility {
  readonly id: number;
  readonly show: boolean;
}

export interface VisibilityContext {
  /** Problems of contests running now that the caller takes part in (filled by the contest module). */
  readonly runningContestProblemIds?: ReadonlySet<number>;
}

export function canSeeProblem(problem: ProblemVisibility, user: AuthUser | null, context: VisibilityContext = {}): boolean {
  if (problem.show) return true;
  if (user?.role === 'admin') return true;
  return user !== null && (context.runningContestProblemIds?.has(problem.id) ?? false);
}

/** OTOG answers 403 for a hidden problem (and 500 for anonymous callers); we answer 403 to both. */
export const HIDDEN_PROBLEM_MESSAGE = 'This problem is hidden';
