/**
 * Waiting for a consumer to pass a position: in the process that holds the consumer the wait is answered
 * from its own commits, without reading the checkpoint table; with two instances taking turns, a wait in
 * either still ends once the event is folded.
 */
import { expect, it } from 'vitest';
import type { DatabasePool } from '@otog/platform/db/pool';
import { createEventStore, type NewEvent } from '@otog/platform/eventstore/event-store';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import type { EventConsumer } from '@otog/platform/runner/consumer';
import { databaseWithListener } from '../support/db-listener.ts';
import { testRegistry } from '../support/test-events.ts';

const env = databaseWithListener();

const counted = (by: number): NewEvent => ({ type: 'CounterIncremented', scope: 'user:1', data: { counter: 'c', by } });

/** The real pool, with the statements that read consumer_checkpoints outside a consumer's own step noted. */
function observedPool(pool: DatabasePool, checkpointReads: string[]): DatabasePool {
  return new Proxy(pool, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property !== 'maybeOne' && property !== 'one' && property !== 'any') return value.bind(target);
      return (query: { sql: string }) => {
        if (query.sql.includes('consumer_checkpoints')) checkpointReads.push(query.sql);
        return (value as (query: unknown) => unknown).call(target, query);
      };
    },
  });
}

const counter = (name: string, handled: number[]): EventConsumer => ({
  name,
  async handle(_tx, events) {
    for (const event of events) handled.push((event.data as { by: number }).by);
  },
});

it('answers waits in the holding process from its commits, without reading the checkpoint table', async () => {
  const store = createEventStore(env.db.pool, testRegistry);
  const checkpointReads: string[] = [];
  const transport = createPgLogTransport({ pool: observedPool(env.db.pool, checkpointReads), store, listener: env.listener, pollIntervalMs: 60_000 });
  const handled: number[] = [];
  const subscription = await transport.subscribe(counter('local:holder', handled));
  try {
    // The first wait may come before the consumer's first step takes the checkpoint: not counted.
    const first = await store.append('counter-local-0', [counted(0)]);
    await subscription.waitFor({ ...first.lastPosition, scope: 'user:1' });
    checkpointReads.length = 0;
    for (let i = 1; i <= 10; i += 1) {
      const appended = await store.append(`counter-local-${i}`, [counted(i)]);
      await subscription.waitFor({ ...appended.lastPosition, scope: 'user:1' }, 5_000);
      // Read-your-writes: the wait ends only once the event is folded.
      expect(handled.at(-1)).toBe(i);
    }
    expect(checkpointReads).toEqual([]);
  } finally {
    await subscription.stop();
  }
});

it('two instances of one consumer take turns; a wait in either ends once the event is folded, by either', async () => {
  const store = createEventStore(env.db.pool, testRegistry);
  const handled: number[][] = [[], []];
  const [a, b] = await Promise.all(handled.map((into) => createPgLogTransport({ pool: env.db.pool, store, listener: env.listener }).subscribe(counter('local:shared', into))));
  try {
    for (let i = 100; i < 120; i += 1) {
      const appended = await store.append(`counter-shared-${i}`, [counted(i)]);
      const position = { ...appended.lastPosition, scope: 'user:1' };
      await Promise.all([a!.waitFor(position, 5_000), b!.waitFor(position, 5_000)]);
      const folded = [...handled[0]!, ...handled[1]!].filter((by) => by >= 100);
      expect(folded.filter((by) => by === i)).toEqual([i]);
    }
  } finally {
    await Promise.all([a!.stop(), b!.stop()]);
  }
});
