import pg from 'pg';
import type { Logger } from 'pino';

export interface NotificationListener {
  /** Calls `callback` with the payload of every NOTIFY on `channel`; returns an unsubscribe function. */
  on(channel: string, callback: (payload: string) => void): () => void;
  /** Resolves once every channel asked for so far is LISTENed to (a NOTIFY from now on is heard). */
  listening(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One dedicated connection for LISTEN (slonik pools reset sessions, so LISTEN cannot live there).
 * Reconnects after a lost connection; callers also poll, so a missed wake-up only costs latency.
 */
export function createNotificationListener(databaseUrl: string, logger?: Logger): NotificationListener {
  const callbacks = new Map<string, Set<(payload: string) => void>>();
  let client: pg.Client | undefined;
  let closed = false;
  let connecting: Promise<void> | undefined;
  const subscribing = new Set<Promise<unknown>>();

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (message) => {
      for (const callback of callbacks.get(message.channel) ?? []) callback(message.payload ?? '');
    });
    next.on('error', (error) => {
      logger?.warn({ err: error.message }, 'notification listener lost its connection; reconnecting');
      client = undefined;
      next.end().catch(() => undefined);
      if (!closed) setTimeout(() => void ensure().catch(() => undefined), 500).unref();
    });
    await next.connect();
    for (const channel of callbacks.keys()) await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    if (closed) await next.end();
    else client = next;
  };
  const ensure = (): Promise<void> => {
    if (client || closed) return Promise.resolve();
    connecting ??= connect().finally(() => (connecting = undefined));
    return connecting;
  };

  return {
    on(channel, callback) {
      let set = callbacks.get(channel);
      if (!set) {
        set = new Set();
        callbacks.set(channel, set);
        const subscribed = ensure()
          .then(() => client?.query(`LISTEN ${pg.escapeIdentifier(channel)}`))
          .catch((error: Error) => logger?.warn({ err: error.message }, 'LISTEN failed; falling back to polling'))
          .finally(() => subscribing.delete(subscribed));
        subscribing.add(subscribed);
      }
      set.add(callback);
      return () => set.delete(callback);
    },
    async listening() {
      await Promise.all([...subscribing]);
    },
    async close() {
      closed = true;
      await connecting?.catch(() => undefined);
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
