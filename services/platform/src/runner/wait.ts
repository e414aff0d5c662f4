import type { NotificationListener } from '../db/listen.ts';
import type { Queryable } from '../db/pool.ts';
import type { EventStore } from '../eventstore/event-store.ts';
import { comparePositions, type Position } from '../eventstore/position.ts';
import { ConsumerFaultedError, WaitTimeoutError } from '../transport/event-transport.ts';
import { CHECKPOINTS_CHANNEL } from './checkpoints.ts';

export type WaitCheck = () => Promise<{ state: 'reached' } | { state: 'pending' } | { state: 'faulted'; detail: string }>;

/** A consumer this process may be folding: its commits wake waiters here, without the NOTIFY round trip. */
export interface LocalCommits {
  /** Calls `wake` after each commit of the consumer's checkpoint in this process; returns the unsubscribe. */
  subscribe(wake: () => void): () => void;
  /** Whether this process holds the consumer now (its notifications are then this process's own commits). */
  held(): boolean;
}

/**
 * Re-runs `check` whenever the consumer's checkpoint moves (NOTIFY from the committing process, or `local`
 * when this process holds the consumer) and on a short poll as a fallback, until it reports reached,
 * faulted, or the time is up.
 */
export async function waitForCheckpoint(
  listener: NotificationListener,
  consumer: string,
  check: WaitCheck,
  timeoutMs: number,
  local?: LocalCommits,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | undefined;
  const offNotify = listener.on(CHECKPOINTS_CHANNEL, (payload) => {
    if (payload === consumer && !local?.held()) wake?.();
  });
  const offLocal = local?.subscribe(() => wake?.());
  const off = () => {
    offNotify();
    offLocal?.();
  };
  try {
    for (;;) {
      const result = await check();
      if (result.state === 'reached') return;
      if (result.state === 'faulted') throw new ConsumerFaultedError(consumer, result.detail);
      const left = deadline - Date.now();
      if (left <= 0) throw new WaitTimeoutError(consumer, timeoutMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    off();
  }
}

/**
 * Whether a consumer has done all it will for `event`: its checkpoint is past it, or (a consumer of some
 * types only) it sleeps behind events of other types, none of its own lying in between. The log is asked
 * only when the checkpoint has not moved since the previous check: a consumer that is folding gets there
 * by itself, so most waits end without the extra query.
 */
export function foldedCheck(store: EventStore, db: Queryable, types: ReadonlySet<string> | undefined) {
  let previous: Position | undefined;
  return async (checkpoint: Position, event: Position): Promise<boolean> => {
    if (comparePositions(checkpoint, event) >= 0) return true;
    const stalled = previous !== undefined && comparePositions(previous, checkpoint) === 0;
    previous = checkpoint;
    return stalled && types !== undefined && !(await store.hasTypesBetween(db, checkpoint, event, types));
  };
}
