/**
 * Derived feeds on a real Kafka-protocol broker: the contest-scores projection's score notices, produced
 * as ContestScoreChanged messages keyed by contest on their own topic; other notices stay out, and a feed
 * that fails never fails the notices' own publication.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, type Consumer } from 'kafkajs';
import { contestScoreFeed } from '@otog/projections/contest-scores/contest-scores.projection';
import { createKafkaNoticeFeeds, withFeeds, type KafkaNoticeFeeds } from '@otog/platform/notices/kafka-feed';
import type { Notice, Notifier } from '@otog/platform/notices/notice';
import { createLogger } from '@otog/platform/log/logger';
import { MOCK_BROKER_CONSUMER_CONFIG } from '@otog/platform/transport/kafka-transport';
import { quietKafkaLogs } from './kafka-harness.ts';

const brokers = process.env.KAFKA_BROKERS;
if (!brokers) throw new Error('KAFKA_BROKERS is not set: run the suites through `npm test`, which starts the Kafka mock cluster');
const kafka = new Kafka({ clientId: 'otog-feeds-test', brokers: brokers.split(','), logCreator: quietKafkaLogs });

// A topic of this run's own, so reruns against one broker read only their messages.
const feed = { ...contestScoreFeed, kafkaTopic: `test.contest-scores.${process.pid}.${Date.now()}` };
let feeds: KafkaNoticeFeeds;
let consumer: Consumer;
const received: Array<{ key: string; value: unknown }> = [];

beforeAll(async () => {
  feeds = createKafkaNoticeFeeds(kafka, [feed]);
  await feeds.connect();
});
afterAll(async () => {
  await consumer?.disconnect();
  await feeds?.disconnect();
});

const score = (contestId: number, userId: number, score: number | null, seq: string): Notice => ({
  topic: 'contest-score',
  key: `${contestId}:${userId}:5`,
  seq,
  data: { contestId, userId, problemId: 5, score, penalty: score === null ? null : 60 },
});

async function receive(count: number): Promise<typeof received> {
  const deadline = Date.now() + 30_000;
  while (received.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${received.length} of ${count} messages arrived`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return received;
}

describe('Kafka notice feeds', () => {
  it('produces score changes as ContestScoreChanged messages keyed by contest, in order, and nothing else', async () => {
    await feeds.publish([score(7, 1, 100, '10/1'), { topic: 'scoreboard', key: '7', seq: '10/1' }, score(8, 2, 40, '10/2')]);
    await feeds.publish([score(7, 1, null, '11/3')]);

    consumer = kafka.consumer({ groupId: `feeds-${process.pid}-${Date.now()}`, ...MOCK_BROKER_CONSUMER_CONFIG });
    await consumer.connect();
    await consumer.subscribe({ topic: feed.kafkaTopic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        received.push({ key: message.key!.toString(), value: JSON.parse(message.value!.toString()) });
      },
    });
    const messages = await receive(3);
    const ofContest = (key: string) => messages.filter((message) => message.key === key).map((message) => message.value);
    expect(ofContest('7')).toEqual([
      { type: 'ContestScoreChanged', contestId: 7, userId: 1, problemId: 5, score: 100, penalty: 60, position: '10/1' },
      { type: 'ContestScoreChanged', contestId: 7, userId: 1, problemId: 5, score: null, penalty: null, position: '11/3' },
    ]);
    expect(ofContest('8')).toEqual([{ type: 'ContestScoreChanged', contestId: 8, userId: 2, problemId: 5, score: 40, penalty: 60, position: '10/2' }]);
    expect(messages).toHaveLength(3);
  });

  it('a failing feed is logged; the notices are still published', async () => {
    const published: Notice[][] = [];
    const inner: Notifier = {
      publish: async (notices) => void published.push([...notices]),
      subscribe: () => () => {},
      ready: async () => {},
      close: async () => {},
    };
    const broken = { publish: () => Promise.reject(new Error('broker down')) };
    const notifier = withFeeds(inner, broken, createLogger({ name: 'feeds-test', level: 'silent' }));
    await notifier.publish([score(9, 1, 10, '12/1')]);
    expect(published).toEqual([[score(9, 1, 10, '12/1')]]);
  });
});
