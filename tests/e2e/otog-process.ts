/**
 * Runs `node services/api/src/main.ts` the way `npm start` does (node_modules/.bin first on PATH), with
 * its own data directory and port and without DATABASE_URL, and looks at what it leaves on the machine.
 */
import { readPostmasterPid } from '../../services/api/src/local/postmaster.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}`, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  // As on a machine running `npm start`: the suites' Redis is for the suites (and shared counters there would
  // let one suite's sign-ins use up another's rate limit).
  delete env.REDIS_URL;
  // Nor does it relay to the suites' Kafka unless a test asks (extra): every stack's submission 1 writes the
  // same deterministic judging event ids, and a test reading the topics would find them from other stacks.
  delete env.KAFKA_BROKERS;
  return { ...env, ...extra };
}

export interface OtogProcess {
  readonly child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Resolves with the exit code once `child` has exited (null when a signal ended it). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** `processGroup`: the child leads a process group of its own, as `npm start` in a terminal does (Ctrl-C signals the whole group). */
function spawnOtog(env: Record<string, string>, options: { processGroup?: boolean } = {}) {
  const child = spawn('node', ['services/api/src/main.ts'], {
    cwd: root,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.processGroup ?? false,
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, output: () => ({ stdout, stderr }) };
}

/** Starts OTOG and resolves once it prints its URL (rejects with its output if it exits first). */
export function startOtog(
  env: { OTOG_DATA_DIR: string; PORT: string } & Record<string, string>,
  timeoutMs = 90_000,
  options: { processGroup?: boolean } = {},
): Promise<OtogProcess> {
  return startOtogUntil(env, 'OTOG is running at', timeoutMs, options);
}

/** Starts a node without the api role (OTOG_ROLES): it prints the roles it runs instead of a URL. */
export function startOtogNode(env: { OTOG_ROLES: string; DATABASE_URL: string } & Record<string, string>, timeoutMs = 90_000): Promise<OtogProcess> {
  return startOtogUntil(env, 'OTOG is running: ', timeoutMs);
}

async function startOtogUntil(env: Record<string, string>, started: string, timeoutMs: number, options: { processGroup?: boolean } = {}): Promise<OtogProcess> {
  const { child, output } = spawnOtog(env, options);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`OTOG did not start in ${timeoutMs} ms:\n${JSON.stringify(output())}`)), timeoutMs);
    const onData = () => {
      if (output().stdout.includes(started)) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`OTOG exited with ${code} before it started:\n${output().stderr}\n${output().stdout}`));
    });
  });
  return {
    child,
    output,
    async stop() {
      child.kill('SIGTERM');
      return exited(child);
    },
  };
}

/** Runs OTOG expecting it to exit by itself (bad configuration). */
export async function runOtogToExit(env: Record<string, string>, timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, output } = spawnOtog(env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited(child);
  clearTimeout(timer);
  return { code, ...output() };
}

/** For afterAll: nothing a failed test started stays behind. */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited(child);
      clearTimeout(timer);
    }),
  );
}

/** Pids of processes whose command line names the cluster directory (the postmaster is started with `-D <dir>`). */
export function processesUsing(clusterDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes(clusterDir)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

export { isAlive, isPostmasterOf } from '../../services/api/src/local/postmaster.ts';

/** The postmaster's pid and port, from the pid file Postgres itself writes into the cluster directory. */
export function postmasterOf(clusterDir: string): { pid: number; port: number; socketDir: string } {
  const postmaster = readPostmasterPid(clusterDir);
  if (!postmaster) throw new Error(`no running postmaster recorded in ${clusterDir}`);
  return postmaster;
}
