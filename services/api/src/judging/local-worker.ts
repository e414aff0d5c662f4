import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { lineRelay } from '@otog/platform/log/pretty';
import { repoRoot } from '../config.ts';
import { LOCAL_WORKER } from './worker-tokens.ts';

export interface LocalWorker {
  stop(): Promise<void>;
}

/**
 * Sandbox settings of the built-in worker, derived from the data directory so two checkouts on one
 * machine never share a cgroup, a uid range or a box directory.
 */
export function localSandboxEnv(dataDir: string, sandbox = 'bwrap'): Record<string, string> {
  const digest = createHash('sha256').update(dataDir).digest();
  const cgroup = `otog-${digest.toString('hex').slice(0, 12)}`;
  return {
    OTOG_SANDBOX_CGROUP: cgroup,
    // Above the ranges the judge's own defaults and the test suites use (60100-61999).
    OTOG_SANDBOX_FIRST_UID: String(62_000 + (digest.readUInt16BE(0) % 4_000) * 64),
    // Outside the data directory: its per-slot tmpfs mounts must never block removing the data.
    OTOG_SANDBOX_ROOT: join('/var/lib/otog-judge', cgroup),
    // The sandbox uids read the test data (custom checkers, through a bind mount made as that uid), which
    // the private data directory (0700) would hide: in bwrap mode the cache lives beside the sandbox root.
    OTOG_JUDGE_CACHE_DIR: sandbox === 'bwrap' ? join('/var/lib/otog-judge', `${cgroup}-cache`) : join(dataDir, 'judge-cache'),
  };
}

/**
 * `npm start`'s judge: the real worker (judge/src/main.ts) as a child process talking to this API over
 * HTTP with its own token, exactly as a judge host does. It is restarted with backoff when it dies; when
 * the sandbox cannot run here it says why once and retries slowly, while the API keeps serving.
 */
export function startLocalWorker(options: {
  apiUrl: string;
  token: string;
  dataDir: string;
  slots: number;
  /** The worker finds prlimit and bwrap on it. */
  path: string;
  logger: Logger;
  /** Extra variables for the worker (OTOG_SANDBOX=unsafe for development machines without a sandbox). */
  env?: Record<string, string>;
}): LocalWorker {
  const { logger } = options;
  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;
  let timer: NodeJS.Timeout | undefined;

  const launch = () => {
    const started = Date.now();
    // The worker keeps the usual umask (ours is 077): as on a judge host, the sandbox uids must read its
    // test-data cache and sandbox directories, whose modes it sets assuming 022.
    const umask = process.umask(0o022);
    let worker: ChildProcess;
    try {
      worker = spawn(process.execPath, [join(repoRoot, 'judge/src/main.ts')], {
        env: {
          PATH: options.path,
          ...localSandboxEnv(options.dataDir, options.env?.OTOG_SANDBOX),
          ...options.env,
          OTOG_API_URL: options.apiUrl,
          OTOG_JUDGE_WORKER: LOCAL_WORKER,
          OTOG_JUDGE_TOKEN: options.token,
          OTOG_JUDGE_SLOTS: String(options.slots),
          // The pipe on its stdin closes when this process dies in any way: the worker then drains and exits.
          OTOG_JUDGE_STOP_WITH_STDIN: '1',
        },
        stdio: ['pipe', 'inherit', 'pipe'],
        // Out of our process group: a terminal's Ctrl-C reaches us, and stop() drains the worker.
        detached: true,
      });
    } finally {
      process.umask(umask);
    }
    child = worker;
    let stderr = '';
    // Its JSON log lines read like ours on a terminal.
    const relay = lineRelay(process.stderr, process.stderr.isTTY);
    worker.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4_000);
      relay(chunk);
    });
    worker.once('exit', (code, signal) => {
      child = undefined;
      if (stopping) return;
      // A worker that ran for a while gets a quick restart; one that keeps failing at start, a slow one.
      restarts = Date.now() - started > 60_000 ? 0 : restarts + 1;
      const delay = Math.min(1_000 * 2 ** Math.min(restarts, 6), 60_000);
      logger.error({ code, signal, retryInMs: delay, stderr: stderr.trim().split('\n').slice(-5).join('\n') }, 'the local judge worker stopped');
      timer = setTimeout(launch, delay);
    });
  };
  launch();
  logger.info({ slots: options.slots }, 'local judge worker started');

  return {
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      const running = child;
      if (!running || running.exitCode !== null) return;
      // SIGTERM drains: running submissions finish, nothing new is claimed.
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGTERM');
      const forced = setTimeout(() => running.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(forced);
    },
  };
}
