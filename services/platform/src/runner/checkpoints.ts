import { sql, type DatabaseTransactionConnection, type Queryable } from '../db/pool.ts';
import { LOG_START, type Position } from '../eventstore/position.ts';

/** A consumer's place in one source partition: pglog has the single part '*', Kafka one per topic/partition. */
export const CHECKPOINTS_CHANNEL = 'otog_checkpoints';

export interface CheckpointKey {
  readonly consumer: string;
  readonly source: 'pglog' | 'kafka';
  readonly part: string;
}

export type CheckpointStatus = 'running' | 'faulted' | 'retired';

export interface Checkpoint extends Position {
  readonly status: CheckpointStatus;
  readonly error: unknown;
  readonly kafkaOffset: bigint | null;
}

export class CheckpointConflictError extends Error {
  constructor(key: CheckpointKey) {
    super(`checkpoint ${key.consumer}/${key.source}/${key.part} moved under us (another instance took over)`);
    this.name = 'CheckpointConflictError';
  }
}

const match = (key: CheckpointKey) =>
  sql.fragment`consumer = ${key.consumer} AND source = ${key.source} AND part = ${key.part}`;

export async function ensureCheckpoint(db: Queryable, key: CheckpointKey, start: Position = LOG_START): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO consumer_checkpoints (consumer, source, part, last_txid, last_gpos)
    VALUES (${key.consumer}, ${key.source}, ${key.part}, ${start.txid.toString()}::xid8, ${start.gpos.toString()}::bigint)
    ON CONFLICT DO NOTHING`);
}

function toCheckpoint(row: Record<string, unknown>): Checkpoint {
  return {
    txid: row.last_txid as bigint,
    gpos: row.last_gpos as bigint,
    status: row.status as CheckpointStatus,
    error: row.error,
    kafkaOffset: (row.kafka_offset as bigint | null) ?? null,
  };
}

/**
 * Takes the checkpoint row for this transaction. With `skipLocked` another holder means "not ours now"
 * (null): that is the single-active lock. Without it we wait, so a zombie Kafka consumer queues behind
 * the new owner and then sees the moved checkpoint and drops its stale events by position.
 */
export async function lockCheckpoint(
  tx: DatabaseTransactionConnection,
  key: CheckpointKey,
  mode: { skipLocked: boolean },
): Promise<Checkpoint | null> {
  const row = await tx.maybeOne(sql.unsafe`
    SELECT last_txid, last_gpos, status, error, kafka_offset FROM consumer_checkpoints
    WHERE ${match(key)}
    FOR UPDATE ${mode.skipLocked ? sql.fragment`SKIP LOCKED` : sql.fragment``}`);
  return row ? toCheckpoint(row as Record<string, unknown>) : null;
}

/**
 * For an operator's repair of a live slot outside the fold: holds every checkpoint row of the consumer for
 * the transaction (the projector folds nothing of the slot meanwhile) and writes them without moving them,
 * so that readers keyed by the rows' last writer (the scoreboard cache) see that the slot's tables changed.
 */
export async function holdCheckpointsForRepair(tx: DatabaseTransactionConnection, consumer: string): Promise<void> {
  await tx.query(sql.unsafe`SELECT 1 FROM consumer_checkpoints WHERE consumer = ${consumer} ORDER BY source, part FOR UPDATE`);
  await tx.query(sql.unsafe`UPDATE consumer_checkpoints SET updated_at = now() WHERE consumer = ${consumer}`);
}

/** Compare-and-set: moves from `previous` to `next` or throws CheckpointConflictError. */
export async function advanceCheckpoint(
  tx: DatabaseTransactionConnection,
  key: CheckpointKey,
  previous: Position,
  next: Position,
  kafkaOffset?: bigint,
): Promise<void> {
  const result = await tx.query(sql.unsafe`
    UPDATE consumer_checkpoints
    SET last_txid = ${next.txid.toString()}::xid8, last_gpos = ${next.gpos.toString()}::bigint,
        kafka_offset = coalesce(${kafkaOffset === undefined ? null : kafkaOffset.toString()}::bigint, kafka_offset),
        updated_at = now()
    WHERE ${match(key)} AND status = 'running'
      AND last_txid = ${previous.txid.toString()}::xid8 AND last_gpos = ${previous.gpos.toString()}::bigint`);
  if (result.rowCount !== 1) throw new CheckpointConflictError(key);
  // Delivered on commit: wakes anyone waiting for this consumer to pass a position, in any process.
  await tx.query(sql.unsafe`SELECT pg_notify(${CHECKPOINTS_CHANNEL}, ${key.consumer})`);
}

export async function markFaulted(db: Queryable, key: CheckpointKey, error: { eventId: string | null; message: string; attempts: number }): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE consumer_checkpoints SET status = 'faulted', error = ${sql.jsonb(error)}, updated_at = now()
    WHERE ${match(key)}`);
}

/** Stops a running checkpoint for good (its position stays readable): a slot retired, a log part handed over to Kafka. */
export async function retireCheckpoint(db: Queryable, key: CheckpointKey): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE consumer_checkpoints SET status = 'retired', updated_at = now() WHERE ${match(key)} AND status = 'running'`);
}

export async function readCheckpoint(db: Queryable, key: CheckpointKey): Promise<Checkpoint | null> {
  const row = await db.maybeOne(sql.unsafe`
    SELECT last_txid, last_gpos, status, error, kafka_offset FROM consumer_checkpoints WHERE ${match(key)}`);
  return row ? toCheckpoint(row as Record<string, unknown>) : null;
}

/** The lowest position across a consumer's parts (all of them must pass a position for it to count). */
export async function consumerPosition(db: Queryable, consumer: string): Promise<Position | null> {
  const row = (await db.maybeOne(sql.unsafe`
    SELECT last_txid, last_gpos FROM consumer_checkpoints WHERE consumer = ${consumer}
    ORDER BY last_txid, last_gpos LIMIT 1`)) as { last_txid: bigint; last_gpos: bigint } | null;
  return row ? { txid: row.last_txid, gpos: row.last_gpos } : null;
}
