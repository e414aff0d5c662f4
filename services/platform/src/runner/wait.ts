import type { NotificationListener } from '../db/listen.ts';
import type { Queryable } from '../db/pool.ts';
import type { EventStore } from '../eventstore/event-store.ts';
import { comparePositions, type Position } from '../eventstore/position.ts';
import { ConsumerFaultedError, WaitTimeoutError } from '../transport/event-transport.ts';
import { CHECKPOINTS_CHANNEL, readCheckpoint } from './checkpoints.ts';

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

/**
 * Waits for consumers folded in another process, answered together: one read of a consumer's log
 * checkpoint per commit notification of it (and per `pollMs` while waits are pending), whatever the number of
 * waits, instead of every wait polling the table. An API node under load holds one wait per write request.
 */
export function createCheckpointWatch(db: Queryable, listener: NotificationListener, pollMs = 100) {
  interface Waiter {
    readonly event: Position;
    readonly folded: (checkpoint: Position, event: Position) => Promise<boolean>;
    readonly deadline: number;
    readonly timeoutMs: number;
    readonly settle: (error?: Error) => void;
  }
  interface Watched {
    readonly waiters: Set<Waiter>;
    checking: boolean;
    again: boolean;
    stop(): void;
  }
  const watched = new Map<string, Watched>();

  const check = async (consumer: string, entry: Watched): Promise<void> => {
    if (entry.checking) {
      entry.again = true;
      return;
    }
    entry.checking = true;
    try {
      do {
        entry.again = false;
        const checkpoint = await readCheckpoint(db, { consumer, source: 'pglog', part: '*' }).catch(() => null);
        for (const waiter of entry.waiters) {
          if (checkpoint?.status === 'faulted') waiter.settle(new ConsumerFaultedError(consumer, JSON.stringify(checkpoint.error)));
          // Retired (a cutover, or handed over to Kafka) before reaching the event: it never will here.
          else if (checkpoint?.status === 'retired' && comparePositions(checkpoint, waiter.event) < 0) waiter.settle(new Error(`consumer ${consumer} was retired`));
          else if (checkpoint && (await waiter.folded(checkpoint, waiter.event).catch(() => false))) waiter.settle();
          else if (Date.now() > waiter.deadline) waiter.settle(new WaitTimeoutError(consumer, waiter.timeoutMs));
        }
      } while (entry.again && entry.waiters.size > 0);
    } finally {
      entry.checking = false;
      if (entry.waiters.size === 0 && watched.get(consumer) === entry) {
        watched.delete(consumer);
        entry.stop();
      }
    }
  };

  return {
    /** Ends every pending wait (the process stops). */
    close(): void {
      for (const [consumer, entry] of watched) {
        watched.delete(consumer);
        entry.stop();
        for (const waiter of entry.waiters) waiter.settle(new Error(`stopped waiting for ${consumer}`));
      }
    },
    wait(consumer: string, event: Position, folded: Waiter['folded'], timeoutMs: number): Promise<void> {
      let entry = watched.get(consumer);
      if (!entry) {
        const created: Watched = { waiters: new Set(), checking: false, again: false, stop: () => {} };
        const off = listener.on(CHECKPOINTS_CHANNEL, (payload) => {
          if (payload === consumer) void check(consumer, created);
        });
        const timer = setInterval(() => void check(consumer, created), pollMs);
        timer.unref();
        created.stop = () => {
          off();
          clearInterval(timer);
        };
        watched.set(consumer, created);
        entry = created;
      }
      const into = entry;
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          event,
          folded,
          deadline: Date.now() + timeoutMs,
          timeoutMs,
          settle: (error) => {
            into.waiters.delete(waiter);
            if (error) reject(error);
            else resolve();
          },
        };
        into.waiters.add(waiter);
        void check(consumer, into);
      });
    },
  };
}
