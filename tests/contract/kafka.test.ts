import { describe, expect, it } from 'vitest';
import { Kafka } from 'kafkajs';
import { sql } from '@otog/platform/db/pool';
import type { AppendedEvent } from '@otog/platform/eventstore/event-store';
import { LOG_START, comparePositions, type Position } from '@otog/platform/eventstore/position';
import type { EventConsumer } from '@otog/platform/runner/consumer';
import type { Subscription } from '@otog/platform/transport/event-transport';
import { relayPartitioner } from '@otog/platform/relay/kafka-messages';
import { faultedPart, skipNextEvent } from '@otog/platform/runner/skip';
import { MOCK_BROKER_CONSUMER_CONFIG } from '@otog/platform/transport/kafka-transport';
import { until } from '../support/until.ts';
import { eventTransportContract } from './event-transport.contract.ts';
import { createKafkaHarness, quietKafkaLogs } from './kafka-harness.ts';

const brokers = process.env.KAFKA_BROKERS;
if (!brokers) throw new Error('KAFKA_BROKERS is not set: run the suites through `npm test`, which starts the Kafka mock cluster');

const kafka = new Kafka({ clientId: 'otog-contract', brokers: brokers.split(','), logCreator: quietKafkaLogs });

// librdkafka's mock cluster: topics auto-create with 4 partitions; the consumer timings it needs.
eventTransportContract('Kafka (librdkafka mock cluster)', () =>
  createKafkaHarness({ kafka, consumerConfig: MOCK_BROKER_CONSUMER_CONFIG }),
);

describe('Kafka transport: handover from the Postgres log', () => {
  it('starts every partition at the consumer’s log checkpoint and applies nothing twice', async () => {
    const h = await createKafkaHarness({ kafka, consumerConfig: MOCK_BROKER_CONSUMER_CONFIG });
    const subscriptions: Subscription[] = [];
    try {
      const applied: Array<{ via: string; eventId: string }> = [];
      const consumer = (via: string): EventConsumer => ({
        name: 'handover:log-to-kafka',
        async handle(_tx, events) {
          applied.push(...events.map((event) => ({ via, eventId: event.eventId })));
        },
      });
      const scopes = ['user:h1', 'contest:h1', 'chat:h1'];
      const write = async () => {
        const results = await Promise.all(
          scopes.map((scope) => h.store.append(scope, [1, 2].map((by) => ({ type: 'CounterIncremented', scope, data: { counter: scope, by } })))),
        );
        return results.flatMap((result, i) => result.events.map((event) => ({ ...event, scope: scopes[i]! })));
      };
      const waitAll = (subscription: Subscription, events: ReadonlyArray<AppendedEvent & { scope: string }>) =>
        Promise.all(events.map((event) => subscription.waitFor(event, 30_000)));

      const before = await write();
      const onLog = await h.log.subscribe(consumer('log'));
      subscriptions.push(onLog);
      await waitAll(onLog, before);
      await onLog.stop();
      subscriptions.pop();

      const after = await write();
      const onKafka = await h.transport.subscribe(consumer('kafka'));
      subscriptions.push(onKafka);
      await waitAll(onKafka, after);

      expect(applied.filter((entry) => entry.via === 'log').map((entry) => entry.eventId).sort()).toEqual(before.map((e) => e.eventId).sort());
      expect(applied.filter((entry) => entry.via === 'kafka').map((entry) => entry.eventId).sort()).toEqual(after.map((e) => e.eventId).sort());
      // One row per partition that carried events, all running; the log checkpoint stays where the log consumer left it.
      const rows = (await h.pool.any(sql.unsafe`
        SELECT source, status, last_txid AS txid, last_gpos AS gpos FROM consumer_checkpoints
        WHERE consumer = 'handover:log-to-kafka'`)) as readonly (Position & { source: string; status: string })[];
      const lastBefore = before.reduce<Position>((max, event) => (comparePositions(event, max) > 0 ? event : max), LOG_START);
      // Retired at the handover: a log instance of the consumer can never fold again; its position stays.
      expect(rows.filter((row) => row.source === 'pglog')).toEqual([{ source: 'pglog', status: 'retired', txid: lastBefore.txid, gpos: lastBefore.gpos }]);
      const partitions = rows.filter((row) => row.source === 'kafka');
      expect(partitions.length).toBeGreaterThan(0);
      for (const row of partitions) {
        expect(row.status).toBe('running');
        expect(comparePositions(row, lastBefore)).toBe(1);
      }
    } finally {
      await Promise.allSettled(subscriptions.map((subscription) => subscription.stop()));
      await h.close();
    }
  });
  it('stops a log instance of the consumer that is still running when Kafka takes over (a standby not yet switched)', async () => {
    const h = await createKafkaHarness({ kafka, consumerConfig: MOCK_BROKER_CONSUMER_CONFIG });
    const subscriptions: Subscription[] = [];
    try {
      const applied = new Map<string, string[]>();
      const consumer = (via: string): EventConsumer => ({
        name: 'handover:overlap',
        async handle(_tx, events) {
          for (const event of events) applied.set(event.eventId, [...(applied.get(event.eventId) ?? []), via]);
        },
      });
      const scopes = ['user:o1', 'contest:o1', 'chat:o1'];
      const write = async (round: number) => {
        const results = await Promise.all(scopes.map((scope) => h.store.append(scope, [{ type: 'CounterIncremented', scope, data: { counter: scope, by: round } }])));
        return results.flatMap((result, i) => result.events.map((event) => ({ ...event, scope: scopes[i]! })));
      };
      const first = await write(1);
      const onLog = await h.log.subscribe(consumer('log'));
      subscriptions.push(onLog);
      await Promise.all(first.map((event) => onLog.waitFor(event, 30_000)));

      // Kafka takes over while the log instance keeps running and more events arrive.
      const onKafka = await h.transport.subscribe(consumer('kafka'));
      subscriptions.push(onKafka);
      const later: Array<AppendedEvent & { scope: string }> = [];
      for (let round = 2; round <= 6; round += 1) later.push(...(await write(round)));
      await Promise.all(later.map((event) => onKafka.waitFor(event, 30_000)));
      await new Promise((resolve) => setTimeout(resolve, 600)); // the log instance's next polls

      const all = [...first, ...later];
      expect([...applied.keys()].sort()).toEqual(all.map((event) => event.eventId).sort());
      expect([...applied.entries()].filter(([, vias]) => vias.length > 1)).toEqual([]);
    } finally {
      await Promise.allSettled(subscriptions.map((subscription) => subscription.stop()));
      await h.close();
    }
  });

  it('faults on a message it cannot decode, naming its offset; an operator skip passes over it and the partition resumes without a restart', async () => {
    const h = await createKafkaHarness({ kafka, consumerConfig: MOCK_BROKER_CONSUMER_CONFIG });
    const subscriptions: Subscription[] = [];
    const producer = kafka.producer({ createPartitioner: relayPartitioner });
    try {
      const applied: string[] = [];
      const consumer: EventConsumer = {
        name: 'contract:undecodable',
        scopeKinds: new Set(['user']),
        async handle(_tx, events) {
          applied.push(...events.map((event) => event.eventId));
        },
      };
      const scope = 'user:garbled';
      const append = async (by: number) => (await h.store.append(scope, [{ type: 'CounterIncremented', scope, data: { counter: scope, by } }])).events[0]!;
      const before = await append(1);
      const onKafka = await h.transport.subscribe(consumer);
      subscriptions.push(onKafka);
      await onKafka.waitFor({ ...before, scope }, 30_000);

      // Not written by the relay: no event in it, same key (so the same partition as the scope's events).
      const [topic] = h.transport.topicsOf(consumer);
      await producer.connect();
      await producer.send({ topic: topic!, messages: [{ key: scope, value: 'not an event' }] });
      const after = await append(2);
      await until('the partition faults', async () => (await faultedPart(h.pool, consumer.name)) !== null, 30_000);
      const part = (await faultedPart(h.pool, consumer.name))!;
      const row = (await h.pool.one(sql.unsafe`
        SELECT error FROM consumer_checkpoints WHERE consumer = ${part.consumer} AND source = ${part.source} AND part = ${part.part}`)) as { error: { offset?: string; eventId: string | null } };
      expect(row.error).toMatchObject({ eventId: null, offset: expect.stringMatching(/^\d+$/) });
      expect(applied).toEqual([before.eventId]);

      const skipped = await skipNextEvent(h.pool, h.store, part);
      expect(skipped).toMatchObject({ eventId: null, offset: row.error.offset });
      await onKafka.waitFor({ ...after, scope }, 30_000);
      expect(applied).toEqual([before.eventId, after.eventId]);
    } finally {
      await producer.disconnect();
      await Promise.allSettled(subscriptions.map((subscription) => subscription.stop()));
      await h.close();
    }
  });

  it('does not hand a consumer faulted on the log over to Kafka; once skipped on the log, Kafka starts after the skipped event', async () => {
    const h = await createKafkaHarness({ kafka, consumerConfig: MOCK_BROKER_CONSUMER_CONFIG });
    const subscriptions: Subscription[] = [];
    try {
      const applied: string[] = [];
      const consumer: EventConsumer = {
        name: 'contract:faulted-handover',
        async handle(_tx, events) {
          // Throws before noting anything: the batch's transaction rolls back, and so does what it applied.
          if (events.some((event) => (event.data as { by: number }).by === 13)) throw new Error('poison event');
          applied.push(...events.map((event) => event.eventId));
        },
      };
      const scope = 'contest:fh';
      const append = async (by: number) => (await h.store.append(scope, [{ type: 'CounterIncremented', scope, data: { counter: scope, by } }])).events[0]!;
      const good = await append(1);
      const poison = await append(13);
      const onLog = await h.log.subscribe(consumer, { maxAttempts: 2 });
      await expect(onLog.waitFor({ ...poison, scope }, 30_000)).rejects.toThrow(/faulted/);
      await onLog.stop();

      const onKafka = await h.transport.subscribe(consumer);
      subscriptions.push(onKafka);
      const later = await append(2);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // Nothing moved to Kafka: the fault stays where the operator sees it, on the log part.
      expect(await h.pool.any(sql.unsafe`SELECT part FROM consumer_checkpoints WHERE consumer = ${consumer.name} AND source = 'kafka'`)).toEqual([]);
      expect(applied).toEqual([good.eventId]);

      await skipNextEvent(h.pool, h.store, (await faultedPart(h.pool, consumer.name))!);
      await onKafka.waitFor({ ...later, scope }, 30_000);
      expect(applied).toEqual([good.eventId, later.eventId]);
    } finally {
      await Promise.allSettled(subscriptions.map((subscription) => subscription.stop()));
      await h.close();
    }
  });
});
