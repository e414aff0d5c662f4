import { sql } from '@otog/platform/db/pool';
import { createNotificationListener, type NotificationListener } from '@otog/platform/db/listen';
import { createEventStore, type EventStore } from '@otog/platform/eventstore/event-store';
import type { ProjectionDefinition } from '@otog/platform/runner/projection';
import { startProjectionRunner, type ProjectionRunner, type ProjectionRunnerOptions } from '@otog/platform/runner/projection-runner';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import type { TestDatabase } from './test-db.ts';
import { testRegistry } from './test-events.ts';

/** One "process" worth of platform: its own listener, store, Postgres-log transport and runner. */
export interface TestProjector {
  readonly store: EventStore;
  readonly runner: ProjectionRunner;
  readonly listener: NotificationListener;
  stop(): Promise<void>;
}

export async function startTestProjector(
  db: TestDatabase,
  projections: readonly ProjectionDefinition[],
  options: Partial<Pick<ProjectionRunnerOptions, 'autoCutover' | 'subscribeOptions' | 'refreshIntervalMs' | 'dropRetiredAfterMs'>> & {
    pollIntervalMs?: number;
  } = {},
): Promise<TestProjector> {
  const listener = createNotificationListener(db.url);
  const store = createEventStore(db.pool, testRegistry);
  const transport = createPgLogTransport({ pool: db.pool, store, listener, pollIntervalMs: options.pollIntervalMs ?? 50 });
  const runner = await startProjectionRunner({ pool: db.pool, store, transport, projections, ...options });
  return {
    store,
    runner,
    listener,
    async stop() {
      await runner.stop();
      await listener.close();
    },
  };
}

export async function dumpTable(db: TestDatabase, table: string, orderBy: string): Promise<readonly unknown[]> {
  return db.pool.any(sql.unsafe`SELECT * FROM ${sql.identifier([table])} ORDER BY ${sql.identifier([orderBy])}`);
}
