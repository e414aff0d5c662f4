import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections } from '@otog/projections';
import { createEventStore, type StoredEvent } from '@otog/platform/eventstore/event-store';
import { LOG_START } from '@otog/platform/eventstore/position';
import { noticeCollector } from '@otog/platform/notices/notice';
import { slotTables } from '@otog/platform/runner/projection';
import { createRebuildSlot, ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { testRegistry } from '../support/test-events.ts';
import { slotRows } from '../support/test-projections.ts';
import { samples } from './projection-samples/index.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

/**
 * At-least-once delivery without the position filter that normally drops duplicates: each product
 * projection's own handlers must make a redelivered event harmless. Transports redeliver in order from a
 * rewind point (a relay or consumer crash, a Kafka rebalance), so the cases are an event delivered twice
 * in a row and suffixes of the log delivered again after later events were applied.
 */
describe('duplicate delivery, straight into the handlers', () => {
  it('every product projection has sample events here', () => {
    const missing = allProjections.map((p) => p.name).filter((name) => !samples[name]);
    expect(missing, 'add samples for these projections to projection-samples/').toEqual([]);
  });

  for (const projection of allProjections) {
    it(`${projection.name}: repeated and stale events leave the read model as a single delivery does`, async () => {
      const store = createEventStore(db.pool, testRegistry);
      for (const [streamId, events] of samples[projection.name] ?? []) await store.append(streamId, events);
      const log = (await store.readAfter(db.pool, LOG_START, 100_000)).filter((event) => projection.handles.has(event.type));
      expect(log.length).toBeGreaterThan(0);

      const [once] = await ensureCodeSlot(db.pool, projection);
      const twice = await createRebuildSlot(db.pool, projection);
      const deliver = (version: number, events: readonly StoredEvent[]) =>
        db.pool.transaction(async (tx) => {
          const tables = slotTables(projection, version);
          const notices = noticeCollector();
          for (const event of events) await projection.handlerOf(event.type)!(tx, event, tables, notices.contextAt(event));
        });

      await deliver(once!, log);
      const third = Math.ceil(log.length / 3);
      await deliver(twice, log.flatMap((event) => [event, event]));
      for (const rewind of [2 * third, third, 0, log.length - 1]) await deliver(twice, log.slice(rewind));

      for (const table of projection.tables) {
        const dump = (version: number) => slotRows(db.pool, projection.name, version, table);
        expect(await dump(twice), `${projection.name}.${table}`).toEqual(await dump(once!));
      }
    });
  }
});
