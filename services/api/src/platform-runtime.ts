import type { Logger } from 'pino';
import { allProjections } from '@otog/projections';
import { otogEventRegistry } from '@otog/schemas/events';
import { createNotificationListener, type NotificationListener } from '@otog/platform/db/listen';
import { createDbPool, type DatabasePool } from '@otog/platform/db/pool';
import { createEventStore, type EventStore } from '@otog/platform/eventstore/event-store';
import { startProjectionRunner, type ProjectionRunner } from '@otog/platform/runner/projection-runner';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';

/** The event-sourcing core one process holds: pool, event store, wake-ups and the projections it folds. */
export interface PlatformRuntime {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly listener: NotificationListener;
  readonly projections: ProjectionRunner;
  stop(): Promise<void>;
}

export async function startPlatformRuntime(options: { databaseUrl: string; logger: Logger }): Promise<PlatformRuntime> {
  const { databaseUrl, logger } = options;
  const pool = await createDbPool(databaseUrl, { maximumPoolSize: 20 });
  const listener = createNotificationListener(databaseUrl, logger);
  const store = createEventStore(pool, otogEventRegistry);
  const transport = createPgLogTransport({ pool, store, listener, logger });
  const projections = await startProjectionRunner({ pool, store, transport, projections: allProjections, logger });
  return {
    pool,
    store,
    listener,
    projections,
    async stop() {
      await projections.stop();
      await listener.close();
      await pool.end();
    },
  };
}
