/**
 * Projection throughput: a slot folding a backlog of CounterIncremented events from the start of the log
 * to its head through the Postgres-log transport (what the runner does), for the trivial fold and for the
 * realistic ledgerProjection; plus a profile of where a batch's time goes.
 */
import pg from 'pg';
import { sql } from '@otog/platform/db/pool';
import { createNotificationListener } from '@otog/platform/db/listen';
import { createEventStore, type StoredEvent } from '@otog/platform/eventstore/event-store';
import { LOG_START, type Position } from '@otog/platform/eventstore/position';
import { ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import type { ProjectionDefinition } from '@otog/platform/runner/projection';
import { testRegistry } from '../tests/support/test-events.ts';
import { ledgerProjection } from '../tests/support/test-projections.ts';
import type { BenchContext } from './lib/context.ts';
import { batchedLedgerProjection, buildLog, counterSumProjection, createProfilingPool, foldToHead, type FoldResult } from './lib/fixtures.ts';
import type { BenchResult, Figure, Table } from './lib/report.ts';
import { createBenchDatabase, onCleanup } from './lib/services.ts';
import { int, ms, now, seconds } from './lib/stats.ts';

const TARGET = { op: '>=' as const, value: 20_000, text: '≥ 20,000 events/s' };
const DEFAULT_BATCH = 500; // pglog-transport's default, which the projection runner uses

interface Row {
  readonly projection: string;
  readonly batchSize: number;
  readonly result: FoldResult;
}

/** Reads the whole log page by page in (txid, gpos) order, the way the transport does, without folding. */
async function scanLog(
  read: (after: Position, limit: number) => Promise<ReadonlyArray<Position>>,
  total: number,
  page: number,
): Promise<number> {
  let after: Position = LOG_START;
  let seen = 0;
  const t = now();
  for (;;) {
    const rows = await read(after, page);
    if (rows.length === 0) break;
    seen += rows.length;
    after = rows[rows.length - 1]!;
  }
  const elapsed = now() - t;
  if (seen !== total) throw new Error(`scan saw ${seen} events, expected ${total}`);
  return (seen / elapsed) * 1000;
}

export async function benchProjection(context: BenchContext): Promise<BenchResult> {
  const total = context.quick ? 50_000 : 200_000;
  const ledgerTotal = context.quick ? 20_000 : 50_000;
  const db = await createBenchDatabase(context.adminUrl, 'projection');
  const listener = createNotificationListener(db.url);
  const closeListener = onCleanup('notification listener', () => listener.close());
  const rows: Row[] = [];
  const tables: Table[] = [];
  const notes: string[] = [];
  try {
    const store = createEventStore(db.pool, testRegistry);
    process.stdout.write(`  projection: appending ${int(total)} events (batches of 1,000, 2 writers)\n`);
    const built = await buildLog(store, total, { batch: 1_000, writers: 2, label: 'log' });
    const head = built.head;

    const fold = async (definition: ProjectionDefinition, batchSize: number, label: string) => {
      const [version] = await ensureCodeSlot(db.pool, definition);
      process.stdout.write(`  projection: ${label} (batch ${batchSize})… `);
      const result = await foldToHead({ pool: db.pool, store, listener, definition, version: version!, head, expected: total, batchSize });
      process.stdout.write(`${int(result.eventsPerSecond)} events/s (${seconds(result.elapsedMs)} s)\n`);
      rows.push({ projection: label, batchSize, result });
      return result;
    };

    const trivial = await fold(counterSumProjection('counter_sum'), DEFAULT_BATCH, 'trivial fold');
    await fold(counterSumProjection('counter_sum_b2000'), 2_000, 'trivial fold');
    // Check the trivial fold's output once: every event counted exactly once.
    const counted = await db.pool.oneFirst(sql.unsafe`SELECT sum(events) FROM rm_counter_sum_v1_totals`);
    if (BigInt(counted as bigint) !== BigInt(total)) throw new Error(`counter_sum counted ${counted}, expected ${total}`);

    // The realistic fold on its own, smaller log (it is an order of magnitude slower).
    const ledgerDb = await createBenchDatabase(context.adminUrl, 'ledger');
    const ledgerListener = createNotificationListener(ledgerDb.url);
    try {
      const ledgerStore = createEventStore(ledgerDb.pool, testRegistry);
      const ledgerHead = (await buildLog(ledgerStore, ledgerTotal, { batch: 1_000, writers: 2, quiet: true })).head;
      const definition = ledgerProjection();
      const [version] = await ensureCodeSlot(ledgerDb.pool, definition);
      process.stdout.write(`  projection: ledger (batch ${DEFAULT_BATCH}, ${int(ledgerTotal)} events)… `);
      const result = await foldToHead({
        pool: ledgerDb.pool,
        store: ledgerStore,
        listener: ledgerListener,
        definition,
        version: version!,
        head: ledgerHead,
        expected: ledgerTotal,
        batchSize: DEFAULT_BATCH,
      });
      process.stdout.write(`${int(result.eventsPerSecond)} events/s (${seconds(result.elapsedMs)} s)\n`);
      rows.push({ projection: 'ledger (test-projections.ts)', batchSize: DEFAULT_BATCH, result });

      const batched = batchedLedgerProjection();
      const [batchedVersion] = await ensureCodeSlot(ledgerDb.pool, batched);
      process.stdout.write(`  projection: ledger_batched (batch ${DEFAULT_BATCH}, ${int(ledgerTotal)} events)… `);
      const batchedResult = await foldToHead({
        pool: ledgerDb.pool,
        store: ledgerStore,
        listener: ledgerListener,
        definition: batched,
        version: batchedVersion!,
        head: ledgerHead,
        expected: ledgerTotal,
        batchSize: DEFAULT_BATCH,
      });
      process.stdout.write(`${int(batchedResult.eventsPerSecond)} events/s (${seconds(batchedResult.elapsedMs)} s)\n`);
      rows.push({ projection: 'ledger, totals written once per batch (bench/lib/fixtures.ts)', batchSize: DEFAULT_BATCH, result: batchedResult });
      // Same read model as the per-event ledger, row for row.
      const dump = (table: string) =>
        ledgerDb.pool.any(sql.unsafe`SELECT counter, total, events, last_seq FROM ${sql.identifier([table])} ORDER BY counter`);
      const [a, b] = [await dump(`rm_ledger_v${version!}_totals`), await dump(`rm_ledger_batched_v${batchedVersion!}_totals`)];
      if (JSON.stringify(a, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) !==
        JSON.stringify(b, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) {
        throw new Error('ledger_batched totals differ from ledger totals');
      }
      notes.push('`ledger, totals written once per batch` produced the same `totals` rows as `ledger` (checked).');
    } finally {
      await ledgerListener.close();
      await ledgerDb.drop();
    }

    tables.push({
      title: 'Catch-up from the start of the log to its head',
      header: ['projection', 'batch size', 'events', 'time', 'events/s', 'batches', 'time in apply()'],
      rows: rows.map((r) => [
        r.projection,
        int(r.batchSize),
        int(r.result.applied),
        `${seconds(r.result.elapsedMs)} s`,
        int(r.result.eventsPerSecond),
        int(r.result.batches),
        `${((100 * r.result.handlerMs) / r.result.elapsedMs).toFixed(0)} %`,
      ]),
    });

    // --- Profile: where one batch's time goes (trivial fold, default batch size). ---
    process.stdout.write('  projection: profiling the trivial fold (per-statement timing)…\n');
    const profiling = await createProfilingPool(db.url);
    const endProfilingPool = onCleanup('profiling pool', () => profiling.pool.end());
    let profiled: FoldResult;
    try {
      const definition = counterSumProjection('counter_sum_prof');
      const profStore = createEventStore(profiling.pool, testRegistry);
      const [version] = await ensureCodeSlot(profiling.pool, definition);
      profiling.profile.clear();
      profiled = await foldToHead({
        pool: profiling.pool,
        store: profStore,
        listener,
        definition,
        version: version!,
        head,
        expected: total,
        batchSize: DEFAULT_BATCH,
      });
    } finally {
      await endProfilingPool();
    }
    const profileRows = [...profiling.profile.values()]
      .sort((a, b) => b.totalMs - a.totalMs);
    const sumMs = profileRows.reduce((acc, p) => acc + p.totalMs, 0);
    tables.push({
      title: `Profile: trivial fold, batch ${DEFAULT_BATCH}, ${int(total)} events, ${seconds(profiled.elapsedMs)} s wall (${int(profiled.eventsPerSecond)} events/s with the timing interceptor)`,
      header: ['statement', 'calls', 'total', 'per batch', 'share of wall time'],
      rows: [
        ...profileRows.map((p) => [
          p.label.replace(/\|/g, '\\|'),
          int(p.calls),
          `${int(p.totalMs)} ms`,
          `${ms(p.totalMs / Math.max(1, profiled.batches))} ms`,
          `${((100 * p.totalMs) / profiled.elapsedMs).toFixed(0)} %`,
        ]),
        [
          'rest: BEGIN/COMMIT, pool checkout, JS (onBatch, applyBatch filtering)',
          '',
          `${int(profiled.elapsedMs - sumMs)} ms`,
          `${ms((profiled.elapsedMs - sumMs) / Math.max(1, profiled.batches))} ms`,
          `${((100 * (profiled.elapsedMs - sumMs)) / profiled.elapsedMs).toFixed(0)} %`,
        ],
      ],
    });

    // --- The read path alone: slonik + zod decode vs slonik without decode vs plain pg. ---
    process.stdout.write('  projection: timing the read path alone…\n');
    const page = DEFAULT_BATCH;
    const readDecoded = await scanLog((after, limit) => store.readAfter(db.pool, after, limit), total, page);
    const readRaw = await scanLog((after, limit) => store.readAfter(db.pool, after, limit, { decode: false }), total, page);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    let readPg: number;
    try {
      readPg = await scanLog(async (after, limit) => {
        const result = await client.query<{ txid: string; gpos: string }>(
          `SELECT gpos, txid, event_id, stream_id, stream_position, type, schema_version, scope, occurred_at, recorded_at, data, meta
           FROM event_log WHERE (txid, gpos) > ($1::xid8, $2::bigint) AND txid < pg_snapshot_xmin(pg_current_snapshot())
           ORDER BY txid, gpos LIMIT $3`,
          [after.txid.toString(), after.gpos.toString(), limit],
        );
        return result.rows.map((r) => ({ txid: BigInt(r.txid), gpos: BigInt(r.gpos) }));
      }, total, page);
    } finally {
      await client.end();
    }
    // zod decode alone, in memory.
    const sample = (await store.readAfter(db.pool, LOG_START, 10_000, { decode: false })) as StoredEvent[];
    const t = now();
    const rounds = 5;
    for (let round = 0; round < rounds; round += 1) {
      for (const event of sample) testRegistry.decode(event.type, event.schemaVersion, event.data);
    }
    const decodePerSecond = ((sample.length * rounds) / (now() - t)) * 1000;
    tables.push({
      title: `Read path alone (pages of ${page}, whole log, no transaction, no fold)`,
      header: ['reader', 'events/s', 'µs per event'],
      rows: [
        ['store.readAfter (slonik, zod decode) — what the transport calls', int(readDecoded), (1e6 / readDecoded).toFixed(1)],
        ['store.readAfter, decode: false', int(readRaw), (1e6 / readRaw).toFixed(1)],
        ['same SQL through a plain pg.Client (no slonik)', int(readPg), (1e6 / readPg).toFixed(1)],
        ['registry.decode alone (zod parse, in memory)', int(decodePerSecond), (1e6 / decodePerSecond).toFixed(2)],
      ],
    });

    const figures: Figure[] = [
      {
        name: `projection, trivial fold, batch ${DEFAULT_BATCH} (runner default)`,
        value: trivial.eventsPerSecond,
        unit: 'events/s',
        display: `${int(trivial.eventsPerSecond)} events/s`,
        target: TARGET,
      },
      ...rows
        .filter((r) => r.result !== trivial)
        .map((r) => ({
          name: `projection, ${r.projection}, batch ${r.batchSize}`,
          value: r.result.eventsPerSecond,
          unit: 'events/s',
          display: `${int(r.result.eventsPerSecond)} events/s`,
          ...(r.projection === 'trivial fold' ? { target: TARGET } : {}),
        })),
    ];
    notes.push(
      `Log built with \`append\` in batches of 1,000 from 2 writers: ${int(built.eventsPerSecond)} events/s (${seconds(built.elapsedMs)} s for ${int(total)}).`,
      'The ledger rows are context, not held to the target.',
    );

    return {
      id: 'projection',
      title: 'Projection throughput',
      method: [
        `${int(total)} CounterIncremented events (16 counters, 100 scopes) appended first; then each projection gets a fresh slot ` +
          '(`ensureCodeSlot`) and is folded from the start of the log to its head through `createPgLogTransport(...).subscribe` — ' +
          'per batch: one transaction with the checkpoint `FOR UPDATE SKIP LOCKED`, `readAfter` (zod decode), `apply`, ' +
          'compare-and-set checkpoint, `pg_notify`.',
        'Trivial fold (`counterSumProjection` in bench/lib/fixtures.ts): per batch, sums in memory and writes ≤ 16 rows in one ' +
          '`INSERT … SELECT unnest … ON CONFLICT DO UPDATE` statement.',
        `Realistic fold: \`ledgerProjection()\` from tests/support/test-projections.ts (one INSERT and one upsert per event), on its own log of ${int(ledgerTotal)} events; ` +
          'and the same fold with its totals aggregated per batch and written in one upsert (`batchedLedgerProjection`, bench/lib/fixtures.ts).',
        'Time runs from `subscribe` until the `onBatch` that reports the checkpoint at the head.',
      ],
      figures,
      tables,
      notes,
    };
  } finally {
    await closeListener();
    await db.drop();
  }
}
