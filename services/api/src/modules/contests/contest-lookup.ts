import type { DatabasePool } from '@otog/platform/db/pool';
import { notFound } from '../../http/errors.ts';

export const CONTEST_NOT_FOUND = 'Contest not found';

/**
 * Whether a contest exists. Contests are not built yet, so none does: every contest id given to the
 * submission and announcement routes is answered 404 "Contest not found". The contest issue replaces this
 * body with a lookup in its read model (and adds "the problem is in that contest" to the upload rule).
 */
export async function contestExists(_pool: DatabasePool, _contestId: number): Promise<boolean> {
  return false;
}

/** Refuses (404) a contest id that names no contest. */
export async function assertContestExists(pool: DatabasePool, contestId: number): Promise<void> {
  if (!(await contestExists(pool, contestId))) throw notFound(CONTEST_NOT_FOUND);
}
