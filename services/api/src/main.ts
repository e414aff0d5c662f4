/**
 * `npm start`, and every node of a scaled deployment: one binary whose roles come from OTOG_ROLES (all of
 * them by default). Reads the environment (or exits naming the bad variable), starts an embedded Postgres
 * when DATABASE_URL is unset, migrates, runs its roles (folding the projections, the judge queue, the Kafka
 * relay, the API under /api) and stops cleanly on SIGINT/SIGTERM/SIGHUP (server first, then projections,
 * then Postgres).
 */
import { Redis } from 'ioredis';
import { allProjections } from '@otog/projections';
import { migrate } from '@otog/platform/db/migrate';
import type { DatabasePool } from '@otog/platform/db/pool';
import { createLogger, describeUrl } from '@otog/platform/log/logger';
import { routeProcessWarnings } from '@otog/platform/log/process-warnings';
import { listSlots } from '@otog/platform/runner/projection-slots';
import { API_PREFIX, buildApp } from './app.ts';
import { loadApiConfig, repoRoot, type Role } from './config.ts';
import { ensurePrivateDataDir } from './local/data-dir.ts';
import { startEmbeddedPostgres } from './local/embedded-postgres.ts';
import { startPlatformRuntime } from './platform-runtime.ts';
import { startRealtime } from './realtime/gateway.ts';
import { createMemoryPresence, createRedisPresence } from './realtime/presence.ts';
import { startLocalWorker } from './judging/local-worker.ts';
import { rotateLocalWorkerToken } from './judging/worker-tokens.ts';
import { startJudging } from './judging/start-judging.ts';
import { objectStorageFor } from './object-storage.ts';
import { join } from 'node:path';
import { apiSettingsFrom } from './api-settings.ts';
import { createSessionGuard } from './modules/auth/session-guard.ts';
import { startContestEndScheduler } from './modules/contests/contest-end-scheduler.ts';
import { findAccount } from './modules/users/accounts.ts';
import { seedAdmin } from './seed/seed-admin.ts';
import { startOpsServer } from './ops/ops-server.ts';
import { createProcessMetrics } from './ops/metrics.ts';
import { createReadiness } from './ops/readiness.ts';
import { addRoleGauges } from './ops/role-metrics.ts';
import { sql } from '@otog/platform/db/pool';
import { seedSampleProblems } from './seed/seed-problems.ts';
import type { ApiDependencies } from './http/settings.ts';

const config = loadApiConfig();
// What we create (data directory, objects, secrets, the judge worker's files) is private unless a mode says otherwise.
process.umask(0o077);
const logger = createLogger({ name: 'otog', level: config.LOG_LEVEL });
routeProcessWarnings(logger);
const runs = (role: Role) => config.OTOG_ROLES.includes(role);
const metrics = createProcessMetrics({
  roles: config.OTOG_ROLES,
  onError: (metric, error) => logger.warn({ metric, err: error instanceof Error ? error.message : String(error) }, 'reading a metric failed'),
});
const readiness = createReadiness({
  roles: config.OTOG_ROLES,
  onFailure: (check, error) => logger.warn({ check, err: error instanceof Error ? error.message : String(error) }, 'readiness check failed'),
});

/** What to undo, newest last; shutdown runs it in reverse. */
const cleanups: Array<{ name: string; run: () => Promise<void> }> = [];
let shuttingDown: Promise<void> | undefined;
/** Set by the first SIGINT/SIGTERM/SIGHUP: a start in progress stops at its next step. */
let signalled = false;

function shutdown(exitCode: number): Promise<void> {
  readiness.markStopping();
  shuttingDown ??= (async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (error) {
        logger.error({ err: error }, `stopping ${cleanup.name} failed`);
        exitCode = 1;
      }
    }
    logger.info({ exitCode }, 'stopped');
    process.exit(exitCode);
  })();
  return shuttingDown;
}

/** Where a process on this machine reaches the server: a wildcard listen address means loopback. */
function localAddressOf(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Lines in a frame, with a blank line above and below. */
function boxed(lines: string[]): string {
  const width = Math.max(...lines.map((line) => line.length));
  const rule = '─'.repeat(width + 2);
  return `\n┌${rule}┐\n${lines.map((line) => `│ ${line.padEnd(width)} │\n`).join('')}└${rule}┘\n\n`;
}

/**
 * An empty database gets the first admin (its password printed once when generated) and the sample
 * problems of judge/samples; later starts change nothing.
 */
async function seedFirstStart(api: ApiDependencies): Promise<void> {
  const admin = await seedAdmin(api, { username: config.OTOG_ADMIN_USERNAME, password: config.OTOG_ADMIN_PASSWORD });
  if (admin.created) {
    // Printed, never logged: the one secret meant for the operator, boxed so it stands out among the logs.
    const password = admin.generated ? admin.password : 'from OTOG_ADMIN_PASSWORD';
    const note = admin.generated ? ['It is shown only now: change it after signing in.'] : [];
    process.stdout.write(boxed(['Created the first admin.', `username: ${admin.username}   password: ${password}`, ...note]));
  }
  const actor = await findAccount(api.pool, { username: config.OTOG_ADMIN_USERNAME });
  const seeded = await seedSampleProblems(api, actor?.id ?? 1, join(repoRoot, 'judge/samples'));
  if (seeded > 0) logger.info({ problems: seeded }, 'seeded the sample problems');
}

/**
 * An API node without the projector role reads tables a projector node creates: on a fresh database it
 * waits for them instead of failing its first reads.
 */
async function waitForReadModels(pool: DatabasePool): Promise<void> {
  let told = false;
  while (!signalled) {
    const live = new Set((await listSlots(pool)).filter((slot) => slot.state === 'live').map((slot) => slot.projection));
    const missing = allProjections.map((projection) => projection.name).filter((name) => !live.has(name));
    if (missing.length === 0) return;
    if (!told) logger.warn({ missing }, 'waiting for a node with the projector role to create the read models');
    told = true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The rate limits' Redis; connecting at start makes a wrong REDIS_URL stop the start with its name. */
async function connectRedis(url: string): Promise<Redis> {
  // No offline queue and one retry: while Redis is away a request fails over to no limit at once instead of waiting.
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 1, enableOfflineQueue: false });
  let connected = false;
  let lastError = '';
  redis.on('error', (error: Error) => {
    if (connected && error.message !== lastError) logger.warn({ err: error.message }, 'Redis connection failed; rate limits are off until it is back');
    lastError = error.message;
  });
  redis.on('ready', () => (lastError = ''));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`cannot reach REDIS_URL ${describeUrl(url)}: ${lastError || (error instanceof Error ? error.message : String(error))}`, { cause: error });
  }
  connected = true;
  return redis;
}

async function start(): Promise<void> {
  logger.info({ roles: config.OTOG_ROLES }, 'starting');
  if (config.OTOG_OPS_PORT !== undefined) {
    const ops = await startOpsServer({ host: config.HOST, port: config.OTOG_OPS_PORT, readiness, metrics: metrics.registry });
    cleanups.push({ name: 'the ops server', run: ops.close });
  }
  ensurePrivateDataDir(config.OTOG_DATA_DIR);
  const storage = objectStorageFor(config);
  cleanups.push({ name: 'the object store client', run: async () => storage.close() });
  // Only the api role reads and writes files: other nodes need not reach the bucket. Checked before
  // anything else starts, so a wrong bucket, endpoint or key stops the start with the variable's name.
  if (runs('api')) await storage.check();
  logger.info(storage.where, config.OTOG_S3_BUCKET ? 'files in the S3 bucket' : 'files in the data directory');
  if (config.OTOG_S3_BUCKET && !config.JWT_SECRET) {
    logger.warn('OTOG_S3_BUCKET is set but JWT_SECRET is not: sign-ins and file links signed here work on no other node (each keeps its own secret)');
  }
  let databaseUrl = config.DATABASE_URL;
  if (databaseUrl === undefined) {
    const postgres = await startEmbeddedPostgres({ dataDir: config.OTOG_DATA_DIR, logger, ownsSignals: true });
    cleanups.push({ name: 'the embedded Postgres', run: postgres.stop });
    databaseUrl = postgres.url;
  } else {
    logger.info({ database: describeUrl(databaseUrl) }, 'using DATABASE_URL');
  }

  if (signalled) return;
  // Every node migrates: concurrent starts queue on the migration's advisory lock.
  const migration = await migrate(databaseUrl);
  logger.info({ applied: migration.applied, version: migration.version }, 'database migrated');
  if (signalled) return;

  const platform = await startPlatformRuntime({
    databaseUrl,
    logger,
    roles: config.OTOG_ROLES,
    ...(config.KAFKA_BROKERS ? { kafkaBrokers: config.KAFKA_BROKERS } : {}),
    projectionsFromKafka: config.OTOG_PROJECTION_SOURCE === 'kafka',
    kafkaSessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
  });
  cleanups.push({ name: 'the projections', run: platform.stop });
  readiness.addCheck('database', () => platform.pool.query(sql.unsafe`SELECT 1`));
  addRoleGauges(metrics, { pool: platform.pool, store: platform.store, roles: config.OTOG_ROLES, kafka: platform.kafka });
  if (signalled) return;

  // Beside the projections it feeds: ContestEnded is how they learn that a contest's end has passed.
  if (runs('projector')) {
    const contestEnds = startContestEndScheduler({ pool: platform.pool, store: platform.store, logger });
    cleanups.push({ name: 'the contest end scheduler', run: contestEnds.stop });
  }

  // The queue's claim and report routes are the api role's; its background sweeper the judge-queue role's.
  const judging = startJudging({
    runtime: platform,
    objects: storage.objects,
    leaseMs: config.JUDGE_LEASE_SECONDS * 1_000,
    maxAttempts: config.JUDGE_MAX_ATTEMPTS,
    logger,
    sweeper: runs('judge-queue'),
    onClaimed: (waited) => metrics.judgeQueueWait.observe(waited),
  });
  cleanups.push({ name: 'the judge queue', run: judging.stop });

  if (!runs('api')) {
    readiness.markStarted();
    process.stdout.write(`\nOTOG is running: ${config.OTOG_ROLES.join(', ')} (no HTTP server in this process).\nStop with Ctrl-C.\n\n`);
    return;
  }

  if (!runs('projector')) await waitForReadModels(platform.pool);
  if (signalled) return;
  const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL) : undefined;
  if (redis) {
    cleanups.push({ name: 'the Redis connection', run: async () => void (await redis.quit()) });
    readiness.addCheck('redis', () => redis.ping());
  }

  const api: ApiDependencies = {
    pool: platform.pool,
    store: platform.store,
    projections: platform.projections,
    objects: judging.deps.objects,
    logger,
    settings: apiSettingsFrom(config),
    sessions: createSessionGuard({ pool: platform.pool, listener: platform.listener }),
    presence: redis ? createRedisPresence({ redis }) : createMemoryPresence(),
    ...(redis ? { redis } : {}),
    ...(platform.kafka ? { kafka: platform.kafka } : {}),
  };
  await seedFirstStart(api);
  if (signalled) return;

  const web = {
    distDir: join(repoRoot, 'web/dist'),
    config: { offline: api.settings.offline, submissionMaxBytes: api.settings.submissionMaxBytes, sessionPollSeconds: config.WEB_SESSION_POLL_SECONDS },
  };
  const app = buildApp({ logger, judging: judging.deps, api, web, readiness, httpDuration: metrics.httpDuration });
  cleanups.push({ name: 'the HTTP server', run: () => app.close() });
  await app.ready();
  const realtime = await startRealtime({
    app,
    deps: api,
    notices: platform.notices,
    presence: api.presence!,
    logger,
    corsOrigins: api.settings.corsOrigins,
    ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
  });
  cleanups.push({ name: 'the realtime channel', run: realtime.close });
  metrics.addGauge({ name: 'otog_realtime_sockets', help: 'Realtime (socket.io) connections on this node', read: async () => [{ value: realtime.io.engine.clientsCount }] });
  await app.listen({ port: config.PORT, host: config.HOST });

  if (config.OTOG_LOCAL_JUDGE_SLOTS > 0) {
    const worker = startLocalWorker({
      apiUrl: `http://${localAddressOf(config.HOST)}:${config.PORT}`,
      token: await rotateLocalWorkerToken(platform.pool),
      dataDir: config.OTOG_DATA_DIR,
      slots: config.OTOG_LOCAL_JUDGE_SLOTS,
      path: config.PATH,
      logger,
      ...(config.OTOG_SANDBOX ? { env: { OTOG_SANDBOX: config.OTOG_SANDBOX } } : {}),
    });
    cleanups.push({ name: 'the local judge worker', run: worker.stop });
  }

  readiness.markStarted();
  const host = config.HOST === '0.0.0.0' || config.HOST === '127.0.0.1' || config.HOST === '::' ? 'localhost' : config.HOST;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${config.PORT}`;
  process.stdout.write(`\nOTOG is running at ${base}/\nAPI: ${base}${API_PREFIX}\nStop with Ctrl-C.\n\n`);
}

// Ctrl-C in a terminal signals the whole process group; the embedded Postgres and the local judge worker
// run in sessions of their own, so they stop when we stop them: our own work first, Postgres last.
let starting: Promise<void> = Promise.resolve();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (signalled) {
      process.stderr.write(`otog: ${signal} again, exiting without waiting\n`);
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'stopping');
    // Let a start in progress finish registering what it started, then undo all of it.
    void starting.then(() => shutdown(0));
  });
}

if (config.OTOG_STOP_WITH_STDIN) {
  process.stdin
    .once('close', () => {
      if (signalled) return;
      signalled = true;
      logger.warn('stdin closed (the process that started this one is gone): stopping');
      void starting.then(() => shutdown(0));
    })
    .resume();
}

starting = start().catch((error: unknown) => {
  process.stderr.write(`otog: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  logger.debug({ err: error }, 'start failed');
  return shutdown(1);
});
