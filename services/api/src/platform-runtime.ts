import type { Logger } from 'pino';
import { allProjections, noticeFeeds } from '@otog/projections';
import { otogEventRegistry } from '@otog/schemas/events';
import { createNotificationListener, type NotificationListener } from '@otog/platform/db/listen';
import { createDbPool, type DatabasePool } from '@otog/platform/db/pool';
import { createEventStore, type EventStore } from '@otog/platform/eventstore/event-store';
import { startProjectionRunner, type ProjectionRunner } from '@otog/platform/runner/projection-runner';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { createKafkaTransport, type KafkaTransport } from '@otog/platform/transport/kafka-transport';
import { createKafkaNoticeFeeds, withFeeds, type KafkaNoticeFeeds } from '@otog/platform/notices/kafka-feed';
import type { Notifier } from '@otog/platform/notices/notice';
import { createPgNotifier } from '@otog/platform/notices/pg-notifier';
import { createRedisNotifier } from '@otog/platform/notices/redis-notifier';
import { createKafkaRelay } from '@otog/platform/relay/kafka-relay';
import type { Subscription } from '@otog/platform/transport/event-transport';
import { Kafka, logLevel } from 'kafkajs';
import { ROLES, type Role } from './config.ts';
import { judgeTaskReactor } from './judging/judge-task-reactor.ts';

/**
 * The event-sourcing core one process holds: pool, event store, wake-ups, the projections it folds and
 * the reactors it runs.
 */
export interface PlatformRuntime {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly listener: NotificationListener;
  /** Folds the read models with the `projector` role; without it folds nothing and only waits for them. */
  readonly projections: ProjectionRunner;
  /** With projections reading Kafka: the transport (waits, consumer lag). */
  readonly kafka: KafkaTransport | undefined;
  /** The judge-task reactor (SubmissionCreated / RejudgeRequested -> judge_tasks rows), with the `judge-queue` role. */
  readonly judgeTasks: Subscription | undefined;
  /**
   * After-commit notices of the live read models ("submission 42 changed"), from whichever process folds
   * them: through Redis pub/sub with `redisUrl`, else through Postgres NOTIFY.
   */
  readonly notices: Notifier;
  stop(): Promise<void>;
}

/**
 * Starts what `roles` (default: all) ask of the event-sourcing core. With `relay` and `kafkaBrokers`, the
 * outbox relay publishes the log to Kafka for consumers in other processes. Projection slots, the reactor
 * and the relay are each single-active across processes by their checkpoint lock, so any number of nodes
 * may run the same role (standbys).
 */
export async function startPlatformRuntime(options: {
  databaseUrl: string;
  logger: Logger;
  kafkaBrokers?: readonly string[];
  /** Contest projections read their Kafka topics (needs kafkaBrokers and a relay somewhere). */
  projectionsFromKafka?: boolean;
  /** Consumer group session timeout (ms): how soon a standby takes the partitions of a dead projector over. */
  kafkaSessionTimeoutMs?: number;
  redisUrl?: string;
  roles?: readonly Role[];
}): Promise<PlatformRuntime> {
  const { databaseUrl, logger } = options;
  const roles = options.roles ?? ROLES;
  const pool = await createDbPool(databaseUrl, { maximumPoolSize: 20 });
  const listener = createNotificationListener(databaseUrl, logger);
  const store = createEventStore(pool, otogEventRegistry);
  const transport = createPgLogTransport({ pool, store, listener, logger });
  const notices = options.redisUrl ? createRedisNotifier({ url: options.redisUrl, logger }) : createPgNotifier({ pool, listener, logger });
  const projector = roles.includes('projector');
  // Scaled, the projector also feeds chosen read-model changes (ContestScoreChanged, ...) to Kafka topics.
  let feeds: KafkaNoticeFeeds | undefined;
  if (projector && options.kafkaBrokers?.length) {
    feeds = createKafkaNoticeFeeds(new Kafka({ clientId: 'otog-feeds', brokers: [...options.kafkaBrokers], logLevel: logLevel.WARN }), noticeFeeds);
    await feeds.connect();
  }
  let kafka: KafkaTransport | undefined;
  if (options.projectionsFromKafka && options.kafkaBrokers?.length) {
    const sessionTimeout = options.kafkaSessionTimeoutMs ?? 10_000;
    kafka = createKafkaTransport({
      pool,
      kafka: new Kafka({ clientId: 'otog-projections', brokers: [...options.kafkaBrokers], logLevel: logLevel.WARN }),
      registry: otogEventRegistry,
      listener,
      logger,
      consumerConfig: {
        sessionTimeout,
        heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeout / 4)),
        rebalanceTimeout: Math.max(10_000, 2 * sessionTimeout),
        // A fetch returns as soon as a message is there; this only bounds an idle partition's wait.
        maxWaitTimeInMs: 100,
      },
    });
  }
  const projections = await startProjectionRunner({
    pool,
    store,
    transport,
    ...(kafka ? { kafka } : {}),
    projections: allProjections,
    // Without the role the runner folds nothing and answers waitFor from the checkpoints a projector moves.
    fold: projector,
    listener,
    notifier: feeds ? withFeeds(notices, feeds, logger) : notices,
    logger,
  });
  // Never rebuilt.
  const judgeTasks = roles.includes('judge-queue') ? await transport.subscribe(judgeTaskReactor) : undefined;
  let relay: { subscription: Subscription; disconnect(): Promise<void> } | undefined;
  if (roles.includes('relay') && options.kafkaBrokers?.length) {
    const kafka = new Kafka({ clientId: 'otog-relay', brokers: [...options.kafkaBrokers], logLevel: logLevel.WARN });
    const consumer = createKafkaRelay({ kafka });
    await consumer.connect();
    relay = { subscription: await transport.subscribe(consumer, { batchSize: 1_000 }), disconnect: () => consumer.disconnect() };
    logger.info({ brokers: options.kafkaBrokers }, 'relaying the event log to Kafka');
  }
  return {
    pool,
    store,
    listener,
    projections,
    kafka,
    judgeTasks,
    notices,
    async stop() {
      await relay?.subscription.stop();
      await relay?.disconnect();
      await judgeTasks?.stop();
      await projections.stop();
      await kafka?.close();
      await feeds?.disconnect();
      await notices.close();
      await listener.close();
      await pool.end();
    },
  };
}
