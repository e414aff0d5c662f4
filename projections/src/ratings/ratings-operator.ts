/**
 * The operator's rating tools on the live ratings slot: rate every rated contest again from one on (or
 * from the first), and preview what a contest would do before it is final. The recompute holds the slot's
 * checkpoint rows for its transaction, so the projector folds nothing of this slot meanwhile; its result is
 * what the projection itself computes, so it only repairs (or re-checks) what a fold would give.
 */
import { z } from 'zod';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import { noticeCollector } from '@otog/platform/notices/notice';
import { holdCheckpointsForRepair } from '@otog/platform/runner/checkpoints';
import { slotConsumerName, slotTables } from '@otog/platform/runner/projection';
import { listSlots } from '@otog/platform/runner/projection-slots';
import { previewContest, rateFrom, ratingsProjection, type RatingKey, type RatingTables } from './ratings.projection.ts';

/** Before every contest: the whole history. */
const FIRST: RatingKey = { timeEnd: '-infinity', contestId: 0 };

async function liveTables(pool: DatabasePool): Promise<{ generation: number; t: RatingTables }> {
  const live = (await listSlots(pool, ratingsProjection.name)).find((slot) => slot.state === 'live');
  if (!live) throw new Error(`${ratingsProjection.name} has no live slot yet (start the projector first)`);
  return { generation: live.generation, t: slotTables(ratingsProjection, live.generation) };
}

export class UnknownContestError extends Error {}

/** Rates every final rated contest from `fromContestId` (all of them when null) on again, in end order. */
export async function recomputeRatings(
  pool: DatabasePool,
  fromContestId: number | null,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<{ contests: number; results: number }> {
  const { generation, t } = await liveTables(pool);
  return pool.transaction(async (tx) => {
    await holdCheckpointsForRepair(tx, slotConsumerName(ratingsProjection.name, generation));
    let from = FIRST;
    if (fromContestId !== null) {
      const key = await tx.maybeOne(sql.type(z.object({ timeEnd: z.string(), contestId: z.number().int() }))`
        SELECT contest_id AS "contestId", to_json(time_end)#>>'{}' AS "timeEnd" FROM ${t.contests} WHERE contest_id = ${fromContestId}`);
      if (!key) throw new UnknownContestError(`no contest ${fromContestId} in the ratings read model`);
      from = key;
    }
    // Boards refetch on their own schedule: the notices of an operator's pass are not published.
    return rateFrom(tx, t, from, new Set(), noticeCollector().contextAt({ txid: 0n, gpos: 0n }), onProgress);
  });
}

export interface PreviewRow {
  readonly userId: number;
  readonly username: string;
  readonly rank: number;
  /** null: a first rated contest. */
  readonly before: number | null;
  readonly after: number;
}

/** What `contestId` would give its participants if it were final now (read only). */
export async function previewRatings(pool: DatabasePool, contestId: number): Promise<{ rated: boolean; rows: PreviewRow[] }> {
  const { t } = await liveTables(pool);
  const preview = await previewContest(pool, t, contestId);
  if (!preview) throw new UnknownContestError(`no contest ${contestId} in the ratings read model`);
  const ids = preview.rows.map((row) => row.userId);
  const names = new Map(
    (
      await pool.any(sql.type(z.object({ id: z.number().int(), username: z.string() }))`
        SELECT id, username FROM accounts WHERE id = ANY(${sql.array(ids, 'int4')})`)
    ).map((row) => [row.id, row.username]),
  );
  return { rated: preview.mode === 'rated', rows: preview.rows.map((row) => ({ ...row, username: names.get(row.userId) ?? `#${row.userId}` })) };
}
