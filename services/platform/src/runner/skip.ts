import { sql, type DatabasePool } from '../db/pool.ts';
import type { EventStore, StoredEvent } from '../eventstore/event-store.ts';
import { lockCheckpoint, type CheckpointKey } from './checkpoints.ts';

/**
 * The explicit, operator-initiated way past a poison event: moves a faulted checkpoint over the next
 * event and resumes it. Returns the skipped event so the caller can log it; it is never done silently.
 */
export async function skipNextEvent(pool: DatabasePool, store: EventStore, key: CheckpointKey): Promise<StoredEvent> {
  return pool.transaction(async (tx) => {
    const checkpoint = await lockCheckpoint(tx, key, { skipLocked: false });
    if (!checkpoint) throw new Error(`no checkpoint ${key.consumer}`);
    if (checkpoint.status !== 'faulted') throw new Error(`${key.consumer} is ${checkpoint.status}; only a faulted consumer can skip`);
    const [next] = await store.readAfter(tx, checkpoint, 1, { decode: false });
    if (!next) throw new Error(`${key.consumer} has no event to skip`);
    await tx.query(sql.unsafe`
      UPDATE consumer_checkpoints
      SET last_txid = ${next.txid.toString()}::xid8, last_gpos = ${next.gpos.toString()}::bigint, status = 'running',
          error = ${sql.jsonb({ skipped: { eventId: next.eventId, type: next.type, at: new Date().toISOString() } })}, updated_at = now()
      WHERE consumer = ${key.consumer} AND source = ${key.source} AND part = ${key.part}`);
    return next;
  });
}
