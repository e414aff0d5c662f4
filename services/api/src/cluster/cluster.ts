/**
 * The scaled topology on one machine (`npm run cluster`): Postgres, Redis and a Kafka-protocol broker
 * (each started here unless DATABASE_URL, REDIS_URL or KAFKA_BROKERS name one), then separate processes
 * per role, as a deployment runs them:
 *
 * - `projector-<i>`: OTOG_ROLES=projector,judge-queue. Every projection, the judge-task reactor and the
 *   contest-end scheduler are single-active by their checkpoint locks, so the second one is a standby
 *   that takes over when the first dies. The contest projections read their Kafka topics in one consumer
 *   group: the projectors split the partitions, and a dead one's partitions go to the others.
 * - `relay-1`: OTOG_ROLES=relay, the log to Kafka (restarted by the supervisor when it dies).
 * - `api-<i>`: OTOG_ROLES=api, HTTP and socket.io (across nodes through Redis), behind the load balancer.
 * - `judge-<i>`: judge workers, each with its token, its cgroup, uid range and cache, claiming through the
 *   load balancer as a judge host reaches the API.
 *
 * Every process is restarted after it dies; stop() takes them down in order (judges drain first, while
 * the API still answers them) and then the services.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { otogEventRegistry } from '@otog/schemas/events';
import { createDbPool } from '@otog/platform/db/pool';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { migrate } from '@otog/platform/db/migrate';
import type { Logger } from '@otog/platform/log/logger';
import { repoRoot } from '../config.ts';
import { localSandboxEnv } from '../judging/local-worker.ts';
import { addWorker } from '../judging/worker-tokens.ts';
import { ensurePrivateDataDir } from '../local/data-dir.ts';
import { startEmbeddedPostgres } from '../local/embedded-postgres.ts';
import { freePort } from '../local/free-port.ts';
import { startKafkaMock } from '../local/kafka-mock.ts';
import { startRedisServer } from '../local/redis-server.ts';
import { seedAdmin } from '../seed/seed-admin.ts';
import { startLoadBalancer, type LoadBalancer } from './load-balancer.ts';
import { Supervisor, type ProcessEvent, type ProcessSpec } from './supervisor.ts';

export interface ClusterOptions {
  /** Postgres (when started here), shared files, logs (`<dir>/logs/<process>.log`). */
  dir: string;
  apiNodes: number;
  judges: number;
  projectors: number;
  judgeSlots: number;
  /** The load balancer's address; port 0 takes a free one. */
  host: string;
  port: number;
  /** External services; each one missing is started here. */
  databaseUrl?: string | undefined;
  redisUrl?: string | undefined;
  kafkaBrokers?: string | undefined;
  /**
   * The judge hosts' program (default judge/src/main.ts). It gets the worker's environment (OTOG_API_URL,
   * OTOG_JUDGE_WORKER, OTOG_JUDGE_TOKEN, OTOG_JUDGE_SLOTS, OTOG_JUDGE_OPS_PORT, ...): a simulation runs judges
   * that answer without a sandbox.
   */
  judgeProgram?: string;
  /**
   * Where the contest projections read events: their Kafka topics (default, the design's scaled topology) or
   * the Postgres log (to compare the two).
   */
  projectionSource?: 'log' | 'kafka';
  /** `unsafe` judges without a sandbox (development machines only). */
  sandbox?: 'bwrap' | 'unsafe' | undefined;
  adminUsername?: string;
  adminPassword?: string | undefined;
  /** The environment of every OTOG process (PATH, JUDGE_LEASE_SECONDS, LOG_LEVEL, ...), under the cluster's own variables. */
  env?: Readonly<Record<string, string>>;
  logger: Logger;
  onProcessEvent?: (event: ProcessEvent) => void;
}

export type ProcessRole = 'api' | 'projector' | 'relay' | 'judge';

export interface ClusterProcess {
  readonly name: string;
  readonly role: ProcessRole;
  /** An API node's own base URL (bypassing the balancer). */
  readonly url?: string;
  /** The process's ops port: GET /health, /ready and /metrics. */
  readonly opsUrl?: string;
}

export interface Cluster {
  /** The load balancer, where clients and judges connect. */
  readonly url: string;
  readonly processes: readonly ClusterProcess[];
  readonly databaseUrl: string;
  readonly redisUrl: string;
  readonly kafkaBrokers: string;
  /** Set when this start created the first admin. */
  readonly admin: { username: string; password: string; generated: boolean } | undefined;
  readonly supervisor: Supervisor;
  readonly balancer: LoadBalancer;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 180_000;
/** Set per process by the cluster, whatever the given environment says. */
const PER_PROCESS = new Set(['PORT', 'OTOG_OPS_PORT', 'OTOG_ROLES']);

async function waitUntilReady(cluster: { balancer: LoadBalancer; processes: readonly ClusterProcess[]; dir: string }): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  const pending = async (): Promise<string[]> => {
    const ready = new Set(cluster.balancer.ready());
    const waiting: string[] = [];
    for (const process of cluster.processes) {
      if (process.role === 'api' && !ready.has(process.name)) waiting.push(process.name);
      if (process.opsUrl) {
        const answer = await fetch(`${process.opsUrl}/ready`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
        if (answer?.status !== 200) waiting.push(process.name);
      }
    }
    return waiting;
  };
  for (;;) {
    const waiting = await pending();
    if (waiting.length === 0) return;
    if (Date.now() > deadline) {
      const logs = waiting.map((name) => join(cluster.dir, 'logs', `${name}.log`)).join(', ');
      throw new Error(`not ready after ${READY_TIMEOUT_MS / 1000} s: ${waiting.join(', ')} (see ${logs})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { dir, logger } = options;
  ensurePrivateDataDir(dir);
  const undo: Array<() => Promise<void>> = [];
  const unwind = async () => {
    for (const step of undo.reverse()) await step().catch((error: unknown) => logger.error({ err: error }, 'stopping a cluster part failed'));
  };
  try {
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      // Every process keeps a pool of 20 and a listener: more than the default 100 connections.
      const postgres = await startEmbeddedPostgres({ dataDir: dir, logger, ownsSignals: true, settings: { max_connections: '500' } });
      undo.push(postgres.stop);
      databaseUrl = postgres.url;
    }
    let redisUrl = options.redisUrl;
    if (!redisUrl) {
      mkdirSync(join(dir, 'redis'), { recursive: true });
      const redis = await startRedisServer({ dir: join(dir, 'redis') });
      undo.push(redis.stop);
      redisUrl = redis.url;
    }
    let kafkaBrokers = options.kafkaBrokers;
    // The mock broker allows short group sessions: a dead projector's partitions move within seconds.
    const sessionTimeoutMs = options.env?.KAFKA_SESSION_TIMEOUT_MS ?? (kafkaBrokers ? '10000' : '2500');
    if (!kafkaBrokers) {
      const kafka = await startKafkaMock({ brokers: 3, buildDir: join(dir, 'kafka') });
      undo.push(kafka.stop);
      kafkaBrokers = kafka.bootstrap;
    }
    await migrate(databaseUrl);

    // The first admin and the judges' tokens, before any node starts: printed here, not buried in a node's log.
    const pool = await createDbPool(databaseUrl, { maximumPoolSize: 2 });
    const judgeNames = Array.from({ length: options.judges }, (_, index) => `judge-${index + 1}`);
    const tokens = new Map<string, string>();
    let admin: Cluster['admin'];
    try {
      const seeded = await seedAdmin({ pool, store: createEventStore(pool, otogEventRegistry) }, { username: options.adminUsername ?? 'admin', password: options.adminPassword });
      if (seeded.created) admin = { username: seeded.username, password: seeded.password, generated: seeded.generated };
      for (const name of judgeNames) tokens.set(name, await addWorker(pool, name, { rotate: true }));
    } finally {
      await pool.end();
    }

    const supervisor = new Supervisor(options.onProcessEvent ? { onEvent: options.onProcessEvent } : {});
    undo.push(() => supervisor.stop([judgeNames, processesOf('api'), processesOf('relay')]));
    const node = process.execPath;
    const logFile = (name: string) => join(dir, 'logs', `${name}.log`);
    const common: Record<string, string> = {
      LOG_LEVEL: 'info',
      ...Object.fromEntries(Object.entries(options.env ?? {}).filter(([name]) => !PER_PROCESS.has(name))),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      KAFKA_BROKERS: kafkaBrokers,
      OTOG_PROJECTION_SOURCE: options.projectionSource ?? 'kafka',
      KAFKA_SESSION_TIMEOUT_MS: sessionTimeoutMs,
      OTOG_DATA_DIR: dir,
      HOST: '127.0.0.1',
      TRUST_PROXY: 'loopback',
      OTOG_LOCAL_JUDGE_SLOTS: '0',
      OTOG_STOP_WITH_STDIN: '1',
      // Shared by the API nodes: a token signed by one is accepted by every other.
      JWT_SECRET: options.env?.JWT_SECRET ?? randomBytes(32).toString('hex'),
    };
    const processes: ClusterProcess[] = [];
    function processesOf(role: ProcessRole): string[] {
      return processes.filter((process) => process.role === role).map((process) => process.name);
    }
    const startOtog = async (name: string, role: Exclude<ProcessRole, 'judge'>, env: Record<string, string>) => {
      const opsPort = await freePort();
      const port = role === 'api' ? await freePort() : undefined;
      const spec: ProcessSpec = {
        name,
        command: node,
        args: [join(repoRoot, 'services/api/src/main.ts')],
        env: { ...common, ...env, ...(port ? { PORT: String(port) } : {}), OTOG_OPS_PORT: String(opsPort) },
        logFile: logFile(name),
      };
      supervisor.start(spec);
      processes.push({ name, role, ...(port ? { url: `http://127.0.0.1:${port}` } : {}), opsUrl: `http://127.0.0.1:${opsPort}` });
    };

    for (let index = 1; index <= options.projectors; index += 1) await startOtog(`projector-${index}`, 'projector', { OTOG_ROLES: 'projector,judge-queue' });
    await startOtog('relay-1', 'relay', { OTOG_ROLES: 'relay' });
    for (let index = 1; index <= options.apiNodes; index += 1) await startOtog(`api-${index}`, 'api', { OTOG_ROLES: 'api' });

    const apiNodes = processes.filter((process) => process.role === 'api');
    const balancer = await startLoadBalancer({
      host: options.host,
      port: options.port,
      backends: apiNodes.map((api) => ({ name: api.name, url: api.url! })),
      onChange: (name, ready) => logger.info({ node: name, ready }, ready ? 'API node is ready' : 'API node is not ready'),
    });
    // After the API nodes, before the services: stop() runs these in reverse.
    undo.splice(undo.length - 1, 0, () => balancer.close());

    const firstUid = Number(localSandboxEnv(dir).OTOG_SANDBOX_FIRST_UID);
    for (const [index, name] of judgeNames.entries()) {
      const sandboxEnv = localSandboxEnv(join(dir, 'judges', name), options.sandbox);
      const opsPort = await freePort();
      supervisor.start({
        name,
        command: node,
        args: [options.judgeProgram ?? join(repoRoot, 'judge/src/main.ts')],
        env: {
          PATH: common.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
          ...sandboxEnv,
          // One uid range per judge (64 slots each), apart from every other judge of this cluster.
          OTOG_SANDBOX_FIRST_UID: String(firstUid + index * 64),
          ...(options.sandbox ? { OTOG_SANDBOX: options.sandbox } : {}),
          OTOG_API_URL: balancer.url,
          OTOG_JUDGE_WORKER: name,
          OTOG_JUDGE_TOKEN: tokens.get(name)!,
          OTOG_JUDGE_SLOTS: String(options.judgeSlots),
          OTOG_JUDGE_STOP_WITH_STDIN: '1',
          OTOG_JUDGE_OPS_PORT: String(opsPort),
        },
        logFile: logFile(name),
        // As on a judge host: the sandbox uids read its cache and box directories, made assuming umask 022.
        umask: 0o022,
      });
      processes.push({ name, role: 'judge', opsUrl: `http://127.0.0.1:${opsPort}` });
    }

    await waitUntilReady({ balancer, processes, dir });
    return {
      url: balancer.url,
      processes,
      databaseUrl,
      redisUrl,
      kafkaBrokers,
      admin,
      supervisor,
      balancer,
      stop: unwind,
    };
  } catch (error) {
    await unwind();
    throw error;
  }
}
