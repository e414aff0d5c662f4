import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections } from '@otog/projections';
import { sql } from '@otog/platform/db/pool';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { LOG_START } from '@otog/platform/eventstore/position';
import { lockCheckpoint } from '@otog/platform/runner/checkpoints';
import { applyBatch } from '@otog/platform/runner/consumer';
import { slotConsumerName, slotTableName, type ProjectionDefinition } from '@otog/platform/runner/projection';
import { slotConsumer } from '@otog/platform/runner/projection-runner';
import { createRebuildSlot, ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { testRegistry } from '../support/test-events.ts';
import { ledgerProjection } from '../support/test-projections.ts';
import { samples } from './projection-samples/index.ts';

const cases: ProjectionDefinition[] = [ledgerProjection(), ...allProjections];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('duplicate delivery', () => {
  it('every product projection has sample events here', () => {
    const missing = allProjections.map((p) => p.name).filter((name) => !samples[name]);
    expect(missing, 'add samples for these projections to projection-redelivery.test.ts').toEqual([]);
  });

  for (const projection of cases) {
    it(`${projection.name}: redelivered and overlapping batches leave the read model as a single delivery does`, async () => {
      const store = createEventStore(db.pool, testRegistry);
      for (const [streamId, events] of samples[projection.name] ?? []) await store.append(streamId, events);
      const log = await store.readAfter(db.pool, LOG_START, 100_000);
      const relevant = log.filter((e) => projection.handles.includes(e.type));
      expect(relevant.length).toBeGreaterThan(0);

      const [once] = await ensureCodeSlot(db.pool, projection);
      const twice = await createRebuildSlot(db.pool, projection);
      const deliver = async (version: number, batch: typeof log) =>
        db.pool.transaction(async (tx) => {
          const key = { consumer: slotConsumerName(projection.name, version), source: 'pglog' as const, part: '*' };
          const checkpoint = await lockCheckpoint(tx, key, { skipLocked: false });
          return applyBatch(tx, key, checkpoint!, slotConsumer(projection, version), batch);
        });

      await deliver(once!, log);
      // At-least-once delivery: overlapping windows, a full replay, and a single stale event.
      const third = Math.ceil(log.length / 3);
      const windows: Array<[number, number]> = [[0, third], [0, 2 * third], [0, log.length], [third, third + 1], [0, log.length]];
      let duplicates = 0;
      let expectedDuplicates = 0;
      let deliveredUpTo = 0;
      for (const [from, to] of windows) {
        const end = Math.min(to, log.length);
        expectedDuplicates += Math.max(0, Math.min(end, deliveredUpTo) - from);
        deliveredUpTo = Math.max(deliveredUpTo, end);
        duplicates += (await deliver(twice, log.slice(from, end))).duplicates;
      }
      expect(duplicates).toBe(expectedDuplicates);

      for (const table of projection.tables) {
        const dump = (version: number) =>
          db.pool.any(sql.unsafe`SELECT * FROM ${sql.identifier([slotTableName(projection.name, version, table)])} ORDER BY 1`);
        expect(await dump(twice), `${projection.name}.${table}`).toEqual(await dump(once!));
      }
    });
  }
});
