/** Reads of the ratings read model: users' current ratings, a user's rated contests, a contest's results. */
import { z } from 'zod';
import { sql, type Queryable } from '@otog/platform/db/pool';
import type { SlotTables } from '@otog/platform/runner/projection';
import { NoLiveSlotError, readModel } from '@otog/platform/runner/read-model';
import { contestsProjection } from '../contests/contests.projection.ts';
import { ratingsProjection } from './ratings.projection.ts';

const live = readModel({ r: ratingsProjection });
const withContests = readModel({ r: ratingsProjection, c: contestsProjection });

const RatedContestSchema = z.object({
  contestId: z.number().int(),
  name: z.string(),
  timeStart: z.string(),
  timeEnd: z.string(),
  rank: z.number().int(),
  rating: z.number().int(),
});
export type RatedContest = z.infer<typeof RatedContestSchema>;

const ResultSchema = z.object({ userId: z.number().int(), rank: z.number().int(), rating: z.number().int() });

/** A user's current rating as a column (null before a first rated contest), for the accounts row aliased `alias`. */
export function ratingOf(ratings: SlotTables<'ratings'>['ratings'], alias: string) {
  return sql.fragment`(SELECT ur.rating FROM ${ratings} ur WHERE ur.user_id = ${sql.identifier([alias, 'id'])})`;
}

/** ratingOf with the live table looked up; NULL before the ratings projection's first slot (a node starting early). */
export async function ratingColumn(db: Queryable, alias: string) {
  try {
    return ratingOf((await live(db)).r.ratings, alias);
  } catch (error) {
    if (error instanceof NoLiveSlotError) return sql.fragment`NULL::integer`;
    throw error;
  }
}

export function createRatingQueries(pool: Queryable) {
  return {
    /** Current ratings of these users; users never rated are absent. */
    async ratingsOf(userIds: readonly number[]): Promise<Map<number, number>> {
      const { r } = await live(pool);
      const rows = await pool.any(sql.type(z.object({ userId: z.number().int(), rating: z.number().int() }))`
        SELECT user_id AS "userId", rating FROM ${r.ratings} WHERE user_id = ANY(${sql.array([...userIds], 'int4')})`);
      return new Map(rows.map((row) => [row.userId, row.rating]));
    },

    /** The user's rated contests, oldest first: rank and rating after each. */
    async history(userId: number): Promise<RatedContest[]> {
      const { r, c } = await withContests(pool);
      return [
        ...(await pool.any(sql.type(RatedContestSchema)`
          SELECT x.contest_id AS "contestId", c.name, c.time_start AS "timeStart", c.time_end AS "timeEnd",
            x.rank, x.rating
          FROM ${r.results} x JOIN ${c.contests} c ON c.id = x.contest_id
          WHERE x.user_id = ${userId}
          ORDER BY c.time_end, x.contest_id`)),
      ];
    },

    /** Each rated participant's rank and rating after the contest (empty until it is rated). */
    async contestResults(contestId: number): Promise<Map<number, { rank: number; rating: number }>> {
      const { r } = await live(pool);
      const rows = await pool.any(sql.type(ResultSchema)`
        SELECT user_id AS "userId", rank, rating FROM ${r.results} WHERE contest_id = ${contestId}`);
      return new Map(rows.map((row) => [row.userId, { rank: row.rank, rating: row.rating }]));
    },
  };
}

export type RatingQueries = ReturnType<typeof createRatingQueries>;
