/**
 * Reading read models. Rows of `sql.type` queries are checked and parsed by their zod schema. Readers never
 * fail across a rebuild and cutover: several loops read the ledger through the platform's
 * reader (live slot looked up per query) while events are appended the whole time, an operator rebuild
 * builds a second slot and the cutover switches to it. Reads begun after the cutover read the new slot;
 * the old slot stays readable until the separate drop step, after which its tables are gone.
 */
import { SchemaValidationError } from 'slonik';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '@otog/platform/db/pool';
import { comparePositions, type Position } from '@otog/platform/eventstore/position';
import { readCheckpoint } from '@otog/platform/runner/checkpoints';
import { createRebuildSlot, cutover, dropRetiredSlots, listSlots, SlotChangeRefusedError } from '@otog/platform/runner/projection-slots';
import { readModel } from '@otog/platform/runner/read-model';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { ledgerProjection } from '../support/test-projections.ts';
import { startTestProjector, type TestProjector } from '../support/test-runtime.ts';
import { until } from '../support/until.ts';

const READERS = 6;
const ledger = ledgerProjection();
const live = readModel({ l: ledger });
const Summary = z.object({ counters: z.number().int(), total: z.bigint().nullable() });
const Applied = z.object({ applied: z.number().int() });

let db: TestDatabase;
let projector: TestProjector;
beforeAll(async () => {
  db = await createTestDatabase({ maximumPoolSize: 24 });
  // The drop is left to the test (the runner's automatic one waits out a grace period of minutes anyway).
  projector = await startTestProjector(db, [ledger], { autoCutover: false, refreshIntervalMs: 50, dropRetiredAfterMs: null });
});
afterAll(async () => {
  await projector.stop();
  await db.drop();
});

it('rows of sql.type queries are checked and parsed by their zod schema; sql.unsafe rows pass as they are', async () => {
  await expect(db.pool.one(sql.type(z.object({ n: z.string() }))`SELECT 1 AS n`)).rejects.toBeInstanceOf(SchemaValidationError);
  expect(await db.pool.one(sql.type(z.object({ n: z.number().transform((n) => n * 2) }))`SELECT 1 AS n`)).toEqual({ n: 2 });
  expect(await db.pool.one(sql.unsafe`SELECT 1 AS n`)).toEqual({ n: 1 });
});

interface Read {
  readonly startedAt: number;
  readonly table: string;
}

it('readers hammering a read model through a rebuild, a cutover and the drop never get an error', async () => {
  let stop = false;
  const errors: unknown[] = [];
  const reads: Read[] = [];

  let last: Position = { txid: 0n, gpos: 0n };
  let appended = 0;
  const writer = (async () => {
    for (let i = 1; !stop; i += 1) {
      const result = await projector.store.append(`counter-${i % 4}`, [
        { type: 'CounterIncremented', scope: `user:${i % 4}`, data: { counter: `c${i % 4}`, by: 1, seq: i } },
      ]);
      appended += 1;
      if (comparePositions(result.lastPosition, last) > 0) last = result.lastPosition;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();

  const reader = async () => {
    while (!stop) {
      const startedAt = performance.now();
      try {
        const { l } = await live(db.pool);
        // Two statements on the tables found: the second may start after a cutover committed.
        await db.pool.one(sql.type(Summary)`SELECT count(*)::int AS counters, sum(total)::int8 AS total FROM ${l.totals}`);
        await db.pool.one(sql.type(Applied)`SELECT count(*)::int AS applied FROM ${l.applied} WHERE gpos > 0`);
        reads.push({ startedAt, table: l.totals.names[0]! });
      } catch (error) {
        errors.push(error);
      }
    }
  };
  const readers = Array.from({ length: READERS }, reader);
  const readsOf = (table: string) => reads.filter((read) => read.table === table).length;

  try {
    await until('readers read the first slot', () => readsOf('rm_ledger_v1_totals') > 50, 10_000);

    // The operator's rebuild: a second generation built from the log beside the live one.
    const generation = await createRebuildSlot(db.pool, ledger);
    expect(generation).toBe(2);
    await projector.runner.refresh();
    // Appends never stop, so the cutover is tried until the new slot is at the head at that moment.
    let cutAt = 0;
    await until(
      'the cutover succeeds',
      async () => {
        try {
          expect(await cutover(db.pool, projector.store, ledger, generation)).toEqual({ retired: 1 });
          cutAt = performance.now();
          return true;
        } catch (error) {
          if (error instanceof SlotChangeRefusedError) return false;
          throw error;
        }
      },
      30_000,
    );
    await until('readers read the new slot', () => reads.filter((read) => read.startedAt > cutAt).length > 50, 10_000);
    expect(reads.filter((read) => read.startedAt > cutAt).every((read) => read.table === 'rm_ledger_v2_totals')).toBe(true);

    // Retired, still readable by whoever looked it up before the cutover, and no longer folded.
    const oldTotals = () => db.pool.oneFirst(sql.type(z.object({ events: z.number().int() }))`SELECT sum(events)::int AS events FROM rm_ledger_v1_totals`);
    const frozen = await oldTotals();
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.generation, s.state])).toEqual([[1, 'retired'], [2, 'live']]);
    await projector.runner.refresh();
    const more = appended;
    await until('more events are appended', () => appended > more + 20);
    expect(await oldTotals()).toBe(frozen);

    // The later, separate step: the retired slot's tables go, under the readers of the live one.
    expect(await dropRetiredSlots(db.pool, { projections: ['ledger'], olderThanMs: 0 })).toEqual([{ projection: 'ledger', generation: 1 }]);
    expect(await db.pool.exists(sql.unsafe`SELECT 1 FROM pg_tables WHERE tablename IN ('rm_ledger_v1_totals', 'rm_ledger_v1_applied')`)).toBe(false);
    await expect(oldTotals()).rejects.toThrow();
    const afterDrop = reads.length;
    await until('readers go on after the drop', () => reads.length > afterDrop + 50, 10_000);
  } finally {
    stop = true;
    await writer;
    await Promise.all(readers);
  }

  expect(errors).toEqual([]);
  expect(readsOf('rm_ledger_v1_totals')).toBeGreaterThan(0);
  // The new slot holds every event, folded once.
  await projector.runner.waitFor('ledger', { ...last, scope: 'user:0' });
  const checkpoint = await readCheckpoint(db.pool, { consumer: 'projection:ledger:v2', source: 'pglog', part: '*' });
  expect(checkpoint && comparePositions(checkpoint, last)).toBeGreaterThanOrEqual(0);
  expect(await db.pool.oneFirst(sql.type(z.object({ events: z.number().int() }))`SELECT sum(events)::int AS events FROM rm_ledger_v2_totals`)).toBe(appended);
}, 90_000);
