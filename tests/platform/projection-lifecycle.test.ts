import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from '@otog/platform/db/pool';
import { comparePositions } from '@otog/platform/eventstore/position';
import { readCheckpoint } from '@otog/platform/runner/checkpoints';
import { createRebuildSlot, cutover, dropRetiredSlots, listSlots, SlotChangeRefusedError } from '@otog/platform/runner/projection-slots';
import { liveSlot } from '@otog/platform/runner/read-model';
import { skipNextEvent } from '@otog/platform/runner/skip';
import { ConsumerFaultedError } from '@otog/platform/transport/event-transport';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { ledgerProjection } from '../support/test-projections.ts';
import { dumpTable, startTestProjector, type TestProjector } from '../support/test-runtime.ts';
import { until } from '../support/until.ts';

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
    await expect(cutover(db.pool, projector.store, projection, version)).rejects.toBeInstanceOf(SlotChangeRefusedError);
    await projector.runner.refresh();
    const slots = await listSlots(db.pool, 'ledger');
    expect(slots.map((s) => [s.generation, s.codeVersion, s.state])).toEqual([[1, 1, 'live'], [2, 1, 'building']]);
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
    expect((await liveSlot(db.pool, projection))?.generation).toBe(2);
    // Retired, not dropped: a reader that looked up v1 just before the cutover still reads it.
    expect(await dumpTable(db, 'rm_ledger_v1_totals', 'counter')).toEqual(await dumpTable(db, 'rm_ledger_v2_totals', 'counter'));
    await projector.runner.refresh();
    // The new live slot keeps folding new events; the runner serves waitFor from it.
    const more = await appendMany(projector, 1, 3);
    await projector.runner.waitFor('ledger', more);
    expect(await db.pool.oneFirst(sql.unsafe`SELECT events FROM rm_ledger_v2_totals WHERE counter = 'c0'`)).toBe(43);
    // Nobody folds the retired slot any more; the drop is a later step of its own.
    expect(await db.pool.oneFirst(sql.unsafe`SELECT events FROM rm_ledger_v1_totals WHERE counter = 'c0'`)).toBe(40);
    expect(await dropRetiredSlots(db.pool, { olderThanMs: 60_000 })).toEqual([]);
    expect(await dropRetiredSlots(db.pool, { olderThanMs: 0 })).toEqual([{ projection: 'ledger', generation: 1 }]);
    expect(await db.pool.exists(sql.unsafe`SELECT 1 FROM pg_tables WHERE tablename IN ('rm_ledger_v1_applied', 'rm_ledger_v1_totals')`)).toBe(false);
    expect(await readCheckpoint(db.pool, { consumer: 'projection:ledger:v1', source: 'pglog', part: '*' })).toBeNull();
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.generation, s.state])).toEqual([[2, 'live']]);
  });

  it('a rebuild made for a manual cutover stays building once caught up, kept current, until it is cut over', async () => {
    const projection = ledgerProjection();
    const projector = await start([projection], { refreshIntervalMs: 50 });
    await projector.runner.waitFor('ledger', await appendMany(projector, 2, 10));
    expect(await createRebuildSlot(db.pool, projection, { manualCutover: true })).toBe(2);
    const head = await appendMany(projector, 2, 5);
    await until('the rebuild has caught up', async () => {
      const slot = (await listSlots(db.pool, 'ledger')).find((s) => s.generation === 2);
      return slot !== undefined && comparePositions(slot, head) >= 0;
    }, 20_000);
    // Several refreshes of the auto-cutover runner later, it is still waiting for the operator.
    for (let i = 0; i < 3; i += 1) await projector.runner.refresh();
    await projector.runner.waitFor('ledger', head);
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.generation, s.state, s.manualCutover])).toEqual([
      [1, 'live', false],
      [2, 'building', true],
    ]);
    expect(await dumpTable(db, 'rm_ledger_v2_totals', 'counter')).toEqual(await dumpTable(db, 'rm_ledger_v1_totals', 'counter'));
    expect(await cutover(db.pool, projector.store, projection, 2)).toEqual({ retired: 1 });
    expect((await liveSlot(db.pool, projection))?.generation).toBe(2);
  });

  it('a new code version builds beside the live slot and cuts over by itself once caught up', async () => {
    const v1 = await start([ledgerProjection()]);
    const head = await appendMany(v1, 2, 20);
    await v1.runner.waitFor('ledger', head);
    await v1.stop();
    projectors.splice(0);

    const v2 = await start([ledgerProjection({ version: 2 })], { refreshIntervalMs: 50 });
    const deadline = Date.now() + 20_000;
    while ((await liveSlot(db.pool, ledgerProjection({ version: 2 })))?.generation !== 2) {
      if (Date.now() > deadline) throw new Error('no automatic cutover');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.generation, s.codeVersion, s.state])).toEqual([
      [1, 1, 'retired'],
      [2, 2, 'live'],
    ]);
    expect(await db.pool.oneFirst(sql.unsafe`SELECT sum(events) FROM rm_ledger_v2_totals`)).toBe(40n);
    await v2.runner.waitFor('ledger', head);
  });
});

describe('code versions', () => {
  const totals = async (generation: number) =>
    Object.fromEntries(
      (await dumpTable(db, `rm_ledger_v${generation}_totals`, 'counter')).map((row) => {
        const { counter, total } = row as { counter: string; total: bigint };
        return [counter, total];
      }),
    );
  /** The ledger's totals once appendMany(streams, n) for each n of `rounds` is folded with `scale`. */
  const expected = (streams: number, rounds: number[], scale: number) => {
    const sum = rounds.reduce((total, n) => total + (n * (n + 1)) / 2, 0);
    return Object.fromEntries(Array.from({ length: streams }, (_, s) => [`c${s}`, BigInt(scale * sum)]));
  };

  it('two code versions on one database: each node folds only its own slot; after the cutover the old node folds nothing and goes on', async () => {
    const v1 = await start([ledgerProjection({ scale: 1 })], { refreshIntervalMs: 50 });
    const first = await appendMany(v1, 3, 10);
    await v1.runner.waitFor('ledger', first);
    const v2 = await start([ledgerProjection({ version: 2, scale: 10 })], { refreshIntervalMs: 50, autoCutover: false });
    // Both nodes run through these appends; a node that folded the other's slot would put its scale there.
    const both = await appendMany(v1, 3, 30);
    await until('the v2 slot has caught up', async () => {
      const checkpoint = await readCheckpoint(db.pool, { consumer: 'projection:ledger:v2', source: 'pglog', part: '*' });
      return checkpoint !== null && comparePositions(checkpoint, both) >= 0;
    }, 20_000);
    await v1.runner.waitFor('ledger', both);
    expect(await totals(1)).toEqual(expected(3, [10, 30], 1));
    expect(await totals(2)).toEqual(expected(3, [10, 30], 10));
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.generation, s.codeVersion, s.state])).toEqual([
      [1, 1, 'live'],
      [2, 2, 'building'],
    ]);

    expect(await cutover(db.pool, v2.store, ledgerProjection({ version: 2 }), 2)).toEqual({ retired: 1 });
    // The old node stops folding v1 and makes no slot of its own (its code is older than a slot's).
    await v1.runner.refresh();
    await v1.runner.refresh();
    const after = await appendMany(v1, 3, 2);
    // It answers waits from the checkpoint of the live slot, which the v2 node folds.
    await v1.runner.waitFor('ledger', after);
    await v2.runner.waitFor('ledger', after);
    expect(await totals(1)).toEqual(expected(3, [10, 30], 1));
    expect(await totals(2)).toEqual(expected(3, [10, 30, 2], 10));
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.generation, s.codeVersion, s.state])).toEqual([
      [1, 1, 'retired'],
      [2, 2, 'live'],
    ]);
    // Its slot is gone; it keeps refreshing without error.
    await expect(v1.runner.refresh()).resolves.toBeUndefined();
    await expect(createRebuildSlot(db.pool, ledgerProjection({ version: 1 }))).rejects.toBeInstanceOf(SlotChangeRefusedError);
  });

  it('after an operator rebuild, a code-version bump builds a slot of its own instead of folding new logic into the old code\'s tables', async () => {
    const v1 = await start([ledgerProjection({ scale: 1 })], { refreshIntervalMs: 50 });
    const head = await appendMany(v1, 2, 10);
    await v1.runner.waitFor('ledger', head);
    // The operator's rebuild: a second generation of the same code, cut over by the runner once caught up.
    expect(await createRebuildSlot(db.pool, ledgerProjection())).toBe(2);
    await until('the rebuild is live', async () => (await liveSlot(db.pool, ledgerProjection()))?.generation === 2, 20_000);
    await v1.stop();
    projectors.splice(0);
    const rebuilt = await totals(2);
    expect(rebuilt).toEqual(expected(2, [10], 1));

    const v2 = await start([ledgerProjection({ version: 2, scale: 10 })], { refreshIntervalMs: 50 });
    await until('the v2 code version is live', async () => (await liveSlot(db.pool, ledgerProjection()))?.generation === 3, 20_000);
    const more = await appendMany(v2, 2, 1);
    await v2.runner.waitFor('ledger', more);
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.generation, s.codeVersion, s.state])).toEqual([
      [1, 1, 'retired'],
      [2, 1, 'retired'],
      [3, 2, 'live'],
    ]);
    // The tables the v1 code built hold only what v1 folded.
    expect(await totals(2)).toEqual(rebuilt);
    expect(await totals(3)).toEqual(expected(2, [10, 1], 10));
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
