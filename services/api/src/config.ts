/**
 * Environment of the single-machine / API process (`npm start`). Every variable is read here and only here.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { loadConfigOrExit, logLevel, parseConfig, port, postgresUrl } from '@otog/platform/config/define-config';

/** The checkout's root: the default data directory belongs to the checkout, wherever the process is started from. */
export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

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
