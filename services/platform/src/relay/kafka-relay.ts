import type { Kafka, Message, Producer } from 'kafkajs';
import { comparePositions } from '../eventstore/position.ts';
import type { EventConsumer } from '../runner/consumer.ts';
import { defaultTopicForScope, encodeEventMessage, relayPartitioner, type TopicRouter } from './kafka-messages.ts';

/** The relay's checkpoint name on the Postgres-log transport. */
export const KAFKA_RELAY_NAME = 'relay:kafka';

export interface KafkaRelayOptions {
  readonly kafka: Kafka;
  /** Scope -> topic. The Kafka transport must be given the same function to find events again. */
  readonly topicForScope?: TopicRouter;
  /** Checkpoint name; a second name re-publishes the whole log from the start (a deliberate replay). */
  readonly name?: string;
  /** Per produce request, waiting for all in-sync replicas. */
  readonly sendTimeoutMs?: number;
}

export interface KafkaRelay extends EventConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * The outbox relay: an EventConsumer to run on the Postgres-log transport (single active instance by its
 * checkpoint lock) that publishes each batch to Kafka, one message per event, keyed by scope.
 *
 * The produce happens inside the checkpoint transaction, before it commits. A crash (or a failed commit)
 * after Kafka acknowledged the batch therefore re-publishes it on the next run: Kafka sees the same events
 * again at higher offsets. That is safe because every Kafka consumer drops what its Postgres checkpoint
 * already covers, by log position (applyBatch). The reverse cannot happen: the checkpoint never moves past
 * an event Kafka has not acknowledged.
 */
export function createKafkaRelay(options: KafkaRelayOptions): KafkaRelay {
  const topicForScope = options.topicForScope ?? defaultTopicForScope;
  const sendTimeoutMs = options.sendTimeoutMs ?? 30_000;
  const producer: Producer = options.kafka.producer({
    // Not idempotent: kafkajs gets the producer id from the controller, and librdkafka's mock cluster (our
    // test broker) reports controller id 0, which does not exist. Duplicates from producer retries are
    // harmless (dropped by position) and maxInFlightRequests 1 keeps retries from reordering a partition.
    idempotent: false,
    maxInFlightRequests: 1,
    // Explicit (and shared with the transport's waitFor): Java-compatible murmur2 of the key.
    createPartitioner: relayPartitioner,
  });
  let connected = false;

  return {
    name: options.name ?? KAFKA_RELAY_NAME,
    // The message carries data as stored beside its stored schemaVersion; consumers upcast with their registry.
    storedData: true,
    async connect() {
      await producer.connect();
      connected = true;
    },
    async disconnect() {
      connected = false;
      await producer.disconnect();
    },
    async handle(tx, events) {
      if (!connected) throw new Error('the Kafka relay is not connected (call connect() before subscribing it)');
      // The transport delivers in (txid, gpos) order; keep it so positions rise within every partition.
      const ordered = [...events].sort(comparePositions);
      const byTopic = new Map<string, Message[]>();
      for (const event of ordered) {
        const topic = topicForScope(event.scope);
        let messages = byTopic.get(topic);
        if (!messages) byTopic.set(topic, (messages = []));
        messages.push(encodeEventMessage(event));
      }
      // acks -1: the batch counts as published only once every in-sync replica has it.
      await producer.sendBatch({
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
        acks: -1,
        timeout: sendTimeoutMs,
      });
    },
  };
}
