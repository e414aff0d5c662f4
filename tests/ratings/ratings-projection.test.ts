/**
 * The ratings projection folded from its samples (rated contests ending, an unrated one, a rejudge after
 * the end, a member becoming an admin, an end moved and confirmed again, a deletion) holds exactly what
 * the Elo-MMR rule gives for the final standings worked out here by hand, in end order.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRatingQueries, ratingsProjection } from '@otog/projections';
import { sql } from '@otog/platform/db/pool';
import { createEventStore, type StoredEvent } from '@otog/platform/eventstore/event-store';
import { LOG_START } from '@otog/platform/eventstore/position';
import { slotTables } from '@otog/platform/runner/projection';
import { createRebuildSlot, ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { displayRating, rateContest, type PlayerState } from '@otog/projections/ratings/rules/elo-mmr';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { testRegistry } from '../support/test-events.ts';
import { ratingsSamples } from '../platform/projection-samples/ratings.ts';

let db: TestDatabase;
let log: StoredEvent[];
beforeAll(async () => {
  db = await createTestDatabase();
  const store = createEventStore(db.pool, testRegistry);
  for (const [streamId, events] of ratingsSamples) await store.append(streamId, events);
  log = (await store.readAfter(db.pool, LOG_START, 10_000)).filter((event) => ratingsProjection.handles.has(event.type));
  const [version] = await ensureCodeSlot(db.pool, ratingsProjection);
  await db.pool.query(sql.unsafe`UPDATE projection_slots SET state = 'live' WHERE projection = 'ratings' AND version = ${version!}`);
  // In one batch, as a rebuild would fold it.
  await db.pool.transaction((tx) => ratingsProjection.apply(tx, log, slotTables(ratingsProjection, version!)));
});
afterAll(() => db?.drop());

const at = (day: number) => Date.UTC(2024, 5, day, 12);
// 44 after the rejudge: 26 and 28 both scored 100, 26 earlier (classic breaks the tie by time); 25
// signed up without submitting; 27 is an admin now.
const final44 = [
  { userId: 26, rank: 1 },
  { userId: 28, rank: 2 },
  { userId: 25, rank: 3 },
];

it('rates 44 then 45 from their final standings; the unrated and deleted contest changes nothing', async () => {
  const after44 = rateContest(new Map(), final44, at(1));
  // 45 ends on the 9th since its edit: 26 scored 100, 28 40.
  const after45 = rateContest(after44, [
    { userId: 26, rank: 1 },
    { userId: 28, rank: 2 },
  ], at(9));
  const ratings = createRatingQueries(db.pool);
  const expected = (state: PlayerState | undefined) => displayRating(state!);
  expect(Object.fromEntries(await ratings.contestResults(44))).toEqual({
    28: { rank: 2, rating: expected(after44.get(28)) },
    26: { rank: 1, rating: expected(after44.get(26)) },
    25: { rank: 3, rating: expected(after44.get(25)) },
  });
  expect(Object.fromEntries(await ratings.contestResults(45))).toEqual({
    26: { rank: 1, rating: expected(after45.get(26)) },
    28: { rank: 2, rating: expected(after45.get(28)) },
  });
  expect(await ratings.contestResults(46)).toEqual(new Map());
  expect(Object.fromEntries(await ratings.ratingsOf([25, 26, 27, 28]))).toEqual({
    25: expected(after44.get(25)),
    26: expected(after45.get(26)),
    28: expected(after45.get(28)),
  });
  // The winner of both gained; last place in 44 lost.
  expect(expected(after45.get(26))).toBeGreaterThan(expected(after44.get(26)));
  expect(expected(after44.get(26))).toBeGreaterThan(1500);
  expect(expected(after44.get(25))).toBeLessThan(1500);
});

it('keeps each player state exactly (float8 round trip): the stored state is the rule’s, to the last bit', async () => {
  const [version] = await ensureCodeSlot(db.pool, ratingsProjection);
  const t = slotTables(ratingsProjection, version!);
  const stored = await db.pool.anyFirst(sql.unsafe`SELECT state FROM ${t.results} WHERE contest_id = 45 AND user_id = 26`);
  const after44 = rateContest(new Map(), final44, at(1));
  const mu = rateContest(after44, [
    { userId: 26, rank: 1 },
    { userId: 28, rank: 2 },
  ], at(9)).get(26)!.mu;
  expect(Number((stored[0] as unknown[])[0])).toBe(mu);
});

it('folded one event per batch (as a live fold may), after every event it equals the whole prefix folded at once', async () => {
  const incremental = await createRebuildSlot(db.pool, ratingsProjection);
  const dump = (version: number, table: 'results' | 'ratings') => db.pool.any(sql.unsafe`SELECT * FROM ${slotTables(ratingsProjection, version)[table]} ORDER BY 1, 2`);
  for (const [index, event] of log.entries()) {
    await db.pool.transaction((tx) => ratingsProjection.apply(tx, [event], slotTables(ratingsProjection, incremental)));
    const atOnce = await createRebuildSlot(db.pool, ratingsProjection);
    await db.pool.transaction((tx) => ratingsProjection.apply(tx, log.slice(0, index + 1), slotTables(ratingsProjection, atOnce)));
    for (const table of ['results', 'ratings'] as const) expect(await dump(incremental, table), `${table} after ${event.type} #${index}`).toEqual(await dump(atOnce, table));
  }
});
