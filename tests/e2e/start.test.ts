/**
 * `npm start` end to end: the real entry point with an embedded Postgres in a temporary data directory.
 */
import { chmodSync, existsSync, mkdirSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/local-services.ts';
import { localSandboxEnv } from '../../services/api/src/judging/local-worker.ts';
import { until } from '../support/until.ts';
import {
  childEnv,
  exited,
  isAlive,
  isPostmasterOf,
  killAll,
  root,
  postmasterOf,
  processesUsing,
  runOtogToExit,
  startOtog,
  type OtogProcess,
} from './otog-process.ts';

const scratch = mkdtempSync(join(tmpdir(), 'otog-e2e-'));
// mkdtemp makes 0700 directories; the embedded Postgres runs as the `postgres` user when we are root.
chmodSync(scratch, 0o755);
const isRoot = process.getuid?.() === 0;
const run = promisify(execFile);

afterAll(async () => {
  await killAll();
  for (const dir of ['a', 'b', 'c', 'crash', 'ctrl-c']) {
    const clusterDir = join(scratch, dir, 'postgres');
    if (existsSync(join(clusterDir, 'postmaster.pid'))) {
      const { pid } = postmasterOf(clusterDir);
      if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
    }
    // The worker's test-data cache lives outside the data directory (the sandbox uids read it).
    rmSync(localSandboxEnv(join(scratch, dir)).OTOG_JUDGE_CACHE_DIR!, { recursive: true, force: true });
  }
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

async function get(port: number, path: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() };
}

async function withClient<T>(dataDir: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const { port } = postmasterOf(join(dataDir, 'postgres'));
  const password = readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim();
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'otog' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The first start seeds an admin (password printed once) and the sample problems; a contestant who
 * registers through the public API submits the a+b sample and the built-in judge worker grades it.
 */
async function judgesASubmission(port: number, adminPassword: string): Promise<void> {
  const api = async (method: string, path: string, options: { token?: string; json?: unknown; form?: FormData } = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}/api${path}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
      ...(options.form ? { body: options.form } : {}),
    });
    const body: unknown = await response.json();
    return { status: response.status, body: body as Record<string, unknown> & Array<Record<string, unknown>> };
  };
  const admin = await api('POST', '/auth/login', { json: { username: 'admin', password: adminPassword } });
  expect(admin.status).toBe(200);
  const problems = await api('GET', '/problem');
  expect(problems.body.map((problem) => problem.sname)).toContain('aplusb');
  const aplusb = problems.body.find((problem) => problem.sname === 'aplusb')!;

  expect((await api('POST', '/auth/register', { json: { username: 'e2e_user', showName: 'ผู้เข้าแข่งขัน', password: 'e2e-password' } })).status).toBe(201);
  const login = await api('POST', '/auth/login', { json: { username: 'e2e_user', password: 'e2e-password' } });
  const token = login.body.accessToken as string;
  const form = new FormData();
  form.set('language', 'cpp');
  form.set('sourceCode', new Blob([readFileSync(join(root, 'judge/samples/solutions/aplusb/accept.cpp'))]), 'accept.cpp');
  const submitted = await api('POST', `/submission/problem/${String(aplusb.id)}`, { token, form });
  expect(submitted.status).toBe(200);

  const deadline = Date.now() + 120_000;
  for (;;) {
    const submission = await api('GET', `/submission/${String(submitted.body.id)}`, { token });
    if (submission.body.status !== 'waiting' && submission.body.status !== 'grading') {
      expect(submission.body).toMatchObject({ status: 'accept', submissionResult: { result: 'PPPPPPPPPP', score: 100 } });
      return;
    }
    if (Date.now() > deadline) throw new Error('the local judge worker did not judge the submission in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Pids of the built-in judge workers of an OTOG data directory (by their cache directory). */
function judgeWorkersOf(dataDir: string): number[] {
  const marker = `OTOG_JUDGE_CACHE_DIR=${localSandboxEnv(dataDir).OTOG_JUDGE_CACHE_DIR}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('judge/src/main.ts') && readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(marker);
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
}

/** Entries under `dir` (itself included) that a group or other user could read; links are not followed. */
function readableByOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if (stats.mode & 0o044) found.push(`${path} (${(stats.mode & 0o777).toString(8)})`);
    if (stats.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  visit(dir);
  return found;
}

/** Stops with SIGTERM and checks that the exit was clean and no Postgres process of the data dir is left. */
async function stopAndCheck(otog: OtogProcess, dataDir: string): Promise<void> {
  const clusterDir = join(dataDir, 'postgres');
  const { pid } = postmasterOf(clusterDir);
  expect(isAlive(pid)).toBe(true);
  expect(processesUsing(clusterDir)).toContain(pid);
  const code = await otog.stop();
  expect(code, otog.output().stderr).toBe(0);
  expect(isAlive(pid)).toBe(false);
  expect(processesUsing(clusterDir)).toEqual([]);
  // Postgres removes its pid file only on a clean shutdown.
  expect(existsSync(join(clusterDir, 'postmaster.pid'))).toBe(false);
}

describe('npm start (node services/api/src/main.ts) without DATABASE_URL', () => {
  it('serves /api/ping and /api/time, keeps its data across a restart and leaves nothing running', async () => {
    const dataDir = join(scratch, 'a');
    const port = await freePort();
    const first = await startOtog({ OTOG_DATA_DIR: dataDir, PORT: String(port) });
    expect(first.output().stdout).toContain(`OTOG is running at http://localhost:${port}/`);
    expect(first.output().stdout).toContain(`http://localhost:${port}/api`);
    const adminPassword = /username: admin {3}password: (\S+)/.exec(first.output().stdout)?.[1];
    expect(adminPassword, first.output().stdout).toBeDefined();

    const ping = await get(port, '/api/ping');
    expect(ping).toMatchObject({ status: 200, body: 'pong' });
    expect(ping.type).toMatch(/^text\/plain/);
    const time = await get(port, '/api/time');
    expect(time.status).toBe(200);
    expect(time.type).toMatch(/^application\/json/);
    const serverDate = new Date(JSON.parse(time.body) as string);
    expect(Math.abs(serverDate.getTime() - Date.now())).toBeLessThan(5_000);
    const missing = await get(port, '/api/no-such-route');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ message: expect.any(String) });

    // The password is generated once and readable by the owner only.
    expect(statSync(join(dataDir, 'postgres.password')).mode & 0o777).toBe(0o600);
    const marker = `marker-${Date.now()}`;
    await withClient(dataDir, async (client) => {
      const migrated = await client.query('SELECT count(*)::int AS n FROM schema_migrations');
      expect(migrated.rows[0].n).toBeGreaterThan(0);
      await client.query('CREATE TABLE e2e_marker (note text)');
      await client.query('INSERT INTO e2e_marker VALUES ($1)', [marker]);
    });
    await stopAndCheck(first, dataDir);

    const second = await startOtog({ OTOG_DATA_DIR: dataDir, PORT: String(port) });
    expect((await get(port, '/api/ping')).body).toBe('pong');
    const notes = await withClient(dataDir, async (client) => (await client.query('SELECT note FROM e2e_marker')).rows);
    expect(notes).toEqual([{ note: marker }]);
    expect(second.output().stderr).toBe('');
    // Seeding happens once: the second start prints no new admin.
    expect(second.output().stdout).not.toContain('Created the first admin');
    await judgesASubmission(port, adminPassword!);
    // The operator CLI finds the running embedded cluster through its pid file (no DATABASE_URL).
    const cli = await run(process.execPath, [join(root, 'services/api/src/cli/main.ts'), 'migrate'], {
      env: childEnv({ OTOG_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
    });
    expect(cli.stdout).toMatch(/schema is up to date/);
    await stopAndCheck(second, dataDir);
    // Test data, statements (the seeded problems), the cluster, the password and the JWT secret: private.
    expect(readdirSync(join(dataDir, 'objects')).length).toBeGreaterThan(0);
    expect(existsSync(join(dataDir, 'secrets', 'jwt-secret'))).toBe(true);
    expect(readableByOthers(dataDir)).toEqual([]);
  }, 180_000);

  it('Ctrl-C in a terminal (SIGINT to the whole process group) stops cleanly: Postgres goes last, nothing logs an error', async () => {
    const dataDir = join(scratch, 'ctrl-c');
    const clusterDir = join(dataDir, 'postgres');
    const otog = await startOtog({ OTOG_DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'info' }, 90_000, { processGroup: true });
    await until('the built-in judge worker runs', () => judgeWorkersOf(dataDir).length === 1, 30_000);
    const { pid } = postmasterOf(clusterDir);
    process.kill(-otog.child.pid!, 'SIGINT');
    const code = await exited(otog.child);
    const { stdout, stderr } = otog.output();
    const errors = `${stdout}\n${stderr}`
      .split('\n')
      .filter((line) => line.trim() !== '')
      .filter((line) => {
        try {
          const { level } = JSON.parse(line) as { level: unknown };
          return (typeof level === 'number' && level >= 50) || level === 'error' || level === 'fatal';
        } catch {
          return stderr.includes(line); // plain lines on stderr are errors too (otog: could not start …)
        }
      });
    expect(errors).toEqual([]);
    expect(code).toBe(0);
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(join(clusterDir, 'postmaster.pid'))).toBe(false);
  }, 180_000);

  it('runs two data directories side by side', async () => {
    const [portB, portC] = [await freePort(), await freePort()];
    const [b, c] = await Promise.all([
      startOtog({ OTOG_DATA_DIR: join(scratch, 'b'), PORT: String(portB) }),
      startOtog({ OTOG_DATA_DIR: join(scratch, 'c'), PORT: String(portC) }),
    ]);
    expect((await get(portB, '/api/ping')).body).toBe('pong');
    expect((await get(portC, '/api/ping')).body).toBe('pong');
    const pgB = postmasterOf(join(scratch, 'b', 'postgres'));
    const pgC = postmasterOf(join(scratch, 'c', 'postgres'));
    expect(pgB.port).not.toBe(pgC.port);
    expect(pgB.pid).not.toBe(pgC.pid);
    await Promise.all([stopAndCheck(b, join(scratch, 'b')), stopAndCheck(c, join(scratch, 'c'))]);
  }, 180_000);

  it('after a crash (kill -9) the next start stops the Postgres left behind; a second live start is refused', async () => {
    const dataDir = join(scratch, 'crash');
    const clusterDir = join(dataDir, 'postgres');
    const port = await freePort();
    const env = { OTOG_DATA_DIR: dataDir, PORT: String(port) };
    const crashed = await startOtog(env);
    const { pid: orphan, socketDir } = postmasterOf(clusterDir);
    await until('the built-in judge worker runs', () => judgeWorkersOf(dataDir).length === 1, 30_000);
    const [worker] = judgeWorkersOf(dataDir);
    expect(isPostmasterOf(orphan, clusterDir)).toBe(true);
    // A pid reused by another process is never taken for the postmaster.
    expect(isPostmasterOf(process.pid, clusterDir)).toBe(false);
    crashed.child.kill('SIGKILL');
    await exited(crashed.child);
    // Nothing stopped it: this Postgres and its pid file are what used to block the next start.
    expect(isAlive(orphan)).toBe(true);
    expect(processesUsing(clusterDir)).toContain(orphan);
    // The judge worker's stdin pipe closed with its parent: it drains and exits by itself.
    await until('the orphaned judge worker exits', () => !isAlive(worker!), 30_000);

    const restarted = await startOtog(env);
    expect(restarted.output().stdout).toContain(`OTOG is running at http://localhost:${port}/`);
    expect(await get(port, '/api/ping')).toMatchObject({ status: 200, body: 'pong' });
    expect(isAlive(orphan)).toBe(false);
    expect(existsSync(socketDir)).toBe(false);
    expect(postmasterOf(clusterDir).pid).not.toBe(orphan);

    // A live OTOG keeps its data directory: a second start is refused and leaves its Postgres alone.
    const { pid } = postmasterOf(clusterDir);
    const second = await runOtogToExit({ ...env, PORT: String(await freePort()) });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`another OTOG (pid ${restarted.child.pid}) is already running with OTOG_DATA_DIR=${dataDir}`);
    expect(isAlive(pid)).toBe(true);
    expect((await get(port, '/api/ping')).status).toBe(200);
    await stopAndCheck(restarted, dataDir);
  }, 180_000);

  it('exits 1 naming a bad variable, before writing anything', async () => {
    const dataDir = join(scratch, 'bad');
    const badPort = await runOtogToExit({ OTOG_DATA_DIR: dataDir, PORT: 'abc' });
    expect(badPort.code).toBe(1);
    expect(badPort.stderr).toMatch(/PORT/);
    const badUrl = await runOtogToExit({ OTOG_DATA_DIR: dataDir, PORT: String(await freePort()), DATABASE_URL: 'mysql://x' });
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toMatch(/DATABASE_URL: must use the postgres:\/\/ scheme/);
    const both = await runOtogToExit({ OTOG_DATA_DIR: dataDir, PORT: '0x', DATABASE_URL: 'not a url' });
    expect(both.stderr).toMatch(/PORT/);
    expect(both.stderr).toMatch(/DATABASE_URL/);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);

  it.skipIf(!isRoot)('as root, with the data directory out of the postgres user\'s reach (a checkout under /root), keeps the cluster under /var/lib/otog', async () => {
    const locked = join(scratch, 'locked');
    mkdirSync(locked, { mode: 0o700 });
    chmodSync(locked, 0o700);
    const dataDir = join(locked, 'data');
    const link = join(dataDir, 'postgres');
    const otog = await startOtog({ OTOG_DATA_DIR: dataDir, PORT: String(await freePort()) });
    const clusterDir = readlinkSync(link);
    try {
      expect(clusterDir.startsWith('/var/lib/otog/clusters/')).toBe(true);
      expect(statSync(clusterDir).mode & 0o777).toBe(0o700);
      const { pid } = postmasterOf(link);
      expect(isPostmasterOf(pid, link)).toBe(true);
      expect(await otog.stop()).toBe(0);
      expect(isAlive(pid)).toBe(false);
      // The next start finds the same cluster through the link.
      const again = await startOtog({ OTOG_DATA_DIR: dataDir, PORT: String(await freePort()) });
      expect(readlinkSync(link)).toBe(clusterDir);
      expect(await again.stop()).toBe(0);
    } finally {
      rmSync(clusterDir, { recursive: true, force: true });
    }
  }, 180_000);
});
