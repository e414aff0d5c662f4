import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from '@otog/platform/db/pool';
import { comparePositions } from '@otog/platform/eventstore/position';
import { readCheckpoint } from '@otog/platform/runner/checkpoints';
import { createRebuildSlot, cutover, CutoverRefusedError, listSlots, liveTables } from '@otog/platform/runner/projection-slots';
import { skipNextEvent } from '@otog/platform/runner/skip';
import { ConsumerFaultedError } from '@otog/platform/transport/event-transport';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { ledgerProjection } from '../support/test-projections.ts';
import { dumpTable, startTestProjector, type TestProjector } from '../support/test-runtime.ts';

let db: TestDatabase;
const projectors: TestProjector[] = [];
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  await Promise.all(projectors.splice(0).map((p) => p.stop()));
  await db.drop();
});
const start = async (...args: Parameters<typeof startTestProjector> extends [unknown, ...infer R] ? R : never) => {
  const projector = await startTestProjector(db, ...args);
  projectors.push(projector);
  return projector;
};

async function appendMany(projector: TestProjector, streams: number, perStream: number) {
  let last = { txid: 0n, gpos: 0n, scope: '' };
  await Promise.all(
    Array.from({ length: streams }, async (_, s) => {
      for (let i = 1; i <= perStream; i += 1) {
        const result = await projector.store.append(`counter-${s}`, [
          { type: 'CounterIncremented', scope: `user:${s}`, data: { counter: `c${s}`, by: i, seq: i } },
        ]);
        if (comparePositions(result.lastPosition, last) > 0) last = { ...result.lastPosition, scope: `user:${s}` };
      }
    }),
  );
  return last;
}

describe('rebuild and blue/green cutover', () => {
  it('a projection rebuilt from the log equals the live one row for row, then takes over', async () => {
    const projection = ledgerProjection();
    const projector = await start([projection], { autoCutover: false });
    const head = await appendMany(projector, 4, 40);
    await projector.runner.waitFor('ledger', head);

    const version = await createRebuildSlot(db.pool, projection);
    expect(version).toBe(2);
    await expect(cutover(db.pool, projector.store, projection, version)).rejects.toBeInstanceOf(CutoverRefusedError);
    await projector.runner.refresh();
    const slots = await listSlots(db.pool, 'ledger');
    expect(slots.map((s) => [s.version, s.state])).toEqual([[1, 'live'], [2, 'building']]);
    // Wait for the building slot through its checkpoint.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const checkpoint = await readCheckpoint(db.pool, { consumer: 'projection:ledger:v2', source: 'pglog', part: '*' });
      if (checkpoint && comparePositions(checkpoint, head) >= 0) break;
      if (Date.now() > deadline) throw new Error('rebuild did not catch up');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    for (const [table, key] of [['applied', 'n'], ['totals', 'counter']] as const) {
      const live = await dumpTable(db, `rm_ledger_v1_${table}`, key);
      const rebuilt = await dumpTable(db, `rm_ledger_v2_${table}`, key);
      expect(live.length).toBeGreaterThan(0);
      expect(rebuilt).toEqual(live);
    }

    expect(await cutover(db.pool, projector.store, projection, 2)).toEqual({ retired: 1 });
    expect((await liveTables(db.pool, projection))?.version).toBe(2);
    expect(await db.pool.exists(sql.unsafe`SELECT 1 FROM pg_tables WHERE tablename = 'rm_ledger_v1_applied'`)).toBe(false);
    await projector.runner.refresh();
    // The new live slot keeps folding new events; the runner serves waitFor from it.
    const more = await appendMany(projector, 1, 3);
    await projector.runner.waitFor('ledger', more);
    expect(await db.pool.oneFirst(sql.unsafe`SELECT events FROM rm_ledger_v2_totals WHERE counter = 'c0'`)).toBe(43);
  });

  it('a new code version builds beside the live slot and cuts over by itself once caught up', async () => {
    const v1 = await start([ledgerProjection()]);
    const head = await appendMany(v1, 2, 20);
    await v1.runner.waitFor('ledger', head);
    await v1.stop();
    projectors.splice(0);

    const v2 = await start([ledgerProjection({ version: 2 })], { refreshIntervalMs: 50 });
    const deadline = Date.now() + 20_000;
    while ((await liveTables(db.pool, ledgerProjection({ version: 2 })))?.version !== 2) {
      if (Date.now() > deadline) throw new Error('no automatic cutover');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.version, s.state])).toEqual([[1, 'retired'], [2, 'live']]);
    expect(await db.pool.oneFirst(sql.unsafe`SELECT sum(events) FROM rm_ledger_v2_totals`)).toBe(40n);
    await v2.runner.waitFor('ledger', head);
  });
});

describe('faults', () => {
  it('retries a failing handler, then faults naming the event, never skipping it; skip is explicit', async () => {
    const projection = ledgerProjection({ failOnBy: -999 });
    const projector = await start([projection], { subscribeOptions: { maxAttempts: 3 } });
    const ok = await projector.store.append('counter-f', [
      { type: 'CounterIncremented', scope: 'user:f', data: { counter: 'f', by: 1 } },
      { type: 'CounterIncremented', scope: 'user:f', data: { counter: 'f', by: 2 } },
    ]);
    const poison = await projector.store.append('counter-f', [{ type: 'CounterIncremented', scope: 'user:f', data: { counter: 'f', by: -999 } }]);
    const after = await projector.store.append('counter-f', [{ type: 'CounterIncremented', scope: 'user:f', data: { counter: 'f', by: 5 } }]);
    await projector.runner.waitFor('ledger', { ...ok.lastPosition, scope: 'user:f' });
    const waiting = projector.runner.waitFor('ledger', { ...after.lastPosition, scope: 'user:f' });
    await expect(waiting).rejects.toBeInstanceOf(ConsumerFaultedError);

    const key = { consumer: 'projection:ledger:v1', source: 'pglog' as const, part: '*' };
    const checkpoint = await readCheckpoint(db.pool, key);
    expect(checkpoint?.status).toBe('faulted');
    expect(checkpoint?.error).toMatchObject({ eventId: poison.events[0]!.eventId, message: 'refusing by=-999', attempts: 3 });
    expect(checkpoint?.gpos).toBe(ok.lastPosition.gpos);
    expect(await db.pool.oneFirst(sql.unsafe`SELECT total FROM rm_ledger_v1_totals`)).toBe(3n);

    const skipped = await skipNextEvent(db.pool, projector.store, key);
    expect(skipped.eventId).toBe(poison.events[0]!.eventId);
    await projector.runner.waitFor('ledger', { ...after.lastPosition, scope: 'user:f' });
    expect(await db.pool.oneFirst(sql.unsafe`SELECT total FROM rm_ledger_v1_totals`)).toBe(8n);
    expect((await readCheckpoint(db.pool, key))?.error).toMatchObject({ skipped: { eventId: poison.events[0]!.eventId } });
  });
});
