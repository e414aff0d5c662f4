import { setTimeout as delay } from 'node:timers/promises';
import type { Admin, Consumer, ConsumerConfig, EachBatchPayload, Kafka, PartitionMetadata } from 'kafkajs';
import type { Logger } from 'pino';
import type { EventRegistry } from '@otog/schemas/events';
import type { DatabasePool, DatabaseTransactionConnection } from '../db/pool.ts';
import type { NotificationListener } from '../db/listen.ts';
import type { StoredEvent } from '../eventstore/event-store.ts';
import { LOG_START, comparePositions } from '../eventstore/position.ts';
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

/** Kafka messages -> StoredEvent -> applyBatch, one Postgres checkpoint row per topic-partition. */
export function createKafkaTransport(options: KafkaTransportOptions): EventTransport {
  const { pool, kafka, registry, listener, logger } = options;
  const topics = options.topics ?? OTOG_TOPICS;
  const topicForScope = options.topicForScope ?? defaultTopicForScope;
  const groupIdPrefix = options.groupIdPrefix ?? 'otog.';

  return {
    kind: 'kafka',
    async subscribe(consumer: EventConsumer, subscribeOptions: SubscribeOptions = {}): Promise<Subscription> {
      const batchSize = subscribeOptions.batchSize ?? 500;
      const maxAttempts = subscribeOptions.maxAttempts ?? 5;
      const logKey: CheckpointKey = { consumer: consumer.name, source: 'pglog', part: '*' };
      const partitionKey = (topic: string, partition: number): CheckpointKey => ({
        consumer: consumer.name,
        source: 'kafka',
        part: `${topic}/${partition}`,
      });
      let running = true;
      let crashed: string | undefined;

      /**
       * Locks this partition's checkpoint row, creating it on first use. FOR UPDATE without SKIP LOCKED: a
       * zombie member still holding a partition after a rebalance queues behind the new owner, then sees the
       * row as the owner left it and drops what was applied meanwhile by position.
       */
      const lockPartition = async (tx: DatabaseTransactionConnection, key: CheckpointKey): Promise<Checkpoint> => {
        const existing = await lockCheckpoint(tx, key, { skipLocked: false });
        if (existing) return existing;
        // Handover from the log: start where this consumer's pglog checkpoint is (everything at or below it
        // was applied, in log order), else at the log start. Locking that row waits out a pglog batch in
        // flight. The row is left as it is (projection slots read it); the pglog instance must be stopped
        // before the consumer moves to Kafka, or events past the seed would be applied by both.
        const fromLog = await lockCheckpoint(tx, logKey, { skipLocked: false });
        await ensureCheckpoint(tx, key, fromLog ?? LOG_START);
        if (fromLog) logger?.info({ consumer: consumer.name, part: key.part, from: fromLog }, 'Kafka partition starts at the log checkpoint');
        const created = await lockCheckpoint(tx, key, { skipLocked: false });
        if (!created) throw new Error(`checkpoint ${key.part} of ${key.consumer} vanished while being created`);
        return created;
      };

      const fault = async (key: CheckpointKey, eventId: string | null, message: string, attempts: number) => {
        const detail = { eventId, message, attempts };
        await markFaulted(pool, key, detail);
        logger?.error({ consumer: consumer.name, part: key.part, ...detail }, 'consumer partition faulted; it stays stopped until skipped or rebuilt');
        subscribeOptions.onFault?.(detail);
      };

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
            // Deterministic: retrying cannot help. Stop this partition, naming the message.
            await fault(key, undecodable!.eventId, undecodable!.message, 1);
            payload.pause();
            return;
          }

          let outcome: BatchOutcome | 'stopped';
          try {
            outcome = await pool.transaction(async (tx) => {
              const checkpoint = await lockPartition(tx, key);
              if (checkpoint.status !== 'running') return 'stopped' as const;
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
              payload.pause();
              return;
            }
            await backoff(Math.min(50 * 2 ** failures, 5_000), payload);
            continue;
          }
          if (outcome === 'stopped') {
            // Faulted (here or by another member) or retired: consume nothing more from this partition.
            payload.pause();
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
        await kafkaConsumer.subscribe({ topics: [...topics], fromBeginning: true });
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

      // Partition counts never change for our topics (that would move keys); one lookup per topic.
      let admin: Promise<Admin> | undefined;
      const partitionsOf = new Map<string, Promise<PartitionMetadata[]>>();
      const fetchPartitions = (topic: string): Promise<PartitionMetadata[]> => {
        let known = partitionsOf.get(topic);
        if (!known) {
          admin ??= (async () => {
            const client = kafka.admin();
            await client.connect();
            return client;
          })().catch((error: unknown) => {
            admin = undefined;
            throw error;
          });
          known = admin
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

      return {
        consumer: consumer.name,
        async waitFor(event, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          const topic = topicForScope(event.scope);
          const key = partitionKey(topic, partitionForKey(topic, event.scope, await fetchPartitions(topic)));
          return waitForCheckpoint(
            listener,
            consumer.name,
            async () => {
              if (crashed) return { state: 'faulted', detail: `Kafka consumer crashed: ${crashed}` };
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
        },
        async stop() {
          running = false;
          // Waits for the batch in hand, then leaves the group so the others take the partitions over.
          await kafkaConsumer.disconnect();
          if (admin) await (await admin).disconnect();
        },
      };
    },
  };
}
