import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSchemaError, UnknownEventTypeError } from '@otog/schemas/events';
import { sql } from '@otog/platform/db/pool';
import { createEventStore, type EventStore } from '@otog/platform/eventstore/event-store';
import { DuplicateEventError, InvalidAppendError, WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import { LOG_START, comparePositions } from '@otog/platform/eventstore/position';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { testRegistry } from '../support/test-events.ts';

let db: TestDatabase;
let store: EventStore;
beforeAll(async () => {
  db = await createTestDatabase();
  store = createEventStore(db.pool, testRegistry);
});
afterAll(() => db.drop());

const inc = (counter: string, by = 1) => ({ type: 'CounterIncremented', scope: `user:${counter}`, data: { counter, by } });
const countRows = () => db.pool.oneFirst(sql.unsafe`SELECT count(*) FROM event_log`);

describe('append', () => {
  it('numbers stream positions from 1 and returns log positions in order', async () => {
    const result = await store.append('counter-a', [inc('a'), inc('a', 2)], { expectedVersion: 'none' });
    expect(result.streamVersion).toBe(2);
    expect(result.deduplicated).toBe(false);
    expect(result.events.map((e) => e.streamPosition)).toEqual([1, 2]);
    expect(comparePositions(result.events[0]!, result.events[1]!)).toBe(-1);
    const events = await store.readStream('counter-a');
    expect(events.map((e) => e.data)).toEqual([{ counter: 'a', by: 1 }, { counter: 'a', by: 2 }]);
    expect(events[0]!.scope).toBe('user:a');
    expect(typeof events[0]!.gpos).toBe('bigint');
    expect(events[0]!.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('enforces the expected stream version', async () => {
    await store.append('counter-b', [inc('b')], { expectedVersion: 'none' });
    await expect(store.append('counter-b', [inc('b')], { expectedVersion: 'none' })).rejects.toBeInstanceOf(WrongExpectedVersionError);
    await expect(store.append('counter-b', [inc('b')], { expectedVersion: 5 })).rejects.toThrow(/expected version 5, but it is at 1/);
    const ok = await store.append('counter-b', [inc('b')], { expectedVersion: 1 });
    expect(ok.streamVersion).toBe(2);
  });

  it('lets exactly one of many concurrent appends at the same expected version win', async () => {
    await store.append('counter-race', [inc('race')]);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => store.append('counter-race', [inc('race')], { expectedVersion: 1 })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(WrongExpectedVersionError);
    expect((await store.readStream('counter-race')).length).toBe(2);
  });

  it("with 'any', concurrent appends to one stream all land with distinct positions", async () => {
    await Promise.all(Array.from({ length: 10 }, () => store.append('counter-any', [inc('any')])));
    const events = await store.readStream('counter-any');
    expect(events.map((e) => e.streamPosition)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('deduplicates a retried append by event id and refuses a partial overlap', async () => {
    const ids = ['0b6f6b8e-5f0b-4b64-9d1c-9a1f3f5c0001', '0b6f6b8e-5f0b-4b64-9d1c-9a1f3f5c0002'];
    const first = await store.append('counter-d', ids.map((eventId) => ({ ...inc('d'), eventId })));
    const before = await countRows();
    const again = await store.append('counter-d', ids.map((eventId) => ({ ...inc('d'), eventId })));
    expect(again.deduplicated).toBe(true);
    expect(again.events).toEqual(first.events);
    expect(await countRows()).toBe(before);
    await expect(
      store.append('counter-d', [{ ...inc('d'), eventId: ids[0]! }, inc('d')]),
    ).rejects.toBeInstanceOf(DuplicateEventError);
    expect(await countRows()).toBe(before);
  });

  it('deduplicates concurrent appends of the same event id', async () => {
    const eventId = '0b6f6b8e-5f0b-4b64-9d1c-9a1f3f5c0100';
    const results = await Promise.all(Array.from({ length: 6 }, () => store.append('counter-e', [{ ...inc('e'), eventId }])));
    expect(results.filter((r) => !r.deduplicated)).toHaveLength(1);
    expect((await store.readStream('counter-e')).length).toBe(1);
  });

  it('refuses an event that fails its schema, naming the field, and writes nothing', async () => {
    const before = await countRows();
    const attempt = store.append('counter-f', [inc('f'), { type: 'CounterIncremented', scope: 'user:f', data: { counter: 'f', by: 'two' } }]);
    await expect(attempt).rejects.toBeInstanceOf(EventSchemaError);
    await expect(attempt).rejects.toThrow(/CounterIncremented \(v1\) is invalid: by: /);
    await expect(store.append('counter-f', [{ type: 'Nope', scope: 'user:f', data: {} }])).rejects.toBeInstanceOf(UnknownEventTypeError);
    await expect(store.append('counter-f', [{ ...inc('f'), data: { counter: 'f', by: 1, extra: true } }])).rejects.toThrow(/extra/);
    expect(await countRows()).toBe(before);
  });

  it('refuses malformed envelopes with a clear message', async () => {
    await expect(store.append('bad stream id', [inc('x')])).rejects.toBeInstanceOf(InvalidAppendError);
    await expect(store.append('s-1', [{ ...inc('x'), scope: 'no-colon' }])).rejects.toThrow(/invalid scope/);
    await expect(store.append('s-1', [{ ...inc('x'), eventId: 'not-a-uuid' }])).rejects.toThrow(/not a UUID/);
    await expect(store.append('s-1', [])).rejects.toThrow(/nothing to append/);
    await expect(store.append('s-1', [{ ...inc('x'), occurredAt: 'yesterday' }])).rejects.toThrow(/not a date/);
  });

  it('rolls back the events when a command-side write in the same transaction fails', async () => {
    const before = await countRows();
    await expect(
      store.append('counter-g', [inc('g')], {
        withinTransaction: async (tx) => {
          await tx.query(sql.unsafe`SELECT 1/0`);
        },
      }),
    ).rejects.toThrow();
    expect(await countRows()).toBe(before);
  });

  it('keeps the log append-only at the database', async () => {
    await store.append('counter-h', [inc('h')]);
    await expect(db.pool.query(sql.unsafe`UPDATE event_log SET type = 'X' WHERE stream_id = 'counter-h'`)).rejects.toThrow(/append-only/);
    await expect(db.pool.query(sql.unsafe`DELETE FROM event_log WHERE stream_id = 'counter-h'`)).rejects.toThrow(/append-only/);
  });
});

describe('read', () => {
  it('upcasts events stored with an older schema version', async () => {
    await db.pool.query(sql.unsafe`
      INSERT INTO event_log (event_id, stream_id, stream_position, type, schema_version, scope, occurred_at, data)
      VALUES (gen_random_uuid(), 'task-1', 1, 'TaskRenamed', 1, 'user:1', now(), '{"taskId":1,"name":"old"}')`);
    await store.append('task-1', [{ type: 'TaskRenamed', scope: 'user:1', data: { taskId: 1, title: 'new' } }]);
    const events = await store.readStream('task-1');
    expect(events.map((e) => [e.schemaVersion, e.data])).toEqual([
      [1, { taskId: 1, title: 'old' }],
      [2, { taskId: 1, title: 'new' }],
    ]);
  });

  it('refuses to read an event stored as invalid rather than passing it on', async () => {
    await db.pool.query(sql.unsafe`
      INSERT INTO event_log (event_id, stream_id, stream_position, type, schema_version, scope, occurred_at, data)
      VALUES (gen_random_uuid(), 'task-bad', 1, 'TaskRenamed', 2, 'user:1', now(), '{"taskId":-4}')`);
    await expect(store.readStream('task-bad')).rejects.toBeInstanceOf(EventSchemaError);
  });

  it('does not return events of a transaction that is still open, nor anything after them', async () => {
    await store.append('counter-r', [inc('r')]);
    const head = await store.headPosition();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => (inside = resolve));
    const slow = store.append('counter-slow', [inc('slow')], {
      withinTransaction: async () => {
        inside();
        await held;
      },
    });
    await opened;
    const fast = await store.append('counter-fast', [inc('fast')]);
    // The fast append committed, but an older transaction is open: a reader must not move past it yet.
    const visible = await store.readAfter(db.pool, head, 100);
    expect(visible.map((e) => e.streamId)).not.toContain('counter-fast');
    release();
    await slow;
    const after = await store.readAfter(db.pool, head, 100);
    expect(after.map((e) => e.streamId)).toEqual(['counter-slow', 'counter-fast']);
    expect(comparePositions(after[1]!, fast.lastPosition)).toBe(0);
  });

  it('reads the whole log in (txid, gpos) order from the start', async () => {
    const all = await store.readAfter(db.pool, LOG_START, 10_000, { decode: false });
    for (let i = 1; i < all.length; i += 1) expect(comparePositions(all[i - 1]!, all[i]!)).toBe(-1);
  });
});
