/**
 * Full rebuild: 1,000,000 events in the log (100,000 with --quick), a projection with a live slot, then
 * `createRebuildSlot` (the CLI's rebuild) and the time until the new slot's checkpoint reaches the head.
 */
import { sql } from '@otog/platform/db/pool';
import { createNotificationListener } from '@otog/platform/db/listen';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { createRebuildSlot, ensureCodeSlot, listSlots } from '@otog/platform/runner/projection-slots';
import { testRegistry } from '../tests/support/test-events.ts';
import type { BenchContext } from './lib/context.ts';
import { buildLog, counterSumProjection, foldToHead } from './lib/fixtures.ts';
import type { BenchResult } from './lib/report.ts';
import { createBenchDatabase, onCleanup } from './lib/services.ts';
import { int, seconds } from './lib/stats.ts';

const TARGET_MS = 60_000;
const BUILD_BATCH = 5_000;

export async function benchRebuild(context: BenchContext): Promise<BenchResult> {
  const total = context.quick ? 100_000 : 1_000_000;
  const db = await createBenchDatabase(context.adminUrl, 'rebuild');
  const listener = createNotificationListener(db.url);
  const closeListener = onCleanup('notification listener', () => listener.close());
  try {
    const store = createEventStore(db.pool, testRegistry);
    process.stdout.write(`  rebuild: appending ${int(total)} events (appends of ${int(BUILD_BATCH)}, 2 writers)\n`);
    const built = await buildLog(store, total, { batch: BUILD_BATCH, writers: 2, label: 'log' });
    await db.pool.query(sql.unsafe`VACUUM ANALYZE event_log`);
    const size = (await db.pool.oneFirst(sql.unsafe`SELECT pg_size_pretty(pg_total_relation_size('event_log'))`)) as string;

    const definition = counterSumProjection('counter_sum');
    await ensureCodeSlot(db.pool, definition); // v1 goes live (not folded here: this is the slot being replaced)
    const version = await createRebuildSlot(db.pool, definition);
    const state = (await listSlots(db.pool, definition.name)).find((s) => s.generation === version)?.state;
    process.stdout.write(`  rebuild: slot ${definition.name} v${version} (${state}) folding ${int(total)} events from the start of the log\n`);
    const result = await foldToHead({
      pool: db.pool,
      store,
      listener,
      definition,
      version,
      head: built.head,
      expected: total,
      label: 'rebuild',
      progress: true,
    });
    const counted = await db.pool.oneFirst(sql.unsafe`SELECT sum(events) FROM ${sql.identifier([`rm_counter_sum_v${version}_totals`])}`);
    if (BigInt(counted as bigint) !== BigInt(total)) throw new Error(`rebuild counted ${counted}, expected ${total}`);

    // The 60 s target is for 1,000,000 events; a quick run is judged on its extrapolation.
    const projectedMs = (result.elapsedMs * 1_000_000) / total;
    const label = context.quick ? `rebuild of 1,000,000 events (extrapolated from ${int(total)})` : 'rebuild of 1,000,000 events';
    return {
      id: 'rebuild',
      title: `Full rebuild of ${int(total)} events`,
      method: [
        `Log of ${int(total)} CounterIncremented events built with \`append\` (${int(BUILD_BATCH)} events per append, 2 writers), then VACUUM ANALYZE; event_log is ${size} with its indexes.`,
        '`ensureCodeSlot` makes v1 live; `createRebuildSlot` (what `projections rebuild` does) creates v2 `building` with its checkpoint at the log start. ' +
          'v2 is folded through the Postgres-log transport with the runner defaults (batch 500) until its checkpoint reaches the head.',
        'Fold: the trivial `counterSumProjection` (one upsert statement per batch), so the figure is the runner’s floor; the ledger fold’s rate is in the projection section.',
      ],
      figures: [
        {
          name: label,
          value: projectedMs,
          unit: 'ms',
          display: `${seconds(projectedMs)} s (${int(result.eventsPerSecond)} events/s)`,
          target: { op: '<', value: TARGET_MS, text: 'under 60 s' },
        },
      ],
      tables: [
        {
          header: ['step', 'events', 'time', 'events/s'],
          rows: [
            [`build the log (appends of ${int(BUILD_BATCH)}, 2 writers)`, int(total), `${seconds(built.elapsedMs)} s`, int(built.eventsPerSecond)],
            [`rebuild slot v${version} to the head (batch 500)`, int(result.applied), `${seconds(result.elapsedMs)} s`, int(result.eventsPerSecond)],
          ],
        },
      ],
      notes: [],
    };
  } finally {
    await closeListener();
    await db.drop();
  }
}
