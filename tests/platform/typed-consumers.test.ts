/**
 * Consumers read only the event types they handle: the other events never leave Postgres, a commit of
 * only other types does not wake them, and waiting for a position of another type still resolves.
 */
import { expect, it } from 'vitest';
import { createEventStore, EVENTS_CHANNEL, wakesFor, type NewEvent } from '@otog/platform/eventstore/event-store';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { databaseWithListener } from '../support/db-listener.ts';
import { testRegistry } from '../support/test-events.ts';
import { until } from '../support/until.ts';

const env = databaseWithListener();

const renamed = (taskId: number, n: number): NewEvent[] =>
  Array.from({ length: n }, (_, i) => ({ type: 'TaskRenamed', scope: `user:${taskId}`, data: { taskId, title: `title ${i}` } }));
const counted = (by: number): NewEvent => ({ type: 'CounterIncremented', scope: 'user:1', data: { counter: 'c', by } });

it('wakes a consumer only for commits holding its types (an empty payload could hold any)', () => {
  const types = new Set(['CounterIncremented']);
  expect(wakesFor('CounterIncremented', types)).toBe(true);
  expect(wakesFor('TaskRenamed,CounterIncremented', types)).toBe(true);
  expect(wakesFor('TaskRenamed', types)).toBe(false);
  expect(wakesFor('', types)).toBe(true);
  expect(wakesFor('TaskRenamed', undefined)).toBe(true);
});

it("an append's wake-up names its event types", async () => {
  const store = createEventStore(env.db.pool, testRegistry);
  const payloads: string[] = [];
  const off = env.listener.on(EVENTS_CHANNEL, (payload) => payloads.push(payload));
  await env.listener.listening();
  try {
    await store.append('task-1', renamed(1, 3));
    await store.append('mixed-1', [...renamed(2, 1), counted(1)]);
    await until('both wake-ups arrive', () => payloads.length >= 2);
    expect(payloads.map((payload) => payload.split(',').sort().join(','))).toEqual(['TaskRenamed', 'CounterIncremented,TaskRenamed']);
  } finally {
    off();
  }
});

it('reads only its types from Postgres, moves its checkpoint past the rest, and answers waits for their positions', async () => {
  const store = createEventStore(env.db.pool, testRegistry);
  // No polling to speak of: only wake-ups and waits move this consumer.
  const transport = createPgLogTransport({ pool: env.db.pool, store, listener: env.listener, pollIntervalMs: 60_000 });
  const handled: number[] = [];
  let delivered = 0;
  const subscription = await transport.subscribe(
    {
      name: 'typed:counter',
      types: new Set(['CounterIncremented']),
      async handle(_tx, events) {
        for (const event of events) handled.push((event.data as { by: number }).by);
      },
    },
    { onBatch: (batch) => (delivered += batch.scanned) },
  );
  try {
    for (let i = 0; i < 5; i += 1) await store.append(`task-${10 + i}`, renamed(10 + i, 100));
    const wanted = await store.append('counter-typed', [counted(7)]);
    const after = await store.append('task-20', renamed(20, 100));
    await subscription.waitFor({ ...wanted.lastPosition, scope: 'user:1' });
    // The 500 renames after it: never read, yet a wait for their position resolves.
    await subscription.waitFor({ ...after.lastPosition, scope: 'user:20' }, 5_000);
    // The counter of the previous test, then this one's; the renames around them never left Postgres.
    expect(handled).toEqual([1, 7]);
    expect(delivered).toBe(2);
  } finally {
    await subscription.stop();
  }
});
