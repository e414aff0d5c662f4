import { createContestQueries, type ContestRecord } from '@otog/projections';
import type { DatabasePool } from '@otog/platform/db/pool';
import { isAdmin, type AuthUser } from '../../http/access.ts';
import { notFound } from '../../http/errors.ts';
import type { VisibilityContext } from '../problems/visibility.ts';
import { CONTEST_NOT_FOUND } from './contest-decider.ts';

export { CONTEST_NOT_FOUND };

/** The contest, or a 404 "Contest not found" (the submission and announcement routes name contests too). */
export async function existingContest(pool: DatabasePool, contestId: number): Promise<ContestRecord> {
  const contest = await createContestQueries(pool).find(contestId);
  if (!contest) throw notFound(CONTEST_NOT_FOUND);
  return contest;
}

/** Refuses (404) a contest id that names no contest. */
export async function assertContestExists(pool: DatabasePool, contestId: number): Promise<void> {
  await existingContest(pool, contestId);
}

/**
 * What a caller's running contests open to them: the hidden problems of contests running now that they
 * take part in. Nothing for anonymous callers and admins (who see every problem anyway).
 */
export async function contestVisibility(pool: DatabasePool, user: AuthUser | null, now = new Date()): Promise<VisibilityContext> {
  if (!user || isAdmin(user)) return {};
  return { runningContestProblemIds: new Set(await createContestQueries(pool).problemsOpenTo(user.id, now)) };
}
