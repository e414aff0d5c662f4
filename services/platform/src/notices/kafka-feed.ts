/**
 * Derived feeds on Kafka: the after-commit notices of chosen topics, produced as typed messages on a Kafka
 * topic of their own, so consumers in other processes (live pushes, analytics) follow a read model's
 * changes without reading its tables. Only the process folding the live slot publishes notices, so each
 * change is produced once.
 *
 * Best effort, like every notice: a crash between the commit and the produce loses that message. Each
 * message carries the log position behind it, so a consumer sees order and gaps, and resyncs from the API
 * (which reads the tables) when it must be exact.
 */
import type { Kafka, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { relayPartitioner } from '../relay/kafka-messages.ts';
import type { Notice, Notifier } from './notice.ts';

export interface NoticeFeed {
  /** The notices fed: those of this topic. */
  readonly noticeTopic: string;
  /** The Kafka topic they go to. */
  readonly kafkaTopic: string;
  /** The message's `type`. */
  readonly messageType: string;
  /** The message key: one key's messages stay in one partition, in order. */
  key(notice: Notice): string;
}

export interface KafkaNoticeFeeds {
  connect(): Promise<void>;
  publish(notices: readonly Notice[]): Promise<void>;
  disconnect(): Promise<void>;
}

/** The message value: the feed's type, the notice's facts, and the log position behind them. */
export function feedMessageValue(feed: NoticeFeed, notice: Notice): string {
  return JSON.stringify({ type: feed.messageType, ...notice.data, position: notice.seq });
}

export function createKafkaNoticeFeeds(kafka: Kafka, feeds: readonly NoticeFeed[]): KafkaNoticeFeeds {
  // The relay's settings: Java-compatible murmur2 of the key (and no warning about the default changing).
  const producer: Producer = kafka.producer({ idempotent: false, maxInFlightRequests: 1, createPartitioner: relayPartitioner });
  const byTopic = new Map(feeds.map((feed) => [feed.noticeTopic, feed]));
  return {
    connect: () => producer.connect(),
    disconnect: () => producer.disconnect(),
    async publish(notices) {
      const messages = new Map<string, Array<{ key: string; value: string }>>();
      for (const notice of notices) {
        const feed = byTopic.get(notice.topic);
        if (!feed) continue;
        const list = messages.get(feed.kafkaTopic) ?? [];
        list.push({ key: feed.key(notice), value: feedMessageValue(feed, notice) });
        messages.set(feed.kafkaTopic, list);
      }
      if (messages.size === 0) return;
      await producer.sendBatch({ acks: -1, topicMessages: [...messages].map(([topic, list]) => ({ topic, messages: list })) });
    },
  };
}

/** A notifier that also hands what it publishes to the feeds (a failed feed is logged, never the fold's failure). */
export function withFeeds(notifier: Notifier, feeds: Pick<KafkaNoticeFeeds, 'publish'>, logger: Logger): Notifier {
  return {
    async publish(notices) {
      await notifier.publish(notices);
      await feeds.publish(notices).catch((error: unknown) => logger.warn({ err: String(error) }, 'feeding notices to Kafka failed'));
    },
    subscribe: (receive) => notifier.subscribe(receive),
    ready: () => notifier.ready(),
    close: () => notifier.close(),
  };
}
