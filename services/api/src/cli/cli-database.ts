import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config.ts';
import { clusterDirOf, passwordFileOf, startEmbeddedPostgres } from '../local/embedded-postgres.ts';
import { isAlive, readPostmasterPid } from '../local/postmaster.ts';

/**
 * The database an operator command works on: DATABASE_URL when set; otherwise the embedded cluster of
 * OTOG_DATA_DIR — the running one of `npm start` (its port is in postmaster.pid) or, when nothing runs,
 * one started just for this command.
 */
export async function openCliDatabase(config: ApiConfig, logger: Logger): Promise<{ url: string; close(): Promise<void> }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, close: async () => undefined };
  const running = readPostmasterPid(clusterDirOf(config.OTOG_DATA_DIR));
  if (running && isAlive(running.pid)) {
    const password = readFileSync(passwordFileOf(config.OTOG_DATA_DIR), 'utf8').trim();
    return { url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${running.port}/otog`, close: async () => undefined };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: config.OTOG_DATA_DIR, logger });
  return { url: embedded.url, close: () => embedded.stop() };
}
