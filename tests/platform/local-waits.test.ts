/**
 * Waiting for a consumer to pass a position: in the process that holds the consumer the wait is answered
 * from its own commits, without reading the checkpoint table; with two instances taking turns, a wait in
 * either still ends once the event is folded; in a process that folds nothing, the waits on a slot share
 * one read of its checkpoint per commit.
 */
import { expect, it } from 'vitest';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import { createEventStore, type NewEvent } from '@otog/platform/eventstore/event-store';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import type { EventConsumer } from '@otog/platform/runner/consumer';
import { startProjectionRunner } from '@otog/platform/runner/projection-runner';
import { databaseWithListener } from '../support/db-listener.ts';
import { testRegistry } from '../support/test-events.ts';
import { ledgerProjection } from '../support/test-projections.ts';

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

it('waits on a slot folded in another process share one checkpoint read per commit, not one per wait and poll', async () => {
  const store = createEventStore(env.db.pool, testRegistry);
  const projection = ledgerProjection({ name: 'watched', blockOnSeq: 7 });
  const folding = await startProjectionRunner({
    pool: env.db.pool,
    store,
    transport: createPgLogTransport({ pool: env.db.pool, store, listener: env.listener, pollIntervalMs: 50 }),
    projections: [projection],
  });
  const checkpointReads: string[] = [];
  // An API node: folds nothing, waits for the projector's commits.
  const waiting = await startProjectionRunner({
    pool: observedPool(env.db.pool, checkpointReads),
    store,
    transport: createPgLogTransport({ pool: env.db.pool, store, listener: env.listener }),
    projections: [projection],
    fold: false,
    listener: env.listener,
  });
  const readsWhileBlocked = await env.db.pool.connect(async (connection) => {
    // The fold stops at seq 7 until the lock is released: 50 requests wait meanwhile.
    await connection.query(sql.unsafe`SELECT pg_advisory_lock(4242)`);
    try {
      const appended = await store.append('watched-1', [{ type: 'CounterIncremented', scope: 'user:1', data: { counter: 'w', by: 1, seq: 7 } }]);
      const position = { ...appended.lastPosition, scope: 'user:1' };
      checkpointReads.length = 0;
      const waits = Array.from({ length: 50 }, () => waiting.waitFor('watched', position, 10_000));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const whileBlocked = checkpointReads.filter(isCheckpointRead).length;
      await connection.query(sql.unsafe`SELECT pg_advisory_unlock(4242)`);
      await Promise.all(waits);
      return whileBlocked;
    } finally {
      await connection.query(sql.unsafe`SELECT pg_advisory_unlock_all()`);
    }
  });
  try {
    // Polled each on its own (every 50 ms), 50 waits read the checkpoint about 1,000 times in that second.
    expect(readsWhileBlocked).toBeGreaterThan(0);
    expect(readsWhileBlocked).toBeLessThanOrEqual(100);
  } finally {
    await waiting.stop();
    await folding.stop();
  }
});

/** A read of a checkpoint row by a waiter (not a consumer's own locking read, not the slot listing). */
const isCheckpointRead = (text: string) => text.includes('kafka_offset FROM consumer_checkpoints WHERE') && !text.includes('FOR UPDATE');
