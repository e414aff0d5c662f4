import type { Logger } from 'pino';
import { EventSchemaError, UnknownEventTypeError } from '@otog/schemas/events';
import type { DatabasePool, Queryable } from '../db/pool.ts';
import type { NotificationListener } from '../db/listen.ts';
import { EVENTS_CHANNEL, wakesFor, type EventStore } from '../eventstore/event-store.ts';
import { comparePositions, type Position } from '../eventstore/position.ts';
import {
  CheckpointConflictError,
  ensureCheckpoint,
  lockCheckpoint,
  markFaulted,
  readCheckpoint,
  type CheckpointKey,
} from '../runner/checkpoints.ts';
import { applyBatch, type BatchOutcome, type EventConsumer } from '../runner/consumer.ts';
import { foldedCheck, waitForCheckpoint } from '../runner/wait.ts';
import type { EventTransport, SubscribeOptions, Subscription } from './event-transport.ts';

export interface PgLogTransportOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly listener: NotificationListener;
  readonly logger?: Logger;
  /** Fallback poll when no NOTIFY arrives, and the retry pace while another instance holds the lock. */
  readonly pollIntervalMs?: number;
}

type Step = BatchOutcome | 'idle' | 'locked' | 'stopped';

/** Reads the Postgres log directly: one checkpoint part '*', single active instance by SKIP LOCKED. */
export function createPgLogTransport(options: PgLogTransportOptions): EventTransport {
  const { pool, store, listener, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 500;

  return {
    kind: 'pglog',
    async subscribe(consumer: EventConsumer, subscribeOptions: SubscribeOptions = {}): Promise<Subscription> {
      const key: CheckpointKey = { consumer: consumer.name, source: 'pglog', part: '*' };
      const batchSize = subscribeOptions.batchSize ?? 500;
      const maxAttempts = subscribeOptions.maxAttempts ?? 5;
      await ensureCheckpoint(pool, key);

      let running = true;
      let wake: (() => void) | undefined;
      let pending = false;
      const nudge = () => {
        pending = true;
        wake?.();
      };
      // A consumer of some types sleeps through commits of other types (chat does not wake the scoreboard).
      const off = listener.on(EVENTS_CHANNEL, (payload) => {
        if (wakesFor(payload, consumer.types)) nudge();
      });
      const sleep = (ms: number) =>
        new Promise<void>((resolve) => {
          if (pending || !running) return resolve();
          const timer = setTimeout(resolve, ms);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        }).finally(() => {
          wake = undefined;
          pending = false;
        });
      // Another instance holds the consumer (it folds what the commits bring), or it is faulted or retired:
      // wait the poll interval whatever commits arrive, instead of a transaction per commit that finds the
      // row taken. Only a stop ends it early; a holder's death is noticed within the interval.
      let endStandBy: (() => void) | undefined;
      const standBy = (ms: number) =>
        new Promise<void>((resolve) => {
          if (!running) return resolve();
          const timer = setTimeout(resolve, ms);
          endStandBy = () => {
            clearTimeout(timer);
            resolve();
          };
        }).finally(() => (endStandBy = undefined));

      // Only the consumer's types leave Postgres; the checkpoint still moves past the others.
      const read = async (db: Queryable, after: Position, limit: number, decode = !consumer.storedData) =>
        consumer.types
          ? store.readTypesAfter(db, after, consumer.types, limit, { decode })
          : { events: await store.readAfter(db, after, limit, { decode }), scannedUpTo: null };

      // While this instance holds the consumer (its last step took the lock), `held` is the checkpoint as
      // committed: waits in this process compare against it instead of reading the table, woken by this
      // instance's steps instead of NOTIFY. Another instance may fold between this one's steps: the wake-up an
      // event brings makes this instance step too, which sees the newer checkpoint (or the lock taken, and
      // the waits read the table again).
      let held: Position | null = null;
      const localCommits = new Set<() => void>();
      const hold = (position: Position | null) => {
        held = position;
        for (const wakeWaiter of localCommits) wakeWaiter();
      };

      const step = (limit: number): Promise<Step> => {
        // What this step reads covers every notification so far; only later ones call for another step.
        pending = false;
        return pool.transaction(async (tx) => {
          const checkpoint = await lockCheckpoint(tx, key, { skipLocked: true });
          if (!checkpoint) return 'locked';
          if (checkpoint.status !== 'running') return 'stopped';
          // Committed, whatever this step does: another instance may have moved it since this one's last step.
          if (held === null || comparePositions(held, checkpoint) !== 0) hold(checkpoint);
          const { events, scannedUpTo } = await read(tx, checkpoint, limit);
          if (events.length === 0 && scannedUpTo === null) return 'idle';
          return applyBatch(tx, key, checkpoint, consumer, events, scannedUpTo ? { scannedUpTo } : {});
        });
      };

      const loop = async () => {
        let failures = 0;
        // After a failure, go one event at a time through what the failed batch covered, so the
        // fault names the exact event and the events before it are applied.
        let carefulSteps = 0;
        while (running) {
          let result: Step;
          const limit = carefulSteps > 0 ? 1 : batchSize;
          try {
            result = await step(limit);
            if (result === 'locked' || result === 'stopped') hold(null);
            else if (typeof result === 'object') hold(result.checkpoint);
            failures = 0;
            if (typeof result === 'object') carefulSteps = Math.max(0, carefulSteps - 1);
          } catch (error) {
            held = null;
            if (error instanceof CheckpointConflictError) continue;
            failures += 1;
            carefulSteps = batchSize;
            const message = error instanceof Error ? error.message : String(error);
            logger?.warn({ consumer: consumer.name, attempt: failures, err: message }, 'consumer batch failed');
            const undecodable = error instanceof EventSchemaError || error instanceof UnknownEventTypeError;
            if (failures >= maxAttempts || undecodable) {
              const checkpoint = await readCheckpoint(pool, key);
              const [next] = checkpoint ? (await read(pool, checkpoint, 1, false)).events : [];
              const fault = { eventId: next?.eventId ?? null, message, attempts: failures };
              await markFaulted(pool, key, fault);
              logger?.error({ consumer: consumer.name, ...fault }, 'consumer faulted; it stays stopped until skipped or rebuilt');
              subscribeOptions.onFault?.(fault);
              failures = 0;
              continue;
            }
            await sleep(Math.min(50 * 2 ** failures, 5_000));
            continue;
          }
          if (result === 'locked' || result === 'stopped') {
            await standBy(pollIntervalMs);
            continue;
          }
          if (typeof result === 'object') {
            subscribeOptions.onBatch?.(result);
            // A full batch may have more behind it. A short one reached the head: wait for the next
            // notification (at once if one came meanwhile) instead of a transaction that finds nothing.
            if (result.scanned >= limit) continue;
          }
          await sleep(pollIntervalMs);
        }
      };
      const done = loop().catch((error: unknown) => {
        logger?.error({ consumer: consumer.name, err: String(error) }, 'consumer loop crashed');
      });

      return {
        consumer: consumer.name,
        waitFor: (event, timeoutMs = 10_000) => {
          const folded = foldedCheck(store, pool, consumer.types);
          return waitForCheckpoint(
            listener,
            consumer.name,
            async () => {
              if (held) return (await folded(held, event)) ? { state: 'reached' } : { state: 'pending' };
              const checkpoint = await readCheckpoint(pool, key);
              if (!checkpoint) return { state: 'pending' };
              if (comparePositions(checkpoint, event) >= 0) return { state: 'reached' };
              if (checkpoint.status === 'faulted') return { state: 'faulted', detail: JSON.stringify(checkpoint.error) };
              return (await folded(checkpoint, event)) ? { state: 'reached' } : { state: 'pending' };
            },
            timeoutMs,
            {
              subscribe(wakeWaiter) {
                localCommits.add(wakeWaiter);
                return () => localCommits.delete(wakeWaiter);
              },
              held: () => held !== null,
            },
          );
        },
        async stop() {
          running = false;
          off();
          wake?.();
          endStandBy?.();
          await done;
        },
      };
    },
  };
}
