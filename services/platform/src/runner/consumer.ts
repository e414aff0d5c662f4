import type { ScopeKind } from '@otog/schemas/events';
import type { DatabaseTransactionConnection } from '../db/pool.ts';
import type { StoredEvent } from '../eventstore/event-store.ts';
import { comparePositions, type Position } from '../eventstore/position.ts';
import type { Notice } from '../notices/notice.ts';
import { advanceCheckpoint, type Checkpoint, type CheckpointKey } from './checkpoints.ts';

/**
 * What a transport delivers events to. `handle` runs inside the transaction that also moves the
 * consumer's checkpoint, so its writes and the checkpoint commit together (exactly-once effect).
 * It must be deterministic: event time only, no now(), no randomness.
 */
export interface EventConsumer {
  /** Checkpoint name, e.g. `projection:scoreboard:v3` or `relay:kafka`. */
  readonly name: string;
  /** Event types the consumer wants; others only move the checkpoint. Omit for all types. */
  readonly types?: ReadonlySet<string>;
  /**
   * Scope kinds the consumer folds (a projection's `scopes`): a Kafka transport reads only their topics. The
   * consumer itself passes over events of other kinds, so the log transport may still deliver them.
   */
  readonly scopeKinds?: ReadonlySet<ScopeKind>;
  /** Take events as stored (schemaVersion and data not upcast): for consumers that forward them verbatim. */
  readonly storedData?: boolean;
  /** May return notices: the transport hands them on (BatchOutcome.notices) only after the batch committed. */
  handle(tx: DatabaseTransactionConnection, events: readonly StoredEvent[]): Promise<void | readonly Notice[]>;
}

export interface BatchOutcome {
  /** Events delivered in the batch, whatever their type. */
  readonly scanned: number;
  /** Events given to the handler (after dropping duplicates and unwanted types). */
  readonly applied: number;
  /** Events at or below the checkpoint: redeliveries, dropped by position. */
  readonly duplicates: number;
  readonly checkpoint: Position;
  /** What the handler announced; handed to onBatch, which runs after the commit. */
  readonly notices: readonly Notice[];
}

/**
 * Applies one delivered batch under a checkpoint row the caller has locked in `tx`: drops what the
 * checkpoint already covers, hands the rest to the consumer, and compare-and-sets the checkpoint to the
 * last delivered position (`scannedUpTo` when the source scanned further than it delivered).
 */
export async function applyBatch(
  tx: DatabaseTransactionConnection,
  key: CheckpointKey,
  checkpoint: Checkpoint,
  consumer: EventConsumer,
  delivered: readonly StoredEvent[],
  options: { scannedUpTo?: Position; kafkaOffset?: bigint } = {},
): Promise<BatchOutcome> {
  const fresh = delivered.filter((event) => comparePositions(event, checkpoint) > 0);
  const wanted = consumer.types ? fresh.filter((event) => consumer.types!.has(event.type)) : fresh;
  const notices = (wanted.length > 0 ? await consumer.handle(tx, wanted) : undefined) ?? [];
  const lastFresh = fresh[fresh.length - 1];
  let next: Position = lastFresh ?? checkpoint;
  if (options.scannedUpTo && comparePositions(options.scannedUpTo, next) > 0) next = options.scannedUpTo;
  if (comparePositions(next, checkpoint) !== 0 || options.kafkaOffset !== undefined) {
    await advanceCheckpoint(tx, key, checkpoint, next, options.kafkaOffset);
  }
  return { scanned: delivered.length, applied: wanted.length, duplicates: delivered.length - fresh.length, checkpoint: next, notices };
}
