import { notFound } from '../../http/errors.ts';
import type { ApiDependencies } from '../../http/settings.ts';

/**
 * Refuses a contest id that names no contest (404 "Contest not found") before an announcement is attached
 * to it. Contests are not implemented yet, so none exists and every id is refused; the contest issue
 * replaces this body with a lookup in its read model.
 */
export async function assertContestExists(_deps: ApiDependencies, _contestId: number): Promise<void> {
  throw notFound('Contest not found');
}
