/**
 * Environment of the single-machine / API process (`npm start`). Every variable is read here and only here.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, logLevel, parseConfig, port, postgresUrl, urlVariable } from '@otog/platform/config/define-config';

/** The checkout's root: the default data directory belongs to the checkout, wherever the process is started from. */
export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * What one process does: `api` serves HTTP (public API, internal judge API, web app)
 * and seeds an empty database; `projector` folds the read models; `relay` publishes the log to Kafka;
 * `judge-queue` turns submissions into judge tasks and sweeps the ones nobody can finish.
 */
export const ROLES = ['api', 'projector', 'relay', 'judge-queue'] as const;
export type Role = (typeof ROLES)[number];

const roleList = z
  .string()
  .transform((list, ctx) => {
    if (list.trim() === '') {
      ctx.addIssue({ code: 'custom', message: `must name at least one of ${ROLES.join(', ')}` });
      return z.NEVER;
    }
    const names = list.split(',').map((name) => name.trim());
    const unknown = names.filter((name) => !(ROLES as readonly string[]).includes(name));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown role ${unknown.map((name) => JSON.stringify(name)).join(', ')}; use a comma-separated subset of ${ROLES.join(', ')}`,
      });
      return z.NEVER;
    }
    // In ROLES' order, each once: the list reads the same however it was written.
    return ROLES.filter((role) => names.includes(role));
  })
  .optional()
  .transform((roles): readonly Role[] => roles ?? ROLES);

/** A redis:// or rediss:// URL. */
const redisUrl = urlVariable('redis://[:password@]host:port[/db]', (url) => {
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') return `must use the redis:// or rediss:// scheme, got "${url.protocol}"`;
  if (!url.hostname) return 'has no host';
  return undefined;
});

const booleanFlag = z.enum(['true', 'false', '1', '0'], 'must be true or false').transform((value) => value === 'true' || value === '1');

/** An http(s) base URL such as http://minio:9000 (an S3-compatible service). */
const httpUrl = z
  .string()
  .trim()
  .pipe(
    urlVariable('http(s)://host[:port]', (url) => {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must use http:// or https://, got "${url.protocol}"`;
      if (url.username || url.password) return 'must not carry credentials: use OTOG_S3_ACCESS_KEY_ID and OTOG_S3_SECRET_ACCESS_KEY';
      return undefined;
    }),
  );

/** The S3 variables other than the bucket: meaningless without it, so setting one alone is an error. */
const S3_DETAILS = ['OTOG_S3_ENDPOINT', 'OTOG_S3_REGION', 'OTOG_S3_ACCESS_KEY_ID', 'OTOG_S3_SECRET_ACCESS_KEY', 'OTOG_S3_PREFIX', 'OTOG_S3_FORCE_PATH_STYLE'] as const;

export const apiConfigShape = {
  /** Comma-separated subset of ROLES; all of them when unset (`npm start` on one machine). */
  OTOG_ROLES: roleList,
  PORT: port.default(3000),
  /** Loopback by default: a fresh `npm start` on a laptop is not reachable from the network; set 0.0.0.0 to serve a LAN. */
  HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
  /** 1: stop (as on SIGTERM) when stdin closes: a supervisor holding the pipe never leaves this process orphaned, even after its own kill -9. */
  OTOG_STOP_WITH_STDIN: booleanFlag.default(false),
  /** Serves GET /health and /ready on this port (every role; for probes of nodes without the api role), on HOST. Unset: none. */
  OTOG_OPS_PORT: port.optional(),
  /** When unset, an embedded Postgres runs in OTOG_DATA_DIR/postgres. */
  DATABASE_URL: postgresUrl.optional(),
  /** The default is `<checkout>/data`; a relative value is resolved against the current directory. */
  OTOG_DATA_DIR: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .default(resolve(repoRoot, 'data'))
    .transform((dir) => resolve(dir)),
  LOG_LEVEL: logLevel,
  /** Sandbox slots of the judge worker `npm start` runs beside the API; 0 runs none (judge hosts elsewhere). */
  OTOG_LOCAL_JUDGE_SLOTS: z.coerce.number().int().min(0).max(64).default(1),
  /** Handed on to that worker, which finds prlimit and bwrap on it. */
  PATH: z.string().default('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'),
  /** Passed to that worker: `unsafe` judges without a sandbox, for development machines only. */
  OTOG_SANDBOX: z.enum(['bwrap', 'unsafe']).optional(),
  /** Comma-separated host:port list; when set, the event log is relayed to Kafka (scaled mode). */
  KAFKA_BROKERS: z
    .string()
    .trim()
    .regex(/^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/, 'must be a comma-separated list of host:port')
    .transform((list) => list.split(','))
    .optional(),
  /**
   * Where the contest projections (scoreboard, score history, prizes) read events: `log` (the Postgres log,
   * every deployment) or `kafka` (scaled: their Kafka topics, with consumer groups; needs KAFKA_BROKERS and a
   * relay). Projections that need the log's global order (ratings) always read the log.
   */
  OTOG_PROJECTION_SOURCE: z.enum(['log', 'kafka']).default('log'),
  /** How soon Kafka notices a dead consumer and gives its partitions to another (a real broker needs at least 6000). */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int('must be a whole number of milliseconds').min(1_000).max(300_000).default(10_000),
  /** When set, rate-limit counters live in this Redis, shared by every API node (else in each process's memory). */
  REDIS_URL: redisUrl.optional(),
  /** How long a judge worker's claim or heartbeat holds a task before another worker may take it over. */
  JUDGE_LEASE_SECONDS: z.coerce.number().int('must be a whole number of seconds').min(5).max(3_600).default(60),
  /** Leases one judging may take (a worker dying or failing uses one); then the submission ends as judgeError. */
  JUDGE_MAX_ATTEMPTS: z.coerce.number().int('must be a whole number').min(1).max(20).default(3),
  /** On-site contest mode: most routes become admin-only (spec section 1). */
  OFFLINE_MODE: booleanFlag.default(false),
  /** The web app re-reads its session this often (seconds) besides on focus and other tabs' notices; 0 = never. */
  WEB_SESSION_POLL_SECONDS: z.coerce.number().int('must be a whole number of seconds').min(0).max(86_400).default(0),
  /**
   * Files shared by every node (statements, test data, attachments, avatars) go to this S3 bucket (AWS,
   * MinIO, any S3-compatible store); unset: OTOG_DATA_DIR/objects on this machine.
   */
  OTOG_S3_BUCKET: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3-63 lower-case letters, digits, dots and hyphens')
    .optional(),
  /** An S3-compatible service's URL (e.g. http://minio:9000); unset: AWS S3 in OTOG_S3_REGION. */
  OTOG_S3_ENDPOINT: httpUrl.optional(),
  OTOG_S3_REGION: z.string().trim().regex(/^[a-z0-9-]+$/, 'must be a region name such as us-east-1').default('us-east-1'),
  /** Both or neither; unset, the AWS SDK's own chain applies (AWS_ACCESS_KEY_ID..., an instance role). */
  OTOG_S3_ACCESS_KEY_ID: z.string().trim().min(1, 'must not be empty').optional(),
  OTOG_S3_SECRET_ACCESS_KEY: z.string().min(1, 'must not be empty').optional(),
  /** Prepended to every object's key (a `/` is added), so deployments can share a bucket. */
  OTOG_S3_PREFIX: z
    .string()
    .trim()
    .regex(/^[\w.-]+(\/[\w.-]+)*\/?$/, 'must be a key prefix such as otog/ (letters, digits, . _ - separated by /)')
    .optional(),
  /** Bucket in the URL's path, not its host name: MinIO and most self-hosted stores need it. Default: true when OTOG_S3_ENDPOINT is set. */
  OTOG_S3_FORCE_PATH_STYLE: booleanFlag.optional(),
  /** Signs access tokens and file URLs. When unset, a random one is kept in OTOG_DATA_DIR/secrets (mode 0600). */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(90 * 86_400).default(7 * 86_400),
  /**
   * Behind a reverse proxy or load balancer: `true` (believe X-Forwarded-For from any hop) or a
   * comma-separated list of the proxies' addresses/CIDRs (or `loopback`, `uniquelocal`). Unset: the socket's
   * address is the caller's (rate limits key on it), and a forged X-Forwarded-For changes nothing.
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .transform((value): boolean | string => (value === 'true' ? true : value === 'false' ? false : value))
    .optional(),
  /** Secure flag on the refresh-token cookie: set it when the site is served over HTTPS. */
  COOKIE_SECURE: booleanFlag.default(false),
  /**
   * Domain of the session cookies, for a web app on another host of the same site (e.g. `otog.in.th` when
   * the web is at www.otog.in.th and the API at api.otog.in.th). Unset: the API's own host only.
   */
  COOKIE_DOMAIN: z
    .string()
    .trim()
    .regex(/^\.?[a-z0-9-]+(\.[a-z0-9-]+)*$/i, 'must be a host name such as otog.in.th')
    .optional(),
  /** Path of the refresh-token cookie: the auth routes' path as the browser sees it (behind a proxy that strips /api: `/auth`). */
  REFRESH_COOKIE_PATH: z.string().trim().regex(/^\/[\w\-./]*$/, 'must be a URL path starting with /').default('/api/auth'),
  /**
   * Web apps on other origins allowed to call the API and the realtime channel with credentials (the
   * original OTOG web serves itself apart from its API): comma-separated origins such as
   * `https://otog.in.th,http://localhost:3000`. Unset: only the API's own origin.
   */
  CORS_ORIGINS: z
    .string()
    .trim()
    .transform((value, context): string[] => {
      const origins = value.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
      for (const origin of origins) {
        if (!/^https?:\/\/[^/\s]+$/.test(origin)) context.addIssue({ code: 'custom', message: `${origin} is not an origin such as https://otog.in.th` });
      }
      return origins;
    })
    .optional(),
  /** Scoreboards (a contest's live or frozen board) kept built per API process, least recently read dropped; 0: none. */
  SCOREBOARD_CACHE_SIZE: z.coerce.number().int().min(0).max(1_000).default(8),
  /** MiB each API process keeps of per-caller problem tables (their JSON and compressed bodies); 0: none kept. */
  PROBLEM_TABLE_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(192),
  /** Largest accepted source file in bytes (OTOG: 10 KiB). */
  SUBMISSION_MAX_BYTES: z.coerce.number().int().min(100).max(1_048_576).default(10 * 1024),
  /** The first admin, created when the database has no accounts; without a password a random one is printed once. */
  OTOG_ADMIN_USERNAME: z.string().trim().min(1).max(255).default('admin'),
  OTOG_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').max(256).optional(),
};

export type ApiConfig = z.output<z.ZodObject<typeof apiConfigShape>>;

/** Parses the given environment; throws ConfigError listing every problem. */
export function readApiConfig(env: Record<string, string | undefined>): ApiConfig {
  const config = parseConfig(apiConfigShape, env);
  const problems: string[] = [];
  // Only an explicit list is checked: the default (every role) relays only when KAFKA_BROKERS is set.
  if (env.OTOG_ROLES !== undefined && config.OTOG_ROLES.includes('relay') && !config.KAFKA_BROKERS) {
    problems.push('OTOG_ROLES: the relay role needs KAFKA_BROKERS');
  }
  if (config.OTOG_PROJECTION_SOURCE === 'kafka' && !config.KAFKA_BROKERS) {
    problems.push('OTOG_PROJECTION_SOURCE: kafka needs KAFKA_BROKERS');
  }
  // The embedded Postgres belongs to one process; nodes that split the roles share a real database.
  if (config.OTOG_ROLES.length < ROLES.length && !config.DATABASE_URL) {
    problems.push('OTOG_ROLES: running only some roles needs DATABASE_URL (the embedded Postgres serves a single process)');
  }
  if (!config.OTOG_S3_BUCKET) {
    for (const name of S3_DETAILS) if (env[name] !== undefined) problems.push(`${name}: is set but OTOG_S3_BUCKET is not (S3 storage is used only with a bucket)`);
  } else if ((config.OTOG_S3_ACCESS_KEY_ID === undefined) !== (config.OTOG_S3_SECRET_ACCESS_KEY === undefined)) {
    problems.push('OTOG_S3_ACCESS_KEY_ID, OTOG_S3_SECRET_ACCESS_KEY: set both or neither');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** For the entry point: the process environment, or a message naming each bad variable and exit(1). */
export function loadApiConfig(): ApiConfig {
  try {
    return readApiConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`otog: ${error.message}\n`);
    process.exit(1);
  }
}
