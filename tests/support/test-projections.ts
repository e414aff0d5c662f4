import { sql } from '@otog/platform/db/pool';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { defineProjection } from '@otog/platform/runner/projection';

type Counter = { counter: string; by: number; seq?: number };

/**
 * A ledger of every application (no unique key on purpose: a double application shows up as a second
 * row) plus per-counter totals. `blockOnSeq` makes the fold wait on advisory lock 4242 at that event,
 * so a test can hold a projector in the middle of a batch.
 */
export function ledgerProjection(options: { name?: string; version?: number; blockOnSeq?: number; failOnBy?: number } = {}) {
  return defineProjection({
    name: options.name ?? 'ledger',
    version: options.version ?? 1,
    handles: ['CounterIncremented'],
    tables: ['applied', 'totals'],
    async setup(tx, t) {
      await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.applied} (
        n bigserial PRIMARY KEY, event_id uuid NOT NULL, txid xid8 NOT NULL, gpos bigint NOT NULL,
        stream_id text NOT NULL, seq int, occurred_at timestamptz NOT NULL)`);
      await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.totals} (
        counter text PRIMARY KEY, total bigint NOT NULL, events int NOT NULL, last_seq int)`);
    },
    async apply(tx, events: readonly StoredEvent[], t) {
      for (const event of events) {
        const data = event.data as Counter;
        if (options.failOnBy !== undefined && data.by === options.failOnBy) throw new Error(`refusing by=${data.by}`);
        if (options.blockOnSeq !== undefined && data.seq === options.blockOnSeq) {
          await tx.query(sql.unsafe`SELECT pg_advisory_lock(4242)`);
          await tx.query(sql.unsafe`SELECT pg_advisory_unlock(4242)`);
        }
      }
      await tx.query(sql.unsafe`
        INSERT INTO ${t.applied} (event_id, txid, gpos, stream_id, seq, occurred_at)
        SELECT * FROM ${sql.unnest(
          events.map((e) => [e.eventId, e.txid.toString(), e.gpos.toString(), e.streamId, (e.data as Counter).seq ?? null, e.occurredAt]),
          ['uuid', 'xid8', 'int8', 'text', 'int4', 'timestamptz'],
        )}`);
      for (const event of events) {
        const data = event.data as Counter;
        await tx.query(sql.unsafe`
          INSERT INTO ${t.totals} (counter, total, events, last_seq) VALUES (${data.counter}, ${data.by}, 1, ${data.seq ?? null})
          ON CONFLICT (counter) DO UPDATE SET total = ${t.totals}.total + excluded.total,
            events = ${t.totals}.events + 1, last_seq = excluded.last_seq`);
      }
    },
  });
}
