/**
 * Environment of the judge: the worker (`node judge/src/main.ts`) and the local command
 * (`npm run judge -- local`). Every variable is read here and only here; a bad environment is reported
 * with every bad variable at once.
 *
 * Worker:
 * - OTOG_API_URL (required): the API's base URL, e.g. http://api:3000 (the internal routes are under it).
 * - OTOG_JUDGE_WORKER (required): this worker's name, as made by `npm run cli -- judge add-worker <name>`.
 * - OTOG_JUDGE_TOKEN (required): that worker's token.
 * - OTOG_JUDGE_SLOTS: submissions judged at once, one sandbox slot each (default 1).
 * - OTOG_JUDGE_CACHE_DIR: test data and compiled checkers (default /var/lib/otog-judge/cache).
 * - OTOG_JUDGE_CACHE_KEEP: unpacked test-data packages kept when unused (default 32).
 * - OTOG_JUDGE_CHECKER_TIME_LIMIT_MS: a checker run's CPU and wall limit (default and maximum 60000).
 * - OTOG_JUDGE_CLAIM_WAIT_MS: how long one claim long-polls (default 20000, at most 30000).
 * - OTOG_JUDGE_OPS_PORT, OTOG_JUDGE_OPS_HOST (default 127.0.0.1): GET /health, /ready and /metrics there.
 * - OTOG_JUDGE_STOP_WITH_STDIN: 1 drains the worker when its stdin closes (npm start's built-in worker: its
 *   parent holds the pipe, so the worker never outlives it, even after a kill -9). Default 0.
 * - OTOG_SANDBOX (`bwrap` default, or `unsafe` for development only), OTOG_SANDBOX_ROOT,
 *   OTOG_SANDBOX_FIRST_UID, OTOG_SANDBOX_CGROUP: the sandbox (judge/src/sandbox/config.ts).
 *
 * Local command: OTOG_SANDBOX, OTOG_SANDBOX_FIRST_UID (default 60500, apart from a worker's),
 * OTOG_JUDGE_CHECKER_TIME_LIMIT_MS. Its sandbox lives in a temporary directory with its own cgroup.
 */
import { z } from 'zod';
import type { SandboxMode } from './sandbox/index.ts';

type Env = Readonly<Record<string, string | undefined>>;

export class JudgeConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'JudgeConfigError';
    this.problems = problems;
  }
}

/** Empty strings count as unset (a blank line in an env file). */
const blankAsUnset = (env: Env): Env => Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));

const integer = (min: number, max: number) => z.coerce.number().int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

const sandboxShape = {
  OTOG_SANDBOX: z.enum(['bwrap', 'unsafe'], { error: 'must be "bwrap" or "unsafe"' }).default('bwrap'),
  OTOG_SANDBOX_ROOT: z.string().trim().startsWith('/', 'must be an absolute path').default('/var/lib/otog-judge/sandbox'),
  OTOG_SANDBOX_CGROUP: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'letters, digits and _.- only').default('otog-judge'),
  OTOG_JUDGE_CHECKER_TIME_LIMIT_MS: integer(100, 60_000).default(60_000),
};

export const workerConfigShape = {
  OTOG_API_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://localhost:3000' }),
  OTOG_JUDGE_WORKER: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/, 'letters, digits and _.:- (at most 100), starting with a letter or digit'),
  OTOG_JUDGE_TOKEN: z.string().trim().min(1, 'must not be empty'),
  OTOG_JUDGE_SLOTS: integer(1, 64).default(1),
  OTOG_JUDGE_CACHE_DIR: z.string().trim().startsWith('/', 'must be an absolute path').default('/var/lib/otog-judge/cache'),
  OTOG_JUDGE_CACHE_KEEP: integer(1, 100_000).default(32),
  OTOG_JUDGE_CLAIM_WAIT_MS: integer(0, 30_000).default(20_000),
  OTOG_SANDBOX_FIRST_UID: integer(1000, 4_000_000_000).default(60100),
  OTOG_JUDGE_STOP_WITH_STDIN: z.enum(['0', '1'], { error: 'must be 0 or 1' }).default('0'),
  OTOG_JUDGE_OPS_PORT: integer(1, 65_535).optional(),
  OTOG_JUDGE_OPS_HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
  ...sandboxShape,
};

export const localConfigShape = {
  OTOG_SANDBOX: sandboxShape.OTOG_SANDBOX,
  OTOG_SANDBOX_FIRST_UID: integer(1000, 4_000_000_000).default(60500),
  OTOG_JUDGE_CHECKER_TIME_LIMIT_MS: sandboxShape.OTOG_JUDGE_CHECKER_TIME_LIMIT_MS,
};

function parse<TShape extends z.ZodRawShape>(shape: TShape, env: Env): z.output<z.ZodObject<TShape>> {
  const present = blankAsUnset(env);
  const result = z.object(shape).safeParse(present);
  if (result.success) return result.data;
  const problems = new Map<string, string>();
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? '(environment)');
    if (problems.has(name)) continue;
    problems.set(name, present[name] === undefined ? `${name}: is required but not set` : `${name}: ${issue.message}`);
  }
  throw new JudgeConfigError([...problems.values()]);
}

export interface WorkerConfig {
  readonly apiUrl: string;
  readonly worker: string;
  readonly token: string;
  readonly slots: number;
  readonly cacheDir: string;
  readonly cacheKeep: number;
  readonly claimWaitMs: number;
  readonly checkerTimeLimitMs: number;
  /** Drain when stdin closes: the parent that started the worker with a pipe is gone (even by kill -9). */
  readonly stopWithStdin: boolean;
  /** GET /health, /ready and /metrics on this address (judge/src/worker/ops.ts); none when the port is unset. */
  readonly ops: { readonly host: string; readonly port: number } | undefined;
  readonly sandbox: {
    readonly mode: SandboxMode;
    readonly rootDir: string;
    readonly firstUid: number;
    readonly cgroupParent: string;
  };
}

export function readWorkerConfig(env: Env): WorkerConfig {
  const parsed = parse(workerConfigShape, env);
  return {
    apiUrl: parsed.OTOG_API_URL,
    worker: parsed.OTOG_JUDGE_WORKER,
    token: parsed.OTOG_JUDGE_TOKEN,
    slots: parsed.OTOG_JUDGE_SLOTS,
    cacheDir: parsed.OTOG_JUDGE_CACHE_DIR,
    cacheKeep: parsed.OTOG_JUDGE_CACHE_KEEP,
    claimWaitMs: parsed.OTOG_JUDGE_CLAIM_WAIT_MS,
    checkerTimeLimitMs: parsed.OTOG_JUDGE_CHECKER_TIME_LIMIT_MS,
    stopWithStdin: parsed.OTOG_JUDGE_STOP_WITH_STDIN === '1',
    ops: parsed.OTOG_JUDGE_OPS_PORT === undefined ? undefined : { host: parsed.OTOG_JUDGE_OPS_HOST, port: parsed.OTOG_JUDGE_OPS_PORT },
    sandbox: {
      mode: parsed.OTOG_SANDBOX,
      rootDir: parsed.OTOG_SANDBOX_ROOT,
      firstUid: parsed.OTOG_SANDBOX_FIRST_UID,
      cgroupParent: parsed.OTOG_SANDBOX_CGROUP,
    },
  };
}

export interface LocalConfig {
  readonly sandboxMode: SandboxMode;
  readonly firstUid: number;
  readonly checkerTimeLimitMs: number;
}

export function readLocalConfig(env: Env): LocalConfig {
  const parsed = parse(localConfigShape, env);
  return { sandboxMode: parsed.OTOG_SANDBOX, firstUid: parsed.OTOG_SANDBOX_FIRST_UID, checkerTimeLimitMs: parsed.OTOG_JUDGE_CHECKER_TIME_LIMIT_MS };
}

/** The worker's configuration from the process environment (throws JudgeConfigError). */
export function loadWorkerConfig(): WorkerConfig {
  return readWorkerConfig(process.env);
}

/** The local command's configuration from the process environment (throws JudgeConfigError). */
export function loadLocalConfig(): LocalConfig {
  return readLocalConfig(process.env);
}
