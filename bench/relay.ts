/**
 * Relay to Kafka: the outbox relay (services/platform/src/relay/kafka-relay.ts) running on the Postgres-log
 * transport publishes a backlog of events to librdkafka's mock cluster; time until its checkpoint reaches
 * the head (every batch acknowledged with acks -1 before its checkpoint commits).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { createNotificationListener } from '@otog/platform/db/listen';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import type { EventConsumer } from '@otog/platform/runner/consumer';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { testRegistry } from '../tests/support/test-events.ts';
import type { BenchContext } from './lib/context.ts';
import { buildLog, createProfilingPool, untilHead } from './lib/fixtures.ts';
import type { BenchResult, Table } from './lib/report.ts';
import { createBenchDatabase, onCleanup } from './lib/services.ts';
import { int, ms, now, progressPrinter, seconds } from './lib/stats.ts';

const RELAY_MODULE = fileURLToPath(new URL('../services/platform/src/relay/kafka-relay.ts', import.meta.url));
const MESSAGES_MODULE = fileURLToPath(new URL('../services/platform/src/relay/kafka-messages.ts', import.meta.url));

export function relayPresent(): boolean {
  return existsSync(RELAY_MODULE) && existsSync(MESSAGES_MODULE);
}

/** The relay's API as this bench uses it (imported dynamically: the module may not exist yet). */
interface RelayModule {
  KAFKA_RELAY_NAME: string;
  createKafkaRelay(options: { kafka: Kafka; name?: string }): EventConsumer & { connect(): Promise<void>; disconnect(): Promise<void> };
}
interface MessagesModule {
  defaultTopicForScope(scope: string): string;
}

export function relayMissing(): BenchResult {
  return {
    id: 'relay',
    title: 'Relay to Kafka throughput',
    method: [],
    figures: [],
    tables: [],
    notes: ['**Not measured: relay not present** (services/platform/src/relay/kafka-relay.ts does not exist in this checkout).'],
  };
}

export async function benchRelay(context: BenchContext): Promise<BenchResult> {
  if (!relayPresent()) return relayMissing();
  if (!context.kafkaBrokers) throw new Error('no Kafka brokers (KAFKA_BROKERS unset and the mock was not started)');
  const relayModule = (await import(RELAY_MODULE)) as RelayModule;
  const messages = (await import(MESSAGES_MODULE)) as MessagesModule;

  const total = context.quick ? 50_000 : 200_000;
  const db = await createBenchDatabase(context.adminUrl, 'relay');
  const listener = createNotificationListener(db.url);
  const closeListener = onCleanup('notification listener', () => listener.close());
  const kafka = new Kafka({ clientId: 'otog-bench', brokers: context.kafkaBrokers.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const disconnectAdmin = onCleanup('Kafka admin', () => admin.disconnect());
  try {
    const store = createEventStore(db.pool, testRegistry);
    process.stdout.write(`  relay: appending ${int(total)} events (batches of 1,000, 2 writers)\n`);
    const built = await buildLog(store, total, { batch: 1_000, writers: 2, label: 'log' });
    const topic = messages.defaultTopicForScope('user:0');

    await admin.connect();
    // Auto-create the topic (4 partitions on the mock) before timing anything.
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
        if ((topics[0]?.partitions.length ?? 0) > 0) break;
      } catch (error) {
        if (attempt >= 20) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const highWater = async () =>
      (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + BigInt(p.high), 0n);
    const partitions = (await admin.fetchTopicOffsets(topic)).length;

    // The relay runs on a pool that adds up time per statement (negligible overhead), to split a batch's
    // time into the transport's read, the Kafka produce and the rest.
    const profiling = await createProfilingPool(db.url);
    const endProfilingPool = onCleanup('profiling pool', () => profiling.pool.end());
    const relayStore = createEventStore(profiling.pool, testRegistry);
    const runs: Array<{ batchSize: number; elapsedMs: number; eventsPerSecond: number; handlerMs: number; batches: number; readAfterMs: number }> = [];
    for (const batchSize of [500, 2_000]) {
      profiling.profile.clear();
      const before = await highWater();
      const relay = relayModule.createKafkaRelay({ kafka, name: `${relayModule.KAFKA_RELAY_NAME}:bench-b${batchSize}` });
      await relay.connect();
      const disconnectRelay = onCleanup('Kafka relay producer', () => relay.disconnect());
      let handlerMs = 0;
      const timed: EventConsumer = {
        name: relay.name,
        ...(relay.types ? { types: relay.types } : {}),
        async handle(tx, events) {
          const t = now();
          await relay.handle(tx, events);
          handlerMs += now() - t;
        },
      };
      const transport = createPgLogTransport({ pool: profiling.pool, store: relayStore, listener, pollIntervalMs: 50 });
      const progress = progressPrinter(`relay (batch ${batchSize})`, total);
      let relayed = 0;
      let batches = 0;
      process.stdout.write(`  relay: publishing ${int(total)} events to ${topic} (${partitions} partitions), batch ${batchSize}\n`);
      const reached = untilHead(built.head, 1_800_000);
      const started = now();
      const subscription = await transport.subscribe(timed, {
        batchSize,
        onBatch(info) {
          relayed += info.applied;
          batches += 1;
          progress.update(relayed);
          reached.onBatch(info);
        },
        onFault: reached.onFault,
      });
      try {
        await reached.promise;
      } finally {
        reached.cancel();
        await subscription.stop();
        await disconnectRelay();
      }
      const elapsedMs = now() - started;
      progress.update(relayed, true);
      const published = (await highWater()) - before;
      if (published !== BigInt(total)) throw new Error(`Kafka holds ${published} new messages, expected ${total}`);
      const statement = (pattern: RegExp) =>
        [...profiling.profile.values()].filter((p) => pattern.test(p.label)).reduce((sum, p) => sum + p.totalMs, 0);
      runs.push({
        batchSize,
        elapsedMs,
        eventsPerSecond: (total / elapsedMs) * 1000,
        handlerMs,
        batches,
        readAfterMs: statement(/^readAfter/),
      });
    }
    await endProfilingPool();

    const share = (part: number, r: { elapsedMs: number; batches: number }) =>
      `${((100 * part) / r.elapsedMs).toFixed(0)} % (${ms(part / r.batches)} ms/batch)`;
    const table: Table = {
      header: ['relay batch size', 'events', 'time', 'events/s', 'batches', 'transport readAfter', 'Kafka sendBatch (acks -1) + encode', 'rest (lock, CAS, notify, commit)'],
      rows: runs.map((r) => [
        int(r.batchSize),
        int(total),
        `${seconds(r.elapsedMs)} s`,
        int(r.eventsPerSecond),
        int(r.batches),
        share(r.readAfterMs, r),
        share(r.handlerMs, r),
        share(r.elapsedMs - r.handlerMs - r.readAfterMs, r),
      ]),
    };
    return {
      id: 'relay',
      title: 'Relay to Kafka throughput',
      method: [
        `${int(total)} CounterIncremented events (scopes \`user:0..99\`) in the log; \`createKafkaRelay\` from services/platform/src/relay/kafka-relay.ts ` +
          `subscribed on the Postgres-log transport under a fresh checkpoint name, publishing to \`${topic}\` (${partitions} partitions, auto-created) ` +
          'on librdkafka 2.0.2’s mock cluster (3 brokers, in-memory, loopback).',
        'Per batch, in the checkpoint transaction: readAfter (events as stored, not upcast), one `sendBatch` with acks -1, checkpoint CAS. ' +
          'Time runs until the checkpoint reaches the head; the topic’s high watermarks are checked to have grown by exactly the event count. ' +
          'The split of the time comes from a slonik interceptor timing each statement, and a timer around `relay.handle`.',
        'No target was set for this figure. The mock is not a real broker (no disk, no replication traffic), so it flatters Kafka’s side.',
      ],
      figures: runs.map((r) => ({
        name: `relay to Kafka (mock), batch ${r.batchSize}`,
        value: r.eventsPerSecond,
        unit: 'events/s',
        display: `${int(r.eventsPerSecond)} events/s`,
        summary: true,
      })),
      tables: [table],
      notes: [],
    };
  } finally {
    await disconnectAdmin();
    await closeListener();
    await db.drop();
  }
}
