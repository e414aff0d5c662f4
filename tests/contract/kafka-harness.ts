import { randomBytes } from 'node:crypto';
import { logLevel, type ConsumerConfig, type Kafka, type logCreator } from 'kafkajs';
import { createNotificationListener } from '@otog/platform/db/listen';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { HEADERS, OTOG_TOPICS, UnroutableScopeError, type TopicRouter } from '@otog/platform/relay/kafka-messages';
import { createKafkaRelay } from '@otog/platform/relay/kafka-relay';
import { createKafkaTransport, type KafkaTransport } from '@otog/platform/transport/kafka-transport';
import type { EventTransport } from '@otog/platform/transport/event-transport';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { createTestDatabase } from '../support/test-db.ts';
import { testRegistry } from '../support/test-events.ts';
import { until } from '../support/until.ts';
import type { ContractHarness } from './event-transport.contract.ts';

/**
 * kafkajs errors on stderr, minus "the group is rebalancing": every join, leave and handover answers
 * heartbeats with that, by design, and it would bury anything real.
 */
export const quietKafkaLogs: logCreator = () => (entry) => {
  if (entry.level > logLevel.ERROR) return;
  const { message, error, ...rest } = entry.log as { message: string; error?: string; [key: string]: unknown };
  if (typeof error === 'string' && /rebalanc/i.test(error)) return;
  process.stderr.write(`kafkajs ${entry.namespace}: ${message}${error ? ` (${error})` : ''} ${JSON.stringify(rest)}\n`);
};

export interface KafkaHarnessOptions {
  readonly kafka: Kafka;
  readonly consumerConfig?: Omit<Partial<ConsumerConfig>, 'groupId'>;
  /** Create the topics first with this many partitions (real brokers; the mock auto-creates 4 and has no CreateTopics). */
  readonly createTopicsWithPartitions?: number;
}

/**
 * The real pipeline: events appended to Postgres, relayed to Kafka by the outbox relay (running on the
 * log transport), consumed through the Kafka transport. Topics and consumer groups are unique per harness.
 */
export interface KafkaHarness extends ContractHarness {
  readonly transport: KafkaTransport;
  /** The Postgres-log transport the relay runs on (for handover tests). */
  readonly log: EventTransport;
}

export async function createKafkaHarness(options: KafkaHarnessOptions): Promise<KafkaHarness> {
  const { kafka } = options;
  const db = await createTestDatabase();
  const store = createEventStore(db.pool, testRegistry);
  const listener = createNotificationListener(db.url);
  const prefix = `ct-${randomBytes(5).toString('hex')}`;
  const topicOf: Record<string, string> = { user: `${prefix}.user`, contest: `${prefix}.contest`, chat: `${prefix}.chat` };
  const topics = Object.values(topicOf);
  const topicForScope: TopicRouter = (scope) => {
    const topic = topicOf[scope.slice(0, scope.indexOf(':'))];
    if (!topic) throw new UnroutableScopeError(scope);
    return topic;
  };
  if (options.createTopicsWithPartitions) {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: topics.map((topic) => ({ topic, numPartitions: options.createTopicsWithPartitions!, replicationFactor: 1 })),
      });
    } finally {
      await admin.disconnect();
    }
  }

  const log = createPgLogTransport({ pool: db.pool, store, listener, pollIntervalMs: 200 });
  const relay = createKafkaRelay({ kafka, topicForScope });
  await relay.connect();
  const relaying = await log.subscribe(relay, { maxAttempts: 10 });
  const created: KafkaTransport[] = [];
  const transport = (groupIdPrefix: string) => {
    const made = createKafkaTransport({
      pool: db.pool,
      kafka,
      registry: testRegistry,
      listener,
      topics,
      topicForScope,
      groupIdPrefix,
      ...(options.consumerConfig ? { consumerConfig: options.consumerConfig } : {}),
    });
    created.push(made);
    return made;
  };
  let rewinds = 0;
  let republished = 0;

  return {
    pool: db.pool,
    store,
    log,
    transport: transport(`${prefix}.`),
    // A new consumer group: no committed offsets, so it starts at offset 0 of every partition.
    rewound: () => transport(`${prefix}.rewound${(rewinds += 1)}.`),
    splitsWork: true,
    rewindRedelivers: true,
    // A second relay (another checkpoint name) publishes the whole log again, as a relay crash between
    // produce and commit would for a batch.
    async republish() {
      republished += 1;
      const again = createKafkaRelay({ kafka, topicForScope, name: `relay:kafka:again${republished}` });
      await again.connect();
      try {
        const subscription = await log.subscribe(again);
        const head = await store.headPosition();
        await subscription.waitFor({ ...head, scope: 'user:head' }, 30_000);
        await subscription.stop();
      } finally {
        await again.disconnect();
      }
      return 1 + republished;
    },
    async close() {
      await Promise.all(created.map((made) => made.close()));
      await relaying.stop();
      await relay.disconnect();
      await listener.close();
      await db.drop();
    },
  };
}

/**
 * Reads the product's topics from the beginning, with a group of its own, until each of `eventIds` has been
 * seen, and answers the topic each one is on. Other suites relay to the same topics: only these ids count.
 */
export async function topicsOfEvents(kafka: Kafka, eventIds: ReadonlySet<string>, timeoutMs = 30_000): Promise<Map<string, string>> {
  const consumer = kafka.consumer({ groupId: `otog-topics-of-events-${randomBytes(6).toString('hex')}`, maxWaitTimeInMs: 100 });
  const seen = new Map<string, string>();
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...OTOG_TOPICS], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        const eventId = message.headers?.[HEADERS.eventId]?.toString();
        if (eventId && eventIds.has(eventId)) seen.set(eventId, topic);
      },
    });
    await until(`all ${eventIds.size} events are on Kafka`, () => seen.size === eventIds.size, timeoutMs);
  } finally {
    await consumer.disconnect();
  }
  return seen;
}
