import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections } from '@otog/projections';
import { createEventStore, type StoredEvent } from '@otog/platform/eventstore/event-store';
import { LOG_START } from '@otog/platform/eventstore/position';
import { slotTables } from '@otog/platform/runner/projection';
import { createRebuildSlot, ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { mulberry32 } from '../support/mulberry32.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { testRegistry } from '../support/test-events.ts';
import { slotRows } from '../support/test-projections.ts';
import { samples } from './projection-samples/index.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

/** The log as Kafka may deliver it: each scope's events in log order, the scopes interleaved at random. */
function interleaveScopes(log: readonly StoredEvent[], next: () => number): StoredEvent[] {
  const queues = new Map<string, StoredEvent[]>();
  for (const event of log) queues.set(event.scope, [...(queues.get(event.scope) ?? []), event]);
  const order: StoredEvent[] = [];
  while (queues.size > 0) {
    const scopes = [...queues.keys()];
    const scope = scopes[Math.floor(next() * scopes.length)]!;
    const queue = queues.get(scope)!;
    order.push(queue.shift()!);
    if (queue.length === 0) queues.delete(scope);
  }
  return order;
}

/**
 * A projection that declares its scopes may read them from Kafka, where each scope (partition) keeps its
 * order but scopes interleave otherwise than in the log, and differently after every rebalance. Its fold must
 * then end where the log order ends, whatever the interleaving and however the events are batched.
 */
describe('projections read from Kafka: any interleaving of scopes gives the log order’s read model', () => {
  const scoped = allProjections.filter((projection) => projection.scopes);

  it('the contest projections declare their scopes (so that scaled, they read Kafka)', () => {
    expect(scoped.map((projection) => projection.name)).toContain('contest_scores');
  });

  for (const projection of scoped) {
    it(`${projection.name}: 24 interleavings in random batches equal the log order`, async () => {
      const store = createEventStore(db.pool, testRegistry);
      for (const [streamId, events] of samples[projection.name] ?? []) await store.append(streamId, events);
      const log = await store.readAfter(db.pool, LOG_START, 100_000);
      expect(new Set(log.map((event) => event.scope)).size).toBeGreaterThan(2);

      const fold = (generation: number, events: readonly StoredEvent[], next: () => number) =>
        db.pool.transaction(async (tx) => {
          for (let i = 0; i < events.length; ) {
            const size = 1 + Math.floor(next() * 6);
            await projection.apply(tx, events.slice(i, i + size), slotTables(projection, generation));
            i += size;
          }
        });
      const [inLogOrder] = await ensureCodeSlot(db.pool, projection);
      await fold(inLogOrder!, log, () => 0);
      const dump = async (generation: number) =>
        Object.fromEntries(await Promise.all(projection.tables.map(async (table) => [table, await slotRows(db.pool, projection.name, generation, table)])));
      const expected = await dump(inLogOrder!);

      for (let seed = 1; seed <= 24; seed += 1) {
        const next = mulberry32(seed);
        const generation = await createRebuildSlot(db.pool, projection);
        await fold(generation, interleaveScopes(log, next), next);
        expect(await dump(generation), `${projection.name}, seed ${seed}`).toEqual(expected);
      }
    });
  }
});
