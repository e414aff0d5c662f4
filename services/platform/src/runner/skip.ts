import { z } from 'zod';
import { sql, type DatabasePool, type Queryable } from '../db/pool.ts';
import type { EventStore } from '../eventstore/event-store.ts';
import { comparePositions, encodePosition } from '../eventstore/position.ts';
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
 * faulted on (recorded in its error; for the log, the next event when none is recorded) and resumes it. A
 * Kafka partition that faulted on a message it could not decode also moves its offset onto that message, so
 * the message is passed over when fetched again. Returns what was skipped so the caller can log it; it is
 * never done silently.
 */
export async function skipNextEvent(pool: DatabasePool, store: EventStore, key: CheckpointKey): Promise<SkippedEvent> {
  return pool.transaction(async (tx) => {
    const checkpoint = await lockCheckpoint(tx, key, { skipLocked: false });
    if (!checkpoint) throw new Error(`no checkpoint ${key.consumer}`);
    if (checkpoint.status !== 'faulted') throw new Error(`${key.consumer} is ${checkpoint.status}; only a faulted consumer can skip`);
    const fault = (checkpoint.error ?? {}) as { eventId?: unknown; offset?: unknown };
    const offset = typeof fault.offset === 'string' && /^\d{1,20}$/.test(fault.offset) ? fault.offset : null;
    const [next] =
      typeof fault.eventId === 'string'
        ? // An event this code cannot decode is skipped by its offset alone.
          await store.readEvents(tx, [fault.eventId]).catch(() => [])
        : key.source === 'pglog'
          ? await store.readAfter(tx, checkpoint, 1, { decode: false })
          : [];
    if (!next && offset === null) throw new Error(`${key.consumer} has no event to skip`);
    if (next && offset === null && comparePositions(next, checkpoint) <= 0) throw new Error(`${key.consumer} is already past event ${next.eventId}`);
    const to = next && comparePositions(next, checkpoint) > 0 ? next : checkpoint;
    const skipped = { eventId: next?.eventId ?? null, type: next?.type ?? null, offset };
    await tx.query(sql.unsafe`
      UPDATE consumer_checkpoints
      SET last_txid = ${to.txid.toString()}::xid8, last_gpos = ${to.gpos.toString()}::bigint, status = 'running',
          kafka_offset = coalesce(${offset}::bigint, kafka_offset),
          error = ${sql.jsonb({ skipped: { ...skipped, at: new Date().toISOString() } })}, updated_at = now()
      WHERE consumer = ${key.consumer} AND source = ${key.source} AND part = ${key.part}`);
    return { ...skipped, position: next ? encodePosition(next) : null };
  });
}

export interface SkippedEvent {
  readonly eventId: string | null;
  readonly type: string | null;
  /** The Kafka offset passed over (a message that could not be decoded). */
  readonly offset: string | null;
  readonly position: string | null;
}
