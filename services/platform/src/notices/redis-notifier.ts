/**
 * Notices through Redis pub/sub, for a scaled deployment: projector processes publish, every API node's
 * realtime gateway subscribes, with no load on Postgres. A subscriber needs a connection of its own.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { packNotices, type Notice, type Notifier } from './notice.ts';

export const NOTICES_REDIS_CHANNEL = 'otog:notices';

export function createRedisNotifier(options: { url: string; logger?: Logger }): Notifier {
  const { logger } = options;
  const publisher = new Redis(options.url, { maxRetriesPerRequest: 3 });
  let subscriber: Redis | undefined;
  let subscribed: Promise<unknown> | undefined;
  const receivers = new Set<(notice: Notice) => void>();
  publisher.on('error', (error: Error) => logger?.warn({ err: error.message }, 'Redis notifier connection failed'));

  const ensureSubscriber = () => {
    if (subscriber) return;
    subscriber = publisher.duplicate();
    subscriber.on('error', (error: Error) => logger?.warn({ err: error.message }, 'Redis notice subscriber failed'));
    subscriber.on('message', (_channel: string, payload: string) => {
      try {
        for (const notice of JSON.parse(payload) as Notice[]) for (const receive of receivers) receive(notice);
      } catch (error) {
        logger?.warn({ err: String(error) }, 'ignoring a malformed notice payload');
      }
    });
    subscribed = subscriber.subscribe(NOTICES_REDIS_CHANNEL);
  };

  return {
    async publish(notices) {
      for (const payload of packNotices(notices)) await publisher.publish(NOTICES_REDIS_CHANNEL, payload);
    },
    subscribe(receive) {
      ensureSubscriber();
      receivers.add(receive);
      return () => receivers.delete(receive);
    },
    async ready() {
      await subscribed;
    },
    async close() {
      receivers.clear();
      await Promise.allSettled([publisher.quit(), subscriber?.quit()]);
    },
  };
}
