/**
 * `npm run cluster -- [--api 2] [--judges 2] [--projectors 2] [--judge-slots 1] [--projections-from kafka] [--port 8080] [--host 127.0.0.1] [--dir data/cluster]`
 *
 * The scaled topology on this machine (see cluster.ts): prints the load balancer's URL, each API node's
 * own URL and where the logs are, and stops everything on Ctrl-C. DATABASE_URL, REDIS_URL and KAFKA_BROKERS
 * use existing services instead of starting local ones; OTOG_SANDBOX=unsafe judges without a sandbox
 * (development only); OTOG_ADMIN_PASSWORD sets the first admin's password on an empty database.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '@otog/platform/log/logger';
import { repoRoot } from '../config.ts';
import { startCluster, type Cluster } from './cluster.ts';

const USAGE = `Usage: npm run cluster -- [--api N] [--judges N] [--projectors N] [--judge-slots N] [--projections-from S] [--port P] [--host H] [--dir D]
  --api          API nodes behind the load balancer (default 2)
  --judges       judge workers (default 2)
  --projectors   projector processes: one active per projection, the rest standbys (default 2)
  --judge-slots  sandbox slots per judge (default 1)
  --projections-from  where the contest projections read events: kafka (default) or log
  --port         the load balancer's port (default 8080; 0 takes a free one)
  --host         the load balancer's address (default 127.0.0.1)
  --dir          data, logs and the embedded Postgres (default <checkout>/data/cluster)`;

function count(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return number;
}

const isSandboxMode = (value: string | undefined): value is 'bwrap' | 'unsafe' | undefined => value === undefined || value === 'bwrap' || value === 'unsafe';

const isProjectionSource = (value: string): value is 'kafka' | 'log' => value === 'kafka' || value === 'log';

function readOptions() {
  const { values } = parseArgs({
    options: {
      api: { type: 'string' },
      judges: { type: 'string' },
      projectors: { type: 'string' },
      'judge-slots': { type: 'string' },
      'projections-from': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      dir: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const sandbox = process.env.OTOG_SANDBOX;
  if (!isSandboxMode(sandbox)) throw new Error(`OTOG_SANDBOX must be bwrap or unsafe, got ${JSON.stringify(sandbox)}`);
  const projectionSource = values['projections-from'] ?? 'kafka';
  if (!isProjectionSource(projectionSource)) throw new Error(`--projections-from must be kafka or log, got ${JSON.stringify(projectionSource)}`);
  const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return {
    apiNodes: count('api', values.api, 2, 1, 16),
    judges: count('judges', values.judges, 2, 0, 64),
    projectors: count('projectors', values.projectors, 2, 1, 8),
    judgeSlots: count('judge-slots', values['judge-slots'], 1, 1, 64),
    port: count('port', values.port, 8080, 0, 65_535),
    host: values.host ?? '127.0.0.1',
    dir: resolve(values.dir ?? resolve(repoRoot, 'data/cluster')),
    sandbox,
    projectionSource,
    env,
  };
}

const logger = createLogger({ name: 'otog-cluster', level: process.env.LOG_LEVEL === 'debug' ? 'debug' : 'info' });
let options: ReturnType<typeof readOptions>;
try {
  options = readOptions();
} catch (error) {
  process.stderr.write(`otog cluster: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
  process.exit(2);
}

let cluster: Cluster | undefined;
let stopping = false;
const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write('\nStopping the cluster (judges drain first)...\n');
  await cluster?.stop();
  process.exit(code);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    void stop(0);
  });
}

try {
  process.stdout.write(`Starting OTOG: ${options.apiNodes} API node(s), ${options.projectors} projector(s), a relay and ${options.judges} judge(s) in ${options.dir}\n`);
  cluster = await startCluster({
    ...options,
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
    kafkaBrokers: process.env.KAFKA_BROKERS,
    adminPassword: process.env.OTOG_ADMIN_PASSWORD,
    logger,
    onProcessEvent: (event) => {
      if (event.kind === 'exited' && !stopping) logger.warn({ process: event.name, code: event.code, signal: event.signal }, 'process exited; restarting it');
    },
  });
  const lines = [`OTOG cluster is running at ${cluster.url}/`];
  for (const process of cluster.processes) {
    const where = [process.url ? `${process.url}/` : '', process.opsUrl ? `metrics: ${process.opsUrl}/metrics` : ''].filter(Boolean).join('  ');
    lines.push(`  ${process.name.padEnd(13)} ${process.role.padEnd(10)} ${where}`);
  }
  if (cluster.admin) lines.push(`First admin: ${cluster.admin.username} / ${cluster.admin.generated ? cluster.admin.password : 'the password in OTOG_ADMIN_PASSWORD'}`);
  lines.push(`Logs: ${options.dir}/logs`, 'Stop with Ctrl-C.');
  process.stdout.write(`\n${lines.join('\n')}\n\n`);
} catch (error) {
  process.stderr.write(`otog cluster: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  await stop(1);
}
