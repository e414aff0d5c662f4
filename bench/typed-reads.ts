/**
 * What events a projection does not handle cost it: a log where 90 % of the events are of a type the fold
 * ignores (standing in for chat), folded with the type-filtered read (the events never leave Postgres) and
 * with a read of every event (decoded, then passed over), against a log of the handled events alone.
 */
import { createNotificationListener } from '@otog/platform/db/listen';
import { createEventStore, type EventStore, type NewEvent } from '@otog/platform/eventstore/event-store';
import type { Position } from '@otog/platform/eventstore/position';
import { createRebuildSlot, ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { testRegistry } from '../tests/support/test-events.ts';
import type { BenchContext } from './lib/context.ts';
import { counterEvent, counterSumProjection, foldToHead, type FoldResult } from './lib/fixtures.ts';
import type { BenchResult } from './lib/report.ts';
import { createBenchDatabase } from './lib/services.ts';
import { int, seconds } from './lib/stats.ts';

const IGNORED_PER_HANDLED = 9;
const TARGET = { op: '<' as const, value: 10, text: '< 10 % of what they cost before type-filtered reads' };

const ignoredEvent = (i: number): NewEvent => ({ type: 'TaskRenamed', scope: `user:${i % 100}`, data: { taskId: i + 1, title: `message ${i}` } });

/** `handled` counter events, each followed by IGNORED_PER_HANDLED others when `mixed`, in appends of about 1,000. */
async function buildLog(store: EventStore, handled: number, mixed: boolean): Promise<Position> {
  const perAppend = mixed ? 100 : 1_000;
  for (let first = 0, k = 0; first < handled; first += perAppend, k += 1) {
    const events = Array.from({ length: Math.min(perAppend, handled - first) }, (_, j) => first + j).flatMap((i) =>
      mixed ? [counterEvent(i), ...Array.from({ length: IGNORED_PER_HANDLED }, (_, m) => ignoredEvent(i * IGNORED_PER_HANDLED + m))] : [counterEvent(i)],
    );
    await store.append(`typed-reads-${k}`, events);
  }
  return store.headPosition();
}

export async function benchTypedReads(context: BenchContext): Promise<BenchResult> {
  const handled = context.quick ? 5_000 : 20_000;
  const definition = counterSumProjection('typed_reads');
  const folds: Array<{ label: string; result: FoldResult }> = [];
  for (const mixed of [false, true]) {
    const db = await createBenchDatabase(context.adminUrl, mixed ? 'typed_mixed' : 'typed_alone');
    const listener = createNotificationListener(db.url);
    try {
      const store = createEventStore(db.pool, testRegistry);
      process.stdout.write(`  typed-reads: appending ${int(mixed ? handled * (1 + IGNORED_PER_HANDLED) : handled)} events\n`);
      const head = await buildLog(store, handled, mixed);
      const ways = mixed ? [false, true] : [false];
      for (const readEveryType of ways) {
        const version = readEveryType ? await createRebuildSlot(db.pool, definition) : (await ensureCodeSlot(db.pool, definition))[0]!;
        const label = !mixed ? 'handled events alone' : readEveryType ? '90 % other events, every event read' : '90 % other events, type-filtered read';
        process.stdout.write(`  typed-reads: ${label}… `);
        // Reading every event hands them all to the fold, which passes over the others.
        const expected = readEveryType ? handled * (1 + IGNORED_PER_HANDLED) : handled;
        const result = await foldToHead({ pool: db.pool, store, listener, definition, version, head, expected, readEveryType });
        process.stdout.write(`${seconds(result.elapsedMs)} s\n`);
        folds.push({ label, result });
      }
    } finally {
      await listener.close();
      await db.drop();
    }
  }
  const [alone, filtered, everything] = [folds[0]!.result, folds[1]!.result, folds[2]!.result];
  const ignored = handled * IGNORED_PER_HANDLED;
  const costBefore = Math.max(0, everything.elapsedMs - alone.elapsedMs);
  const costNow = Math.max(0, filtered.elapsedMs - alone.elapsedMs);
  const share = costBefore > 0 ? (100 * costNow) / costBefore : 0;
  return {
    id: 'typed-reads',
    title: 'Events a projection does not handle',
    method: [
      `${int(handled)} CounterIncremented events folded by the trivial fold (counterSumProjection), once alone and once with ` +
        `${IGNORED_PER_HANDLED} TaskRenamed events after each (${int(ignored)} events the fold ignores, 90 % of the log), from the start of the log to its head ` +
        'through the Postgres-log transport with the runner\'s default batch (500).',
      'Type-filtered read: the consumer declares its types, so the read selects only those in Postgres and moves the checkpoint past the rest. ' +
        'Every event read: the consumer declares none, as before, so every event is read, decoded and passed over by the fold.',
      'Cost of the ignored events = fold time on the mixed log − fold time on the handled events alone.',
    ],
    figures: [
      {
        name: 'time the ignored events cost with type-filtered reads, as a share of their cost when every event is read',
        value: share,
        unit: '%',
        display: `${share.toFixed(1)} % (${seconds(costNow)} s against ${seconds(costBefore)} s for ${int(ignored)} ignored events)`,
        target: TARGET,
      },
    ],
    tables: [
      {
        title: 'Folding the same handled events',
        header: ['log', 'time', 'handled events/s', 'batches'],
        rows: folds.map(({ label, result }) => [label, `${seconds(result.elapsedMs)} s`, int((handled / result.elapsedMs) * 1000), int(result.batches)]),
      },
    ],
    notes: [`Per ignored event: ${((1000 * costBefore) / ignored).toFixed(1)} µs when read, ${((1000 * costNow) / ignored).toFixed(2)} µs with the filter.`],
  };
}
