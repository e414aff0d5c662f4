/**
 * How fast one user may chat: at most CHAT_BURST messages in any CHAT_WINDOW_MS window, counted in Redis
 * when there is one (shared by every node), else on this node.
 */
import type { Redis } from 'ioredis';

export const CHAT_BURST = 5;
export const CHAT_WINDOW_MS = 10_000;

export interface ChatRateLimit {
  allow(userId: number): Promise<boolean>;
}

export function createChatRateLimit(redis?: Redis, prefix = 'otog-chat-rate:', burst = CHAT_BURST, windowMs = CHAT_WINDOW_MS): ChatRateLimit {
  if (redis) {
    return {
      async allow(userId) {
        // A fixed window per user: the first message of a window starts its expiry.
        const key = `${prefix}${userId}`;
        const [[, count] = [null, 0]] = ((await redis.multi().incr(key).pexpire(key, windowMs, 'NX').exec()) ?? []) as Array<[Error | null, number]>;
        return Number(count) <= burst;
      },
    };
  }
  const sent = new Map<number, number[]>();
  return {
    async allow(userId) {
      const now = Date.now();
      const recent = (sent.get(userId) ?? []).filter((at) => now - at < windowMs);
      if (recent.length >= burst) {
        sent.set(userId, recent);
        return false;
      }
      recent.push(now);
      sent.set(userId, recent);
      return true;
    },
  };
}
