/**
 * Who is online: users with at least one connected realtime socket, on any API node. In memory on a single
 * node; with Redis, each node keeps its own count per user in a hash that expires unless the node refreshes
 * it, so a node that crashes takes its users offline within the expiry, without anyone cleaning up.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface Presence {
  /** A socket of the user connected on this node; true when it is the user's first here (the set changed). */
  connect(userId: number): Promise<boolean>;
  /** A socket of the user left this node; true when it was the user's last here. */
  disconnect(userId: number): Promise<boolean>;
  /** Every online user's id, once, ascending. */
  onlineUserIds(): Promise<number[]>;
  /** This node leaves: its users go offline at once (a crash gets the same after the expiry). */
  close(): Promise<void>;
}

export function createMemoryPresence(): Presence {
  const sockets = new Map<number, number>();
  return {
    async connect(userId) {
      const count = (sockets.get(userId) ?? 0) + 1;
      sockets.set(userId, count);
      return count === 1;
    },
    async disconnect(userId) {
      const left = (sockets.get(userId) ?? 0) - 1;
      if (left > 0) sockets.set(userId, left);
      else sockets.delete(userId);
      return left <= 0;
    },
    async onlineUserIds() {
      return [...sockets.keys()].sort((a, b) => a - b);
    },
    async close() {
      sockets.clear();
    },
  };
}

export interface RedisPresenceOptions {
  readonly redis: Redis;
  /** Prefix of the nodes' keys (default `otog:presence:`): deployments sharing a Redis stay apart. */
  readonly prefix?: string;
  /** How long a node's users stay online after its last refresh. */
  readonly ttlMs?: number;
  /** How often a node refreshes (a few times per expiry, so one late refresh loses nobody). */
  readonly refreshMs?: number;
}

export function createRedisPresence(options: RedisPresenceOptions): Presence & { readonly key: string } {
  const { redis } = options;
  const ttlMs = options.ttlMs ?? 30_000;
  const refreshMs = options.refreshMs ?? Math.floor(ttlMs / 3);
  const prefix = options.prefix ?? 'otog:presence:';
  const key = `${prefix}${randomUUID()}`;
  // Counted here too: after a Redis outage the node writes its whole state back at the next refresh.
  const local = new Map<number, number>();

  const refresh = async () => {
    if (local.size === 0) return;
    await redis
      .multi()
      .hset(key, Object.fromEntries([...local].map(([userId, count]) => [String(userId), String(count)])))
      .pexpire(key, ttlMs)
      .exec();
  };
  const timer = setInterval(() => void refresh().catch(() => {}), refreshMs);
  timer.unref();

  return {
    key,
    async connect(userId) {
      const count = (local.get(userId) ?? 0) + 1;
      local.set(userId, count);
      await redis.multi().hincrby(key, String(userId), 1).pexpire(key, ttlMs).exec();
      return count === 1;
    },
    async disconnect(userId) {
      const left = (local.get(userId) ?? 0) - 1;
      if (left > 0) local.set(userId, left);
      else local.delete(userId);
      await (left > 0 ? redis.hset(key, String(userId), String(left)) : redis.hdel(key, String(userId)));
      return left <= 0;
    },
    async onlineUserIds() {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
        keys.push(...found);
        cursor = next;
      } while (cursor !== '0');
      const users = new Set<number>();
      const pipeline = redis.pipeline();
      for (const nodeKey of keys) pipeline.hkeys(nodeKey);
      for (const [error, fields] of (await pipeline.exec()) ?? []) {
        if (!error) for (const field of fields as string[]) users.add(Number(field));
      }
      return [...users].filter((userId) => Number.isInteger(userId) && userId > 0).sort((a, b) => a - b);
    },
    async close() {
      clearInterval(timer);
      local.clear();
      await redis.del(key);
    },
  };
}
