/**
 * Projections reading Kafka through the projection runner, as scaled projectors run them: a live slot of a
 * projection that declares its scopes is handed over from the log to its Kafka topics, two runners split
 * its partitions, and when one stops the other takes them over; every event of those scopes is applied
 * exactly once and no other.
 */
import { describe, expect, it } from 'vitest';
import { Kafka } from 'kafkajs';
import { sql } from '@otog/platform/db/pool';
import type { AppendedEvent } from '@otog/platform/eventstore/event-store';
import { slotConsumer, startProjectionRunner, type ProjectionRunner } from '@otog/platform/runner/projection-runner';
import { listSlots } from '@otog/platform/runner/projection-slots';
import { slotTableName } from '@otog/platform/runner/projection';
import { MOCK_BROKER_CONSUMER_CONFIG } from '@otog/platform/transport/kafka-transport';
import { readProjectionStatus } from '@otog/api/modules/admin/projection-status';
import { ledgerProjection } from '../support/test-projections.ts';
import { until } from '../support/until.ts';
import { createKafkaHarness, quietKafkaLogs } from './kafka-harness.ts';

const brokers = process.env.KAFKA_BROKERS;
if (!brokers) throw new Error('KAFKA_BROKERS is not set: run the suites through `npm test`, which starts the Kafka mock cluster');
const kafka = new Kafka({ clientId: 'otog-kafka-projections', brokers: brokers.split(','), logCreator: quietKafkaLogs });

describe('projection runner on Kafka', () => {
  it('hands a live scoped slot over from the log, splits its partitions between two projectors, and survives losing one', { timeout: 120_000 }, async () => {
    const h = await createKafkaHarness({ kafka, consumerConfig: MOCK_BROKER_CONSUMER_CONFIG });
    const projection = ledgerProjection({ name: 'kledger', scopes: ['contest', 'chat'] });
    const runners: ProjectionRunner[] = [];
    const start = async (withKafka: boolean) => {
      const runner = await startProjectionRunner({
        pool: h.pool,
        store: h.store,
        transport: h.log,
        ...(withKafka ? { kafka: h.transport } : {}),
        projections: [projection],
        refreshIntervalMs: 200,
        dropRetiredAfterMs: null,
      });
      runners.push(runner);
      return runner;
    };
    const scopes = ['user:k1', 'user:k2', 'contest:k1', 'contest:k2', 'contest:k3', 'chat:k1', 'chat:k2'];
    let round = 0;
    const write = async () => {
      round += 1;
      const results = await Promise.all(
        scopes.map((scope) => h.store.append(scope, [{ type: 'CounterIncremented', scope, data: { counter: scope, by: 1, seq: round } }])),
      );
      return results.flatMap((result, i) => result.events.map((event) => ({ ...event, scope: scopes[i]! })));
    };
    const written: Array<AppendedEvent & { scope: string }> = [];
    const applied = async () =>
      (await h.pool.any(sql.unsafe`SELECT event_id::text AS "eventId" FROM ${sql.identifier([slotTableName('kledger', 1, 'applied')])}`)) as ReadonlyArray<{ eventId: string }>;
    const expectExactlyOnce = async () => {
      const wanted = written.filter((event) => !event.scope.startsWith('user:')).map((event) => event.eventId).sort();
      await until('every contest and chat event applied', async () => (await applied()).length >= wanted.length, 30_000);
      expect((await applied()).map((row) => row.eventId).sort()).toEqual(wanted);
    };
    try {
      // A projector on the log alone first (the slot is live from the start).
      const onLog = await start(false);
      for (let i = 0; i < 3; i += 1) written.push(...(await write()));
      for (const event of written) await onLog.waitFor('kledger', event, 20_000);
      expect((await listSlots(h.pool, 'kledger'))[0]).toMatchObject({ state: 'live', source: 'pglog' });
      await expectExactlyOnce();
      await onLog.stop();
      runners.pop();

      // Two projectors with Kafka: the slot moves to Kafka where the log left it.
      const a = await start(true);
      await start(true);
      for (let i = 0; i < 4; i += 1) written.push(...(await write()));
      for (const event of written) await a.waitFor('kledger', event, 30_000);
      await expectExactlyOnce();
      const slot = (await listSlots(h.pool, 'kledger'))[0]!;
      expect(slot).toMatchObject({ state: 'live', source: 'kafka', checkpointStatus: 'running' });
      const consumer = slotConsumer(projection, 1);
      await until('no consumer lag', async () => (await h.transport.consumerLag(consumer)).every((lag) => lag.messages === 0), 30_000);
      // The operator page: a Kafka-read slot is behind by its consumer lag.
      const status = await readProjectionStatus(h.pool, h.store, [projection], h.transport);
      expect(status.slots).toEqual([expect.objectContaining({ projection: 'kledger', status: 'running', eventsBehind: 0, secondsBehind: null })]);
      // Only the topics of its scopes: contest and chat, not user.
      expect(new Set((await h.transport.consumerLag(consumer)).map((lag) => lag.topic.replace(/^.*\./, '')))).toEqual(new Set(['contest', 'chat']));

      // One projector stops: the other takes its partitions over.
      await a.stop();
      runners.splice(runners.indexOf(a), 1);
      for (let i = 0; i < 3; i += 1) written.push(...(await write()));
      await expectExactlyOnce();
      // A process without Kafka leaves the handed-over slot alone.
      await start(false);
      written.push(...(await write()));
      await expectExactlyOnce();
    } finally {
      await Promise.allSettled(runners.map((runner) => runner.stop()));
      await h.close();
    }
  });
});
