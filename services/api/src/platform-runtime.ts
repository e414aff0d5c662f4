import type { Logger } from 'pino';
import { allProjections } from '@otog/projections';
import { otogEventRegistry } from '@otog/schemas/events';
import { createNotificationListener, type NotificationListener } from '@otog/platform/db/listen';
import { createDbPool, type DatabasePool } from '@otog/platform/db/pool';
import { createEventStore, type EventStore } from '@otog/platform/eventstore/event-store';
import { startProjectionRunner, type ProjectionRunner } from '@otog/platform/runner/projection-runner';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { createKafkaRelay } from '@otog/platform/relay/kafka-relay';
import type { Subscription } from '@otog/platform/transport/event-transport';
import { Kafka, logLevel } from 'kafkajs';
import { judgeTaskReactor } from './judging/judge-task-reactor.ts';

/**
 * The event-sourcing core one process holds: pool, event store, wake-ups, the projections it folds and
 * the reactors it runs.
 */
export interface PlatformRuntime {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly listener: NotificationListener;
  readonly projections: ProjectionRunner;
  /** The judge-task reactor (SubmissionCreated / RejudgeRequested -> judge_tasks rows), on the Postgres log. */
  readonly judgeTasks: Subscription;
  stop(): Promise<void>;
}

/**
 * With `kafkaBrokers`, the outbox relay also runs here: it publishes the log to Kafka for consumers in
 * other processes (single active relay across processes, by its checkpoint lock).
 */
export async function startPlatformRuntime(options: {
  databaseUrl: string;
  logger: Logger;
  kafkaBrokers?: readonly string[];
}): Promise<PlatformRuntime> {
  const { databaseUrl, logger } = options;
  const pool = await createDbPool(databaseUrl, { maximumPoolSize: 20 });
  const listener = createNotificationListener(databaseUrl, logger);
  const store = createEventStore(pool, otogEventRegistry);
  const transport = createPgLogTransport({ pool, store, listener, logger });
  const projections = await startProjectionRunner({ pool, store, transport, projections: allProjections, logger });
  // Single active across processes by its checkpoint lock, like a projection slot; never rebuilt.
  const judgeTasks = await transport.subscribe(judgeTaskReactor);
  let relay: { subscription: Subscription; disconnect(): Promise<void> } | undefined;
  if (options.kafkaBrokers?.length) {
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
    judgeTasks,
    async stop() {
      await relay?.subscription.stop();
      await relay?.disconnect();
      await judgeTasks.stop();
      await projections.stop();
      await listener.close();
      await pool.end();
    },
  };
}
