/**
 * Shared bench fixtures: the trivial fold, a fast log builder (large appends through the real event store),
 * and a helper that folds one projection slot from its checkpoint to the head of the log and times it.
 */
import { createPool, type DatabasePool, type Interceptor } from 'slonik';
import { createPgDriverFactory } from '@slonik/pg-driver';
import { sql } from '@otog/platform/db/pool';
import type { NotificationListener } from '@otog/platform/db/listen';
import type { EventStore, NewEvent } from '@otog/platform/eventstore/event-store';
import { comparePositions, LOG_START, type Position } from '@otog/platform/eventstore/position';
import type { EventConsumer } from '@otog/platform/runner/consumer';
import { projectionOver, slotConsumerName, slotTables, type ProjectionDefinition } from '@otog/platform/runner/projection';
import type { TestEventMap } from '../../tests/support/test-events.ts';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { int, now, progressPrinter } from './stats.ts';

export const COUNTERS = 16;

const defineProjection = projectionOver<TestEventMap>();

export function counterEvent(i: number): NewEvent {
  return {
    type: 'CounterIncremented',
    scope: `user:${i % 100}`,
    data: { counter: `c${i % COUNTERS}`, by: 1 + (i % 7), seq: i },
  };
}

/**
 * The trivial fold: per batch, sums `by` per counter in memory and writes them with one multi-row upsert
 * (at most 16 rows). One statement per batch, so it measures the runner, not the read model.
 */
export function counterSumProjection(name = 'counter_sum', version = 1) {
  return defineProjection({
    name,
    version,
    tables: ['totals'],
    async setup(tx, t) {
      await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.totals} (
        counter text PRIMARY KEY, total bigint NOT NULL, events bigint NOT NULL)`);
    },
    batch: {
      handles: ['CounterIncremented'],
      async apply(tx, events, t) {
      const sums = new Map<string, { total: number; events: number }>();
      for (const { data } of events) {
        const entry = sums.get(data.counter) ?? { total: 0, events: 0 };
        entry.total += data.by;
        entry.events += 1;
        sums.set(data.counter, entry);
      }
      await tx.query(sql.unsafe`
        INSERT INTO ${t.totals} (counter, total, events)
        SELECT * FROM ${sql.unnest(
          [...sums].map(([counter, s]) => [counter, s.total, s.events]),
          ['text', 'int8', 'int8'],
        )}
        ON CONFLICT (counter) DO UPDATE SET total = ${t.totals}.total + excluded.total, events = ${t.totals}.events + excluded.events`);
      },
    },
  });
}

/**
 * ledgerProjection (tests/support/test-projections.ts) with the same tables and the same resulting rows,
 * but the per-counter totals aggregated in memory and written with one upsert per batch instead of one
 * per event: shows what batching a realistic fold's writes is worth.
 */
export function batchedLedgerProjection(name = 'ledger_batched', version = 1) {
  return defineProjection({
    name,
    version,
    tables: ['applied', 'totals'],
    async setup(tx, t) {
      await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.applied} (
        n bigserial PRIMARY KEY, event_id uuid NOT NULL, txid xid8 NOT NULL, gpos bigint NOT NULL,
        stream_id text NOT NULL, seq int, occurred_at timestamptz NOT NULL)`);
      await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.totals} (
        counter text PRIMARY KEY, total bigint NOT NULL, events int NOT NULL, last_seq int)`);
    },
    batch: {
      handles: ['CounterIncremented'],
      async apply(tx, events, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.applied} (event_id, txid, gpos, stream_id, seq, occurred_at)
        SELECT * FROM ${sql.unnest(
          events.map((e) => [e.eventId, e.txid.toString(), e.gpos.toString(), e.streamId, e.data.seq ?? null, e.occurredAt]),
          ['uuid', 'xid8', 'int8', 'text', 'int4', 'timestamptz'],
        )}`);
      const totals = new Map<string, { total: number; events: number; lastSeq: number | null }>();
      for (const { data } of events) {
        const entry = totals.get(data.counter) ?? { total: 0, events: 0, lastSeq: null };
        entry.total += data.by;
        entry.events += 1;
        entry.lastSeq = data.seq ?? null;
        totals.set(data.counter, entry);
      }
      await tx.query(sql.unsafe`
        INSERT INTO ${t.totals} (counter, total, events, last_seq)
        SELECT * FROM ${sql.unnest(
          [...totals].map(([counter, x]) => [counter, x.total, x.events, x.lastSeq]),
          ['text', 'int8', 'int4', 'int4'],
        )}
        ON CONFLICT (counter) DO UPDATE SET total = ${t.totals}.total + excluded.total,
          events = ${t.totals}.events + excluded.events, last_seq = excluded.last_seq`);
      },
    },
  });
}

/**
 * Appends `total` CounterIncremented events through the real event store, `batch` events per append
 * (one transaction each), from `writers` concurrent writers, each append to a new stream.
 */
export async function buildLog(
  store: EventStore,
  total: number,
  options: { batch: number; writers: number; label?: string; quiet?: boolean },
): Promise<{ elapsedMs: number; eventsPerSecond: number; head: Position }> {
  const progress = progressPrinter(options.label ?? 'building log', total);
  let next = 0;
  let done = 0;
  const started = now();
  await Promise.all(
    Array.from({ length: options.writers }, async (_, writer) => {
      for (let k = 0; ; k += 1) {
        const first = next;
        if (first >= total) return;
        const count = Math.min(options.batch, total - first);
        next += count;
        const events = Array.from({ length: count }, (_, j) => counterEvent(first + j));
        await store.append(`bulk-w${writer}-${k}`, events);
        done += count;
        if (!options.quiet) progress.update(done);
      }
    }),
  );
  const elapsedMs = now() - started;
  if (!options.quiet) progress.update(done, true);
  return { elapsedMs, eventsPerSecond: (total / elapsedMs) * 1000, head: await store.headPosition() };
}

/**
 * Resolves when a batch's checkpoint reaches `head` (from onBatch: no polling queries that would add load
 * and show up in the profiles); rejects on a fault or after `timeoutMs`.
 */
export function untilHead(head: Position, timeoutMs: number) {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const timer = setTimeout(() => reject(new Error(`did not reach the head within ${timeoutMs} ms`)), timeoutMs);
  return {
    promise,
    onBatch(info: { checkpoint: Position }) {
      if (comparePositions(info.checkpoint, head) >= 0) resolve();
    },
    onFault(info: { eventId: string | null; message: string }) {
      reject(new Error(`consumer faulted at ${info.eventId ?? '?'}: ${info.message}`));
    },
    cancel: () => clearTimeout(timer),
  };
}

export interface FoldResult {
  readonly elapsedMs: number;
  readonly applied: number;
  readonly batches: number;
  readonly eventsPerSecond: number;
  /** Time spent in the projection's apply (inside the batch transaction). */
  readonly handlerMs: number;
}

/**
 * Folds a slot (whose tables and checkpoint exist: ensureCodeSlot / createRebuildSlot) from its checkpoint
 * to `head` through the Postgres-log transport, exactly as the runner would (same consumer, same options).
 */
export async function foldToHead(options: {
  pool: DatabasePool;
  store: EventStore;
  listener: NotificationListener;
  definition: ProjectionDefinition;
  version: number;
  head: Position;
  expected: number;
  batchSize?: number;
  label?: string;
  progress?: boolean;
  timeoutMs?: number;
  /** Read every event and let the fold pass over the others (how consumers read before type-filtered reads). */
  readEveryType?: boolean;
}): Promise<FoldResult> {
  const { pool, store, listener, definition, version } = options;
  const tables = slotTables(definition, version);
  let handlerMs = 0;
  const consumer: EventConsumer = {
    name: slotConsumerName(definition.name, version),
    ...(options.readEveryType ? {} : { types: definition.handles }),
    async handle(tx, events) {
      const t = now();
      await definition.apply(tx, events, tables);
      handlerMs += now() - t;
    },
  };
  const transport = createPgLogTransport({ pool, store, listener, pollIntervalMs: 50 });
  const progress = progressPrinter(options.label ?? `${definition.name} v${version}`, options.expected);
  let applied = 0;
  let batches = 0;
  const reached = untilHead(options.head, options.timeoutMs ?? 1_800_000);
  const started = now();
  const subscription = await transport.subscribe(consumer, {
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    onBatch(info) {
      applied += info.applied;
      batches += 1;
      if (options.progress) progress.update(applied);
      reached.onBatch(info);
    },
    onFault: reached.onFault,
  });
  try {
    await reached.promise;
  } finally {
    reached.cancel();
    await subscription.stop();
  }
  const elapsedMs = now() - started;
  if (options.progress) progress.update(applied, true);
  if (applied !== options.expected) throw new Error(`${consumer.name}: applied ${int(applied)} events, expected ${int(options.expected)}`);
  return { elapsedMs, applied, batches, eventsPerSecond: (applied / elapsedMs) * 1000, handlerMs };
}

/** The typeParsers of services/platform/src/db/pool.ts, for a profiling pool with a query-timing interceptor. */
const typeParsers = [
  { name: 'int8', parse: (value: string) => BigInt(value) },
  { name: 'xid8', parse: (value: string) => BigInt(value) },
  { name: 'timestamptz', parse: (value: string) => new Date(value).toISOString() },
];

export interface QueryProfile {
  readonly label: string;
  calls: number;
  totalMs: number;
}

/** Names a statement by what it is for (or its first words), so identical queries are grouped. */
function queryLabel(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (/^SELECT pg_notify/i.test(flat)) return 'SELECT pg_notify(...)';
  if (/^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK)/i.test(flat)) return flat.split(' ').slice(0, 2).join(' ').toUpperCase();
  if (/FROM consumer_checkpoints/i.test(flat) && /FOR UPDATE/i.test(flat)) return 'lock checkpoint (SELECT … FOR UPDATE SKIP LOCKED)';
  if (/^UPDATE consumer_checkpoints/i.test(flat)) return 'advance checkpoint (UPDATE consumer_checkpoints)';
  if (/FROM event_log/i.test(flat) && /pg_snapshot_xmin/i.test(flat) && /LIMIT/i.test(flat)) return 'readAfter (SELECT … FROM event_log)';
  if (/^INSERT INTO "rm_/i.test(flat)) return `fold write: ${flat.slice(0, 60)}…`;
  if (/^SELECT pg_advisory_xact_lock\(hashtextextended/i.test(flat)) return 'append: per-stream lock (pg_advisory_xact_lock)';
  if (/^SELECT coalesce\(\(SELECT max\(stream_position\)/i.test(flat)) return 'append: stream version + duplicate-id check (one SELECT)';
  if (/^WITH appended AS \( INSERT INTO event_log/i.test(flat)) return 'append: INSERT INTO event_log … unnest … RETURNING (+ pg_notify)';
  return flat.slice(0, 70);
}

/**
 * A pool like createDbPool's (same type parsers, no connection reset on release), plus an interceptor
 * that adds up wall time per statement shape (from slonik receiving the query to its result rows being
 * parsed). BEGIN/SAVEPOINT/COMMIT are not seen by interceptors.
 */
export async function createProfilingPool(url: string): Promise<{ pool: DatabasePool; profile: Map<string, QueryProfile> }> {
  const profile = new Map<string, QueryProfile>();
  const interceptor: Interceptor = {
    name: 'bench-query-timer',
    beforeQueryResult(context, query) {
      const elapsed = Number(process.hrtime.bigint() - BigInt(context.queryInputTime)) / 1e6;
      add(queryLabel(query.sql), elapsed);
      return null;
    },
  };
  const add = (label: string, elapsed: number) => {
    const entry = profile.get(label) ?? { label, calls: 0, totalMs: 0 };
    entry.calls += 1;
    entry.totalMs += elapsed;
    profile.set(label, entry);
  };
  const pool = await createPool(url, {
    // As createDbPool: no DISCARD ALL on release (nothing keeps session state on pooled connections).
    resetConnection: async () => undefined,
    driverFactory: createPgDriverFactory(),
    typeParsers,
    maximumPoolSize: 12,
    statementTimeout: 600_000,
    idleInTransactionSessionTimeout: 60_000,
    captureStackTrace: false,
    interceptors: [interceptor],
  });
  return { pool, profile };
}

export { LOG_START };
