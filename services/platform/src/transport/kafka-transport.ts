import { setTimeout as delay } from 'node:timers/promises';
import type { Admin, Consumer, ConsumerConfig, EachBatchPayload, Kafka, PartitionMetadata } from 'kafkajs';
import type { Logger } from 'pino';
import type { EventRegistry } from '@otog/schemas/events';
import { z } from 'zod';
import { sql, type DatabasePool, type DatabaseTransactionConnection } from '../db/pool.ts';
import type { NotificationListener } from '../db/listen.ts';
import type { StoredEvent } from '../eventstore/event-store.ts';
import { comparePositions, type Position } from '../eventstore/position.ts';
import {
  OTOG_TOPICS,
  decodeEventMessage,
  defaultTopicForScope,
  EventMessageError,
  partitionForKey,
  type TopicRouter,
} from '../relay/kafka-messages.ts';
import {
  CheckpointConflictError,
  ensureCheckpoint,
  lockCheckpoint,
  markFaulted,
  readCheckpoint,
  retireCheckpoint,
  type Checkpoint,
  type CheckpointKey,
} from '../runner/checkpoints.ts';
import { applyBatch, type BatchOutcome, type EventConsumer } from '../runner/consumer.ts';
import { waitForCheckpoint } from '../runner/wait.ts';
import type { EventTransport, SubscribeOptions, Subscription } from './event-transport.ts';

/** Consumer settings kafkajs needs against librdkafka's mock cluster (see research/infra.md section 4). */
export const MOCK_BROKER_CONSUMER_CONFIG = {
  maxWaitTimeInMs: 100,
  sessionTimeout: 2_500,
  heartbeatInterval: 300,
  rebalanceTimeout: 10_000,
} as const satisfies Partial<ConsumerConfig>;

export interface KafkaTransportOptions {
  readonly pool: DatabasePool;
  readonly kafka: Kafka;
  /** Upcasts and validates every message, as reading the log does. */
  readonly registry: EventRegistry;
  readonly listener: NotificationListener;
  /** The topics a subscription reads. */
  readonly topics?: readonly string[];
  /** Must be the relay's routing: waitFor finds an event's partition through it. */
  readonly topicForScope?: TopicRouter;
  /** Consumer group = prefix + consumer name (one group per projection version). */
  readonly groupIdPrefix?: string;
  /** kafkajs consumer settings (timings); groupId is always derived from the consumer name. */
  readonly consumerConfig?: Omit<Partial<ConsumerConfig>, 'groupId'>;
  readonly partitionsConsumedConcurrently?: number;
  readonly logger?: Logger;
}

export interface KafkaTransport extends EventTransport {
  readonly kind: 'kafka';
  /**
   * Resolves once the consumer named `consumer`, folded through Kafka by any process, has applied `event`:
   * its checkpoint for the partition that carries the event's scope has passed it.
   */
  waitForConsumer(consumer: string, event: Position & { scope: string }, timeoutMs?: number): Promise<void>;
  /** The topics a consumer reads: those of its scope kinds, else all the transport's topics. */
  topicsOf(consumer: Pick<EventConsumer, 'scopeKinds'>): readonly string[];
  /**
   * Messages of the consumer's topics it has not applied yet, per partition (Kafka's consumer lag, from the
   * Postgres checkpoints, which are the truth, rather than the group's committed offsets).
   */
  consumerLag(consumer: Pick<EventConsumer, 'name' | 'scopeKinds'>): Promise<PartitionLag[]>;
  /** Disconnects the metadata client (subscriptions stop on their own). */
  close(): Promise<void>;
}

export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  readonly messages: number;
}

/** The checkpoint row of one topic-partition of a consumer. */
export const partitionCheckpointKey = (consumer: string, topic: string, partition: number): CheckpointKey => ({
  consumer,
  source: 'kafka',
  part: `${topic}/${partition}`,
});

/** Whether the consumer reads Kafka already: it has a partition row that a cutover has not retired. */
async function handedOver(tx: DatabaseTransactionConnection, consumer: string): Promise<boolean> {
  return tx.exists(sql.unsafe`
    SELECT 1 FROM consumer_checkpoints WHERE consumer = ${consumer} AND source = 'kafka' AND status <> 'retired'`);
}

/** Kafka messages -> StoredEvent -> applyBatch, one Postgres checkpoint row per topic-partition. */
export function createKafkaTransport(options: KafkaTransportOptions): KafkaTransport {
  const { pool, kafka, registry, listener, logger } = options;
  const topics = options.topics ?? OTOG_TOPICS;
  const topicForScope = options.topicForScope ?? defaultTopicForScope;
  const groupIdPrefix = options.groupIdPrefix ?? 'otog.';

  /** One metadata client per transport, connected on first use (waits, consumer lag). */
  let admin: Promise<Admin> | undefined;
  const connectedAdmin = (): Promise<Admin> => {
    admin ??= (async () => {
      const client = kafka.admin();
      await client.connect();
      return client;
    })().catch((error: unknown) => {
      admin = undefined;
      throw error;
    });
    return admin;
  };

  // Partition counts never change for our topics (that would move keys); one lookup per topic.
  const partitionsOf = new Map<string, Promise<PartitionMetadata[]>>();
  const fetchPartitions = (topic: string): Promise<PartitionMetadata[]> => {
    let known = partitionsOf.get(topic);
    if (!known) {
      known = connectedAdmin()
        .then((client) => client.fetchTopicMetadata({ topics: [topic] }))
        .then(({ topics: [metadata] }) => {
          if (!metadata || metadata.partitions.length === 0) throw new Error(`no metadata for topic ${topic}`);
          return metadata.partitions;
        });
      known.catch(() => partitionsOf.delete(topic));
      partitionsOf.set(topic, known);
    }
    return known;
  };

  const waitForConsumer = async (
    consumer: string,
    event: Position & { scope: string },
    timeoutMs: number,
    crashed: () => string | undefined = () => undefined,
  ): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    const topic = topicForScope(event.scope);
    const key = partitionCheckpointKey(consumer, topic, partitionForKey(topic, event.scope, await fetchPartitions(topic)));
    const logKey: CheckpointKey = { consumer, source: 'pglog', part: '*' };
    return waitForCheckpoint(
      listener,
      consumer,
      async () => {
        const crash = crashed();
        if (crash) return { state: 'faulted', detail: `Kafka consumer crashed: ${crash}` };
        const checkpoint = await readCheckpoint(pool, key);
        if (!checkpoint) {
          // Before the partition's first batch its row does not exist yet; it will start from the log
          // checkpoint (handover), so what that one covers counts as reached.
          const fromLog = await readCheckpoint(pool, logKey);
          return fromLog && comparePositions(fromLog, event) >= 0 ? { state: 'reached' } : { state: 'pending' };
        }
        if (comparePositions(checkpoint, event) >= 0) return { state: 'reached' };
        if (checkpoint.status === 'faulted') return { state: 'faulted', detail: JSON.stringify(checkpoint.error) };
        return { state: 'pending' };
      },
      Math.max(0, deadline - Date.now()),
    );
  };

  const consumerLag = async (consumer: Pick<EventConsumer, 'name' | 'scopeKinds'>): Promise<PartitionLag[]> => {
    const rows = await pool.any(sql.type(z.object({ part: z.string(), offset: z.bigint().nullable() }))`
      SELECT part, kafka_offset AS "offset" FROM consumer_checkpoints WHERE consumer = ${consumer.name} AND source = 'kafka'`);
    const applied = new Map(rows.map((row) => [row.part, row.offset]));
    const client = await connectedAdmin();
    const lags: PartitionLag[] = [];
    for (const topic of topicsOf(consumer)) {
      for (const { partition, high, low } of await client.fetchTopicOffsets(topic)) {
        const offset = applied.get(`${topic}/${partition}`);
        // `high` is the offset the next message will get; a partition never read owes everything it holds.
        const next = offset === undefined || offset === null ? BigInt(low) : offset + 1n;
        lags.push({ topic, partition, messages: Math.max(0, Number(BigInt(high) - next)) });
      }
    }
    return lags;
  };

  const topicsOf = (consumer: Pick<EventConsumer, 'scopeKinds'>): readonly string[] =>
    consumer.scopeKinds ? [...new Set([...consumer.scopeKinds].map((kind) => topicForScope(`${kind}:`)))] : topics;

  return {
    kind: 'kafka',
    waitForConsumer: (consumer, event, timeoutMs = 10_000) => waitForConsumer(consumer, event, timeoutMs),
    topicsOf,
    consumerLag,
    async close() {
      const client = admin;
      admin = undefined;
      partitionsOf.clear();
      if (client) await (await client.catch(() => undefined))?.disconnect();
    },
    async subscribe(consumer: EventConsumer, subscribeOptions: SubscribeOptions = {}): Promise<Subscription> {
      const batchSize = subscribeOptions.batchSize ?? 500;
      const maxAttempts = subscribeOptions.maxAttempts ?? 5;
      const logKey: CheckpointKey = { consumer: consumer.name, source: 'pglog', part: '*' };
      const partitionKey = (topic: string, partition: number) => partitionCheckpointKey(consumer.name, topic, partition);
      let running = true;
      let crashed: string | undefined;

      /**
       * Locks this partition's checkpoint row, creating it on first use. FOR UPDATE without SKIP LOCKED: a
       * zombie member still holding a partition after a rebalance queues behind the new owner, then sees the
       * row as the owner left it and drops what was applied meanwhile by position. Null: the partition may not
       * start (the log part is faulted, or a cutover retired the slot).
       */
      const lockPartition = async (tx: DatabaseTransactionConnection, key: CheckpointKey): Promise<Checkpoint | null> => {
        const existing = await lockCheckpoint(tx, key, { skipLocked: false });
        if (existing) return existing;
        // Handover from the log: start where this consumer's pglog checkpoint is (everything at or below it
        // was applied, in log order), else at the log start. Locking that row waits out a pglog batch in
        // flight; retiring it stops every log instance of the consumer for good (their next step finds it not
        // running), so nothing past the seed is applied by both. Its position stays: the seed of later partitions.
        await ensureCheckpoint(tx, logKey);
        const fromLog = await lockCheckpoint(tx, logKey, { skipLocked: false });
        if (!fromLog) throw new Error(`checkpoint * of ${key.consumer} vanished while being created`);
        if (fromLog.status === 'running') {
          await retireCheckpoint(tx, logKey);
          logger?.info({ consumer: consumer.name, from: fromLog }, 'consumer handed over from the log to Kafka');
        } else if (fromLog.status === 'faulted' || !(await handedOver(tx, consumer.name))) {
          // Faulted on the log (skip or rebuild it there first), or retired by a cutover: nothing to start here.
          return null;
        }
        await ensureCheckpoint(tx, key, fromLog);
        const created = await lockCheckpoint(tx, key, { skipLocked: false });
        if (!created) throw new Error(`checkpoint ${key.part} of ${key.consumer} vanished while being created`);
        return created;
      };

      const fault = async (key: CheckpointKey, eventId: string | null, message: string, attempts: number, offset?: string) => {
        const detail = { eventId, message, attempts, ...(offset === undefined ? {} : { offset }) };
        await markFaulted(pool, key, detail);
        logger?.error({ consumer: consumer.name, part: key.part, ...detail }, 'consumer partition faulted; it stays stopped until skipped or rebuilt');
        subscribeOptions.onFault?.(detail);
      };

      /**
       * Partitions stopped on their checkpoint's status, with what resumes them: one faulted and then skipped
       * by an operator (`projections skip`) runs again without a restart.
       */
      const stoppedParts = new Map<string, { key: CheckpointKey; resume: () => void }>();
      const stopPartition = (key: CheckpointKey, payload: EachBatchPayload) => stoppedParts.set(key.part, { key, resume: payload.pause() });
      const resumeTimer = setInterval(() => {
        for (const [part, { key, resume }] of stoppedParts) {
          Promise.all([readCheckpoint(pool, key), readCheckpoint(pool, logKey)])
            .then(([checkpoint, fromLog]) => {
              const startable = checkpoint ? checkpoint.status === 'running' : fromLog?.status === 'running';
              if (!startable || stoppedParts.get(part)?.resume !== resume) return;
              stoppedParts.delete(part);
              resume();
              logger?.info({ consumer: consumer.name, part }, 'consumer partition resumes');
            })
            .catch(() => undefined);
        }
      }, 2_000);
      resumeTimer.unref();

      /** Backoff that keeps the group membership alive (kafkajs only heartbeats when we call it). */
      const backoff = async (ms: number, payload: EachBatchPayload) => {
        const until = Date.now() + ms;
        while (running && payload.isRunning() && Date.now() < until) {
          await delay(Math.min(200, until - Date.now()));
          await payload.heartbeat();
        }
      };

      const eachBatch = async (payload: EachBatchPayload): Promise<void> => {
        const { batch } = payload;
        const key = partitionKey(batch.topic, batch.partition);
        const messages = batch.messages;
        let index = 0;
        let failures = 0;
        // After a failed chunk, go one event at a time through all of it: the fault then names the exact
        // event, and the events before it are applied instead of failing again with the whole chunk.
        let carefulUntil = 0;
        while (index < messages.length) {
          // Stopping, or the partition was revoked/seeked: leave the rest unresolved for whoever reads next.
          if (!running || !payload.isRunning() || payload.isStale()) return;
          const chunk = messages.slice(index, index + (index < carefulUntil ? 1 : batchSize));
          const events: StoredEvent[] = [];
          let undecodable: EventMessageError | undefined;
          for (const message of chunk) {
            try {
              events.push(decodeEventMessage(message, registry));
            } catch (error) {
              if (!(error instanceof EventMessageError)) throw error;
              undecodable = error;
              break;
            }
          }
          if (events.length === 0) {
            const poison = chunk[0]!;
            // An operator skipped it (`projections skip` moves the row's offset onto it): pass it over.
            const row = await readCheckpoint(pool, key);
            if (row?.kafkaOffset != null && BigInt(poison.offset) <= row.kafkaOffset) {
              index += 1;
              payload.resolveOffset(poison.offset);
              continue;
            }
            // Deterministic: retrying cannot help. Stop this partition, naming the message and its offset.
            await fault(key, undecodable!.eventId, undecodable!.message, 1, poison.offset);
            stopPartition(key, payload);
            return;
          }

          let outcome: BatchOutcome | 'stopped';
          try {
            outcome = await pool.transaction(async (tx) => {
              const checkpoint = await lockPartition(tx, key);
              if (checkpoint?.status !== 'running') return 'stopped' as const;
              const last = chunk[events.length - 1]!;
              return applyBatch(tx, key, checkpoint, consumer, events, { kafkaOffset: BigInt(last.offset) });
            });
          } catch (error) {
            if (error instanceof CheckpointConflictError) continue;
            failures += 1;
            carefulUntil = Math.max(carefulUntil, index + events.length);
            const message = error instanceof Error ? error.message : String(error);
            logger?.warn({ consumer: consumer.name, part: key.part, attempt: failures, err: message }, 'consumer batch failed');
            if (failures >= maxAttempts) {
              // The first event past the checkpoint is the one that keeps failing (normally we are down to one).
              const checkpoint = await readCheckpoint(pool, key);
              const culprit = events.find((event) => !checkpoint || comparePositions(event, checkpoint) > 0) ?? events[0]!;
              await fault(key, culprit.eventId, message, failures);
              stopPartition(key, payload);
              return;
            }
            await backoff(Math.min(50 * 2 ** failures, 5_000), payload);
            continue;
          }
          if (outcome === 'stopped') {
            // Faulted (here or by another member) or retired: consume nothing more from this partition.
            stopPartition(key, payload);
            return;
          }
          failures = 0;
          subscribeOptions.onBatch?.(outcome);
          index += events.length;
          const lastOffset = chunk[events.length - 1]!.offset;
          payload.resolveOffset(lastOffset);
          // Only an optimisation (where a restarted member starts fetching): the Postgres checkpoint is the truth.
          await payload.commitOffsetsIfNecessary({
            topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: (BigInt(lastOffset) + 1n).toString() }] }],
          });
          await payload.heartbeat();
        }
      };

      const kafkaConsumer: Consumer = kafka.consumer({
        ...options.consumerConfig,
        groupId: `${groupIdPrefix}${consumer.name}`,
      });
      kafkaConsumer.on(kafkaConsumer.events.CRASH, (event) => {
        const message = event.payload.error.message;
        if (event.payload.restart) {
          logger?.warn({ consumer: consumer.name, err: message }, 'Kafka consumer crashed; kafkajs restarts it');
        } else {
          crashed = message;
          logger?.error({ consumer: consumer.name, err: message }, 'Kafka consumer crashed and will not restart');
        }
      });
      await kafkaConsumer.connect();
      try {
        // A new group starts at the beginning of every partition: a new consumer name replays the log.
        await kafkaConsumer.subscribe({ topics: [...topicsOf(consumer)], fromBeginning: true });
        await kafkaConsumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 1,
          eachBatch,
        });
      } catch (error) {
        await kafkaConsumer.disconnect().catch(() => undefined);
        throw error;
      }

      return {
        consumer: consumer.name,
        waitFor: (event, timeoutMs = 10_000) => waitForConsumer(consumer.name, event, timeoutMs, () => crashed),
        failure: () => crashed,
        async stop() {
          running = false;
          clearInterval(resumeTimer);
          // Waits for the batch in hand, then leaves the group so the others take the partitions over.
          await kafkaConsumer.disconnect();
        },
      };
    },
  };
}
