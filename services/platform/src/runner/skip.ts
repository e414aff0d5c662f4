import { z } from 'zod';
import { sql, type DatabasePool, type Queryable } from '../db/pool.ts';
import type { EventStore, StoredEvent } from '../eventstore/event-store.ts';
import { comparePositions } from '../eventstore/position.ts';
import { lockCheckpoint, type CheckpointKey } from './checkpoints.ts';

const PartRow = z.object({ source: z.enum(['pglog', 'kafka']), part: z.string() });

/** The faulted checkpoint row of a consumer (its log part, or one of its Kafka partitions), if any. */
export async function faultedPart(db: Queryable, consumer: string): Promise<CheckpointKey | null> {
  const row = await db.maybeOne(sql.type(PartRow)`
    SELECT source, part FROM consumer_checkpoints WHERE consumer = ${consumer} AND status = 'faulted' ORDER BY source, part LIMIT 1`);
  return row ? { consumer, ...row } : null;
}

/**
 * The explicit, operator-initiated way past a poison event: moves a faulted checkpoint onto the event it
 * faulted on (recorded in its error; the next event of the log when none is recorded) and resumes it.
 * Returns the skipped event so the caller can log it; it is never done silently.
 */
export async function skipNextEvent(pool: DatabasePool, store: EventStore, key: CheckpointKey): Promise<StoredEvent> {
  return pool.transaction(async (tx) => {
    const checkpoint = await lockCheckpoint(tx, key, { skipLocked: false });
    if (!checkpoint) throw new Error(`no checkpoint ${key.consumer}`);
    if (checkpoint.status !== 'faulted') throw new Error(`${key.consumer} is ${checkpoint.status}; only a faulted consumer can skip`);
    const faultedOn = (checkpoint.error as { eventId?: unknown } | null)?.eventId;
    const [next] =
      typeof faultedOn === 'string'
        ? await store.readEvents(tx, [faultedOn])
        : await store.readAfter(tx, checkpoint, 1, { decode: false });
    if (!next) throw new Error(`${key.consumer} has no event to skip`);
    if (comparePositions(next, checkpoint) <= 0) throw new Error(`${key.consumer} is already past event ${next.eventId}`);
    await tx.query(sql.unsafe`
      UPDATE consumer_checkpoints
      SET last_txid = ${next.txid.toString()}::xid8, last_gpos = ${next.gpos.toString()}::bigint, status = 'running',
          error = ${sql.jsonb({ skipped: { eventId: next.eventId, type: next.type, at: new Date().toISOString() } })}, updated_at = now()
      WHERE consumer = ${key.consumer} AND source = ${key.source} AND part = ${key.part}`);
    return next;
  });
}
