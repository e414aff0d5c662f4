import type { ScopeKind } from '@otog/schemas/events';
import { sql, type Queryable } from '@otog/platform/db/pool';
import { projectionOver, slotTableName } from '@otog/platform/runner/projection';
import type { TestEventMap } from './test-events.ts';

const defineProjection = projectionOver<TestEventMap>();

/**
 * A ledger of every application (no unique key on purpose: a double application shows up as a second
 * row) plus per-counter totals. `blockOnSeq` makes the fold wait on advisory lock 4242 at that event,
 * so a test can hold a projector in the middle of a batch. `scale` multiplies what totals add: another fold
 * logic, for telling which code version folded a slot.
 */
export function ledgerProjection(
  options: { name?: string; version?: number; blockOnSeq?: number; failOnBy?: number; scale?: number; scopes?: readonly ScopeKind[] } = {},
) {
  return defineProjection({
    name: options.name ?? 'ledger',
    version: options.version ?? 1,
    ...(options.scopes ? { scopes: options.scopes } : {}),
    tables: ['applied', 'totals'],
    async setup(tx, t) {
      await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.applied} (
        n bigserial PRIMARY KEY, event_id uuid NOT NULL, txid xid8 NOT NULL, gpos bigint NOT NULL,
        stream_id text NOT NULL, seq int, occurred_at timestamptz NOT NULL)`);
      await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.totals} (
        counter text PRIMARY KEY, total bigint NOT NULL, events int NOT NULL, last_seq int)`);
    },
    on: {
      async CounterIncremented(tx, event, t) {
        const { data } = event;
        if (options.failOnBy !== undefined && data.by === options.failOnBy) throw new Error(`refusing by=${data.by}`);
        if (options.blockOnSeq !== undefined && data.seq === options.blockOnSeq) {
          await tx.query(sql.unsafe`SELECT pg_advisory_lock(4242)`);
          await tx.query(sql.unsafe`SELECT pg_advisory_unlock(4242)`);
        }
        await tx.query(sql.unsafe`
          INSERT INTO ${t.applied} (event_id, txid, gpos, stream_id, seq, occurred_at)
          VALUES (${event.eventId}, ${event.txid.toString()}::xid8, ${event.gpos.toString()}::int8, ${event.streamId}, ${data.seq ?? null}, ${event.occurredAt})`);
        await tx.query(sql.unsafe`
          INSERT INTO ${t.totals} (counter, total, events, last_seq) VALUES (${data.counter}, ${data.by * (options.scale ?? 1)}, 1, ${data.seq ?? null})
          ON CONFLICT (counter) DO UPDATE SET total = ${t.totals}.total + excluded.total,
            events = ${t.totals}.events + 1, last_seq = excluded.last_seq`);
      },
    },
  });
}

/**
 * Every row of one table of a projection's slot, sorted by the whole row: rows sharing a first column (a
 * contest's rating results) come back from Postgres in any order.
 */
export async function slotRows(pool: Queryable, projection: string, version: number, table: string): Promise<unknown[]> {
  return (await pool.any(sql.unsafe`SELECT * FROM ${sql.identifier([slotTableName(projection, version, table)])}`))
    .map((row) => ({ row, key: JSON.stringify(row, (_, value: unknown) => (typeof value === 'bigint' ? String(value) : value)) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ row }) => row);
}
