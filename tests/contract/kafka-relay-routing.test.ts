/**
 * The outbox relay with the product's own routing against the Kafka mock: a log holding an event of every
 * product type, in every scope kind that type declares, is published in full, each event on its kind's
 * topic. (Setting KAFKA_BROKERS used to fault the relay on the first problem event.)
 */
import { Kafka } from 'kafkajs';
import { expect, it } from 'vitest';
import { createEventStore, type NewEvent } from '@otog/platform/eventstore/event-store';
import { createKafkaRelay } from '@otog/platform/relay/kafka-relay';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { otogEventRegistry, otogEvents, SCOPE_KINDS, scopeKindOf } from '@otog/schemas/events';
import { samples } from '../platform/projection-samples/index.ts';
import { databaseWithListener } from '../support/db-listener.ts';
import { quietKafkaLogs, topicsOfEvents } from './kafka-harness.ts';

const brokers = process.env.KAFKA_BROKERS;
if (!brokers) throw new Error('KAFKA_BROKERS is not set: run the suites through `npm test`, which starts the Kafka mock cluster');
const kafka = new Kafka({ clientId: 'otog-relay-routing', brokers: brokers.split(','), logCreator: quietKafkaLogs });

const env = databaseWithListener();

const userEvents: NewEvent[] = [
  { type: 'UserRegistered', scope: 'user:1', data: { userId: 1, username: 'somchai', showName: 'สมชาย', role: 'user' } },
  { type: 'UserUpdated', scope: 'user:1', data: { userId: 1, username: 'somchai', showName: 'สมชาย', role: 'admin' } },
  { type: 'UserShowNameChanged', scope: 'user:1', data: { userId: 1, showName: 'ชาย' } },
  { type: 'UserPasswordChanged', scope: 'user:1', data: { userId: 1, changedBy: 1 } },
  { type: 'UserAvatarUploaded', scope: 'user:1', data: { userId: 1, largeHash: 'a'.repeat(64), smallHash: 'b'.repeat(64) } },
];

/** Pairs of (type, scope kind) the projection samples do not hold. */
const otherEvents: Array<[string, NewEvent[]]> = [
  ['submission-900', [{ type: 'SubmissionShared', scope: 'contest:9', data: { submissionId: 900, public: true } }]],
  ['announcement-900', [{ type: 'AnnouncementDeleted', scope: 'announcement:global', data: { announcementId: 900 } }]],
];

/** The sample events of every product projection, plus the pairs they lack. */
function oneOfEveryTypeAndScopeKind(): Array<[string, NewEvent[]]> {
  const streams: Array<[string, NewEvent[]]> = [['user-1', userEvents], ...otherEvents];
  for (const [name, streamsOfProjection] of Object.entries(samples)) {
    if (name !== 'ledger') streams.push(...streamsOfProjection);
  }
  return streams;
}

it('publishes an event of every product type, in every scope kind it declares, each on the topic of its kind', async () => {
  const streams = oneOfEveryTypeAndScopeKind();
  const covered = new Set(streams.flatMap(([, events]) => events.map((event) => `${event.type}@${scopeKindOf(event.scope)}`)));
  const wanted = otogEvents.flatMap((definition) => definition.scopes.map((kind) => `${definition.type}@${kind}`));
  // A new event type (or scope kind) needs a sample here or in projection-samples, so it is relayed once in a test.
  expect(wanted.filter((pair) => !covered.has(pair))).toEqual([]);

  const store = createEventStore(env.db.pool, otogEventRegistry);
  const expected = new Map<string, string>();
  for (const [streamId, events] of streams) {
    const result = await store.append(streamId, events);
    result.events.forEach((appended, i) => expected.set(appended.eventId, SCOPE_KINDS[scopeKindOf(events[i]!.scope)!].topic));
  }

  const relay = createKafkaRelay({ kafka, name: `relay:kafka:routing-${process.pid}` });
  await relay.connect();
  const log = createPgLogTransport({ pool: env.db.pool, store, listener: env.listener, pollIntervalMs: 200 });
  const subscription = await log.subscribe(relay, { maxAttempts: 3 });
  let seen: Map<string, string>;
  try {
    await subscription.waitFor({ ...(await store.headPosition()), scope: 'user:1' }, 30_000);
    seen = await topicsOfEvents(kafka, new Set(expected.keys()));
  } finally {
    await subscription.stop();
    await relay.disconnect();
  }
  expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(expected));
  expect(new Set(seen.values())).toEqual(new Set(Object.values(SCOPE_KINDS).map((kind) => kind.topic)));
}, 90_000);
