/**
 * The ratings projection folded from its samples (rated contests ending, an unrated one, a rejudge after
 * the end, a member becoming an admin, an end moved and confirmed again, a deletion) holds exactly what
 * the Elo-MMR rule gives for the final standings worked out here by hand, in end order.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, UsageError } from '../../services/api/src/cli/cli.ts';
import { createLogger } from '@otog/platform/log/logger';
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

it('keeps each player state exactly (binary doubles): the stored state is the rule’s, to the last bit', async () => {
  const [version] = await ensureCodeSlot(db.pool, ratingsProjection);
  const t = slotTables(ratingsProjection, version!);
  const stored = await db.pool.anyFirst(sql.unsafe`SELECT state FROM ${t.results} WHERE contest_id = 45 AND user_id = 26`);
  const after44 = rateContest(new Map(), final44, at(1));
  const mu = rateContest(after44, [
    { userId: 26, rank: 1 },
    { userId: 28, rank: 2 },
  ], at(9)).get(26)!.mu;
  expect((stored[0] as Buffer).readDoubleLE(0)).toBe(mu);
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

describe('operator commands', () => {
  async function cli(args: string[]): Promise<{ code: number; out: string }> {
    const out = new PassThrough();
    const chunks: string[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    const ctx = {
      pool: db.pool,
      store: createEventStore(db.pool, testRegistry),
      listener: undefined as never,
      projections: [ratingsProjection],
      logger: createLogger({ name: 'ratings-cli-test', level: 'silent' }),
      out,
      progress: new PassThrough(),
      migrate: () => Promise.reject(new Error('not here')),
    };
    const code = await runCli(args, ctx);
    return { code, out: chunks.join('') };
  }
  const resultsNow = async () => {
    const [version] = await ensureCodeSlot(db.pool, ratingsProjection);
    return db.pool.any(sql.unsafe`SELECT * FROM ${slotTables(ratingsProjection, version!).results} ORDER BY 1, 2`);
  };

  it('ratings recompute rates every finished rated contest again, or those from one on, to the same digits', async () => {
    const before = await resultsNow();
    expect(before.length).toBe(5);
    expect(await cli(['ratings', 'recompute'])).toEqual({ code: 0, out: '2 rated contests rated again (5 results)\n' });
    expect(await resultsNow()).toEqual(before);
    expect(await cli(['ratings', 'recompute', '--from', '45'])).toEqual({ code: 0, out: '1 rated contests rated again (2 results)\n' });
    expect(await resultsNow()).toEqual(before);
  });

  it('ratings preview shows each participant before and after; bad ids are refused', async () => {
    const preview = await cli(['ratings', 'preview', '45']);
    const lines = preview.out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\s+1 {2}#26\s+\d+ -> \d+ \(\+\d+\)$/);
    expect(lines[1]).toMatch(/^\s+2 {2}#28\s+\d+ -> \d+ \(-\d+\)$/);
    await expect(cli(['ratings', 'preview', '999'])).rejects.toThrow('no contest 999');
    await expect(cli(['ratings', 'preview', 'x'])).rejects.toThrow(UsageError);
    await expect(cli(['ratings', 'recompute', '--from=0'])).rejects.toThrow(UsageError);
  });
});
