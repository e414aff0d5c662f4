/**
 * Notices through Postgres NOTIFY: every process on the database hears them, the publishing one included,
 * so it serves one machine and any number of processes sharing a database without another service.
 */
import type { Logger } from 'pino';
import { sql, type DatabasePool } from '../db/pool.ts';
import type { NotificationListener } from '../db/listen.ts';
import { packNotices, type Notice, type Notifier } from './notice.ts';

export const NOTICES_CHANNEL = 'otog_notices';

export function createPgNotifier(options: { pool: DatabasePool; listener: NotificationListener; logger?: Logger }): Notifier {
  const { pool, listener, logger } = options;
  const offs = new Set<() => void>();
  return {
    async publish(notices) {
      for (const payload of packNotices(notices)) await pool.query(sql.unsafe`SELECT pg_notify(${NOTICES_CHANNEL}, ${payload})`);
    },
    subscribe(receive) {
      const off = listener.on(NOTICES_CHANNEL, (payload) => {
        try {
          for (const notice of JSON.parse(payload) as Notice[]) receive(notice);
        } catch (error) {
          logger?.warn({ err: String(error) }, 'ignoring a malformed notice payload');
        }
      });
      offs.add(off);
      return () => {
        off();
        offs.delete(off);
      };
    },
    ready: () => listener.listening(),
    async close() {
      for (const off of offs) off();
      offs.clear();
    },
  };
}
