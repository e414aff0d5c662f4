/**
 * Environment of the single-machine / API process (`npm start`). Every variable is read here and only here.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { loadConfigOrExit, logLevel, parseConfig, port, postgresUrl } from '@otog/platform/config/define-config';

/** The checkout's root: the default data directory belongs to the checkout, wherever the process is started from. */
export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

const booleanFlag = z.enum(['true', 'false', '1', '0'], 'must be true or false').transform((value) => value === 'true' || value === '1');

export const apiConfigShape = {
  PORT: port.default(3000),
  /** Loopback by default: a fresh `npm start` on a laptop is not reachable from the network; set 0.0.0.0 to serve a LAN. */
  HOST: z.string().trim().min(1, 'must not be empty').default('127.0.0.1'),
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
  /** Handed on to that worker, which finds setpriv, prlimit and bwrap on it. */
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
  /** How long a judge worker's claim or heartbeat holds a task before another worker may take it over. */
  JUDGE_LEASE_SECONDS: z.coerce.number().int('must be a whole number of seconds').min(5).max(3_600).default(60),
  /** Leases one judging may take (a worker dying or failing uses one); then the submission ends as judgeError. */
  JUDGE_MAX_ATTEMPTS: z.coerce.number().int('must be a whole number').min(1).max(20).default(3),
  /** On-site contest mode: most routes become admin-only (spec section 1). */
  OFFLINE_MODE: booleanFlag.default(false),
  /** The web app re-reads its session this often (seconds) besides on focus and other tabs' notices; 0 = never. */
  WEB_SESSION_POLL_SECONDS: z.coerce.number().int('must be a whole number of seconds').min(0).max(86_400).default(0),
  /** Signs access tokens and file URLs. When unset, a random one is kept in OTOG_DATA_DIR/secrets (mode 0600). */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(900),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(90 * 86_400).default(7 * 86_400),
  /** Secure flag on the refresh-token cookie: set it when the site is served over HTTPS. */
  COOKIE_SECURE: booleanFlag.default(false),
  /** Largest accepted source file in bytes (OTOG: 10 KiB). */
  SUBMISSION_MAX_BYTES: z.coerce.number().int().min(100).max(1_048_576).default(10 * 1024),
  /** The first admin, created when the database has no accounts; without a password a random one is printed once. */
  OTOG_ADMIN_USERNAME: z.string().trim().min(1).max(255).default('admin'),
  OTOG_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').max(256).optional(),
};

export type ApiConfig = z.output<z.ZodObject<typeof apiConfigShape>>;

/** Parses the given environment; throws ConfigError listing every problem. */
export function readApiConfig(env: Record<string, string | undefined>): ApiConfig {
  return parseConfig(apiConfigShape, env);
}

/** For the entry point: the process environment, or a message naming each bad variable and exit(1). */
export function loadApiConfig(): ApiConfig {
  return loadConfigOrExit('otog', apiConfigShape);
}
