/**
 * A fixed-window limit per key (a user, an account name): at most `max` calls per `windowMs`, counted in
 * Redis when there is one (shared by every API node), else in this process.
 */
import type { Redis } from 'ioredis';

export interface KeyRateLimit {
  /** Counts a call for `key`; false once the key is over its limit in the current window. */
  allow(key: string): Promise<boolean>;
}

/** Keys kept in memory before expired ones are swept (a flood of distinct keys must not grow the map forever). */
const MEMORY_SWEEP_AT = 10_000;

export function createKeyRateLimit(options: { readonly redis?: Redis; readonly prefix: string; readonly max: number; readonly windowMs: number }): KeyRateLimit {
  const { redis, prefix, max, windowMs } = options;
  if (redis) {
    return {
      async allow(key) {
        // The first call of a window starts its expiry.
        const name = `${prefix}${key}`;
        try {
          const [[, count] = [null, 0]] = ((await redis.multi().incr(name).pexpire(name, windowMs, 'NX').exec()) ?? []) as Array<[Error | null, number]>;
          return Number(count) <= max;
        } catch {
          // A Redis outage must not take the limited action down with it: the limit pauses until it is back.
          return true;
        }
      },
    };
  }
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    async allow(key) {
      const now = Date.now();
      if (windows.size >= MEMORY_SWEEP_AT) for (const [stale, window] of windows) if (now - window.startedAt >= windowMs) windows.delete(stale);
      const window = windows.get(key);
      if (!window || now - window.startedAt >= windowMs) {
        windows.set(key, { startedAt: now, count: 1 });
        return true;
      }
      window.count += 1;
      return window.count <= max;
    },
  };
}
