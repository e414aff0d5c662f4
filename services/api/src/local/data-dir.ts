/**
 * OTOG_DATA_DIR holds test data, statements, attachments, avatars, the database and secrets: only the
 * user running OTOG may read it. Its entries are created 0700/0600 (our umask is 077); the directory
 * itself is made private here, an existing one included. (As root, the embedded Postgres then adds
 * o+x so that the postgres user can walk through it to its cluster: see postgres-user.ts.)
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';

export function ensurePrivateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mode = statSync(dataDir).mode & 0o777;
  if (mode & 0o066) chmodSync(dataDir, mode & ~0o066);
}
