/**
 * Golden replay: every product projection folded live (the runner following appends as they commit, in
 * whatever batches they arrive) equals the same projection rebuilt from the log twice, once an event at a
 * time and once in large batches. A fold that reads the clock, depends on batch boundaries or on
 * anything but the log shows up here as a differing row.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allProjections } from '@otog/projections';
import type { NewEvent } from '@otog/platform/eventstore/event-store';
import { comparePositions, type Position } from '@otog/platform/eventstore/position';
import { slotConsumer } from '@otog/platform/runner/projection-runner';
import { createRebuildSlot, listSlots } from '@otog/platform/runner/projection-slots';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { startTestProjector, type TestProjector } from '../support/test-runtime.ts';
import { slotRows } from '../support/test-projections.ts';
import { samples } from './projection-samples/index.ts';

let db: TestDatabase;
let projector: TestProjector;
beforeAll(async () => {
  db = await createTestDatabase();
  projector = await startTestProjector(db, allProjections, { autoCutover: false });
});
afterAll(async () => {
  await projector?.stop();
  await db?.drop();
});

it('every product projection folded live equals two rebuilds from the log, row for row', async () => {
  // Each stream's first event in the samples' order (a contest exists before submissions name it, as the
  // API guarantees), then all the rest at once, each stream in order: the live fold sees them interleaved.
  const streams = allProjections.flatMap((projection) => samples[projection.name] ?? []);
  let head: Position & { scope: string } = { txid: 0n, gpos: 0n, scope: '' };
  const append = async (streamId: string, event: NewEvent) => {
    const { lastPosition } = await projector.store.append(streamId, [event]);
    if (comparePositions(lastPosition, head) > 0) head = { ...lastPosition, scope: event.scope };
  };
  for (const [streamId, [first]] of streams) if (first) await append(streamId, first);
  await Promise.all(
    streams.map(async ([streamId, [, ...rest]]) => {
      for (const event of rest) await append(streamId, event);
    }),
  );
  for (const projection of allProjections) await projector.runner.waitFor(projection.name, head, 20_000);
  // From here the rebuilds are folded only by this test, in the batch sizes it chooses.
  await projector.runner.stop();

  const transport = createPgLogTransport({ pool: db.pool, store: projector.store, listener: projector.listener, pollIntervalMs: 50 });
  for (const projection of allProjections) {
    const [live] = (await listSlots(db.pool, projection.name)).filter((slot) => slot.state === 'live');
    const rebuilt: number[] = [];
    for (const batchSize of [1, 1_000]) {
      const version = await createRebuildSlot(db.pool, projection);
      const subscription = await transport.subscribe(slotConsumer(projection, version), { batchSize });
      await subscription.waitFor(head, 20_000);
      await subscription.stop();
      rebuilt.push(version);
    }
    for (const table of projection.tables) {
      const dump = (version: number) => slotRows(db.pool, projection.name, version, table);
      const liveRows = await dump(live!.generation);
      expect(liveRows.length, `${projection.name}.${table} has rows`).toBeGreaterThan(0);
      for (const version of rebuilt) expect(await dump(version), `${projection.name}.${table} rebuilt as v${version}`).toEqual(liveRows);
    }
  }
}, 120_000);
