import { createNotificationListener } from '@otog/platform/db/listen';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { createTestDatabase } from '../support/test-db.ts';
import { testRegistry } from '../support/test-events.ts';
import { eventTransportContract, type ContractHarness } from './event-transport.contract.ts';

async function createPgLogHarness(): Promise<ContractHarness> {
  const db = await createTestDatabase();
  const store = createEventStore(db.pool, testRegistry);
  const listener = createNotificationListener(db.url);
  const transport = () => createPgLogTransport({ pool: db.pool, store, listener, pollIntervalMs: 200 });
  return {
    pool: db.pool,
    store,
    transport: transport(),
    // The log transport keeps no read position of its own: it always reads after the Postgres checkpoint.
    rewound: transport,
    splitsWork: false,
    rewindRedelivers: false,
    // The log is the transport: there is nothing to publish again.
    republish: async () => 1,
    async close() {
      await listener.close();
      await db.drop();
    },
  };
}

eventTransportContract('Postgres log', createPgLogHarness);
