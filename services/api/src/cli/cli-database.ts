import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config.ts';
import { clusterDirOf, passwordFileOf, startEmbeddedPostgres } from '../local/embedded-postgres.ts';

/**
 * The database an operator command works on: DATABASE_URL when set; otherwise the embedded cluster of
 * OTOG_DATA_DIR — the running one of `npm start` (its port is in postmaster.pid) or, when nothing runs,
 * one started just for this command.
 */
export async function openCliDatabase(config: ApiConfig, logger: Logger): Promise<{ url: string; close(): Promise<void> }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, close: async () => undefined };
  const pidFile = join(clusterDirOf(config.OTOG_DATA_DIR), 'postmaster.pid');
  if (existsSync(pidFile)) {
    const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
    if (pid && port && isAlive(Number(pid))) {
      const password = readFileSync(passwordFileOf(config.OTOG_DATA_DIR), 'utf8').trim();
      return { url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port.trim()}/otog`, close: async () => undefined };
    }
  }
  const embedded = await startEmbeddedPostgres({ dataDir: config.OTOG_DATA_DIR, logger });
  return { url: embedded.url, close: () => embedded.stop() };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
