/**
 * Services for the benchmarks. Postgres (fsync off, like the test cluster) and the Kafka mock come from
 * tests/support/local-services.ts when DATABASE_URL / KAFKA_BROKERS are not set. A second, durable cluster
 * (fsync=on, synchronous_commit=on: Postgres defaults) is started here for the durable append figures.
 * Everything started is registered in `cleanup` so it is stopped on success, error and SIGINT/SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDbPool, type DatabasePool } from '@otog/platform/db/pool';
import { migrate } from '@otog/platform/db/migrate';
import { freePort, startLocalServices } from '../../tests/support/local-services.ts';

type Stop = () => Promise<void> | void;
const stops: Array<{ label: string; stop: Stop }> = [];

/** Registers something to stop; returns a function that stops it now (and unregisters it). */
export function onCleanup(label: string, stop: Stop): () => Promise<void> {
  const entry = { label, stop };
  stops.push(entry);
  return async () => {
    const index = stops.indexOf(entry);
    if (index < 0) return;
    stops.splice(index, 1);
    await entry.stop();
  };
}

let stopping = false;
let cleaning: Promise<void> | undefined;

/** True once cleanupAll has been called (the bench is ending or was interrupted): start nothing new. */
export function benchStopping(): boolean {
  return stopping;
}

/**
 * Stops everything still registered, newest first (also what is registered while it runs); never throws.
 * Concurrent calls share one pass, so a second caller never returns before the first one's stops are done.
 */
export function cleanupAll(): Promise<void> {
  stopping = true;
  cleaning ??= (async () => {
    while (stops.length > 0) {
      const entry = stops.pop()!;
      try {
        await entry.stop();
      } catch (error) {
        process.stderr.write(`bench: stopping ${entry.label} failed: ${String(error)}\n`);
      }
    }
  })().finally(() => {
    cleaning = undefined;
  });
  return cleaning;
}

export interface BenchServices {
  /** A superuser connection string to the fsync=off cluster (used to create one database per benchmark). */
  readonly adminUrl: string;
  readonly kafkaBrokers: string | undefined;
  /** True when the bench started Postgres itself (so its settings are known: see local-services.ts). */
  readonly startedPostgres: boolean;
  readonly startedKafka: boolean;
}

export async function startBenchServices(want: { kafka: boolean }): Promise<BenchServices> {
  const needPostgres = !process.env.DATABASE_URL;
  const needKafka = want.kafka && !process.env.KAFKA_BROKERS;
  let env: Record<string, string> = {};
  if (needPostgres || needKafka) {
    const started = await startLocalServices({ postgres: needPostgres, redis: false, kafka: needKafka });
    onCleanup('local services (Postgres / Kafka mock)', () => started.stop());
    env = started.env;
  }
  return {
    adminUrl: process.env.DATABASE_URL ?? env.DATABASE_URL!,
    kafkaBrokers: process.env.KAFKA_BROKERS ?? env.KAFKA_BROKERS,
    startedPostgres: needPostgres,
    startedKafka: needKafka,
  };
}

function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

const isRoot = process.getuid?.() === 0;

function runPgTool(bin: string, tool: string, args: string[]): void {
  const path = join(bin, tool);
  if (isRoot) execFileSync('runuser', ['-u', 'postgres', '--', path, ...args], { stdio: 'pipe' });
  else execFileSync(path, args, { stdio: 'pipe' });
}

/**
 * A throwaway cluster with Postgres' durable defaults (fsync=on, synchronous_commit=on,
 * full_page_writes=on), same layout as the test cluster. Undefined when Debian's server is not installed.
 */
export async function startDurableCluster(): Promise<{ adminUrl: string; stop: () => Promise<void> } | undefined> {
  const bin = postgresBinDir();
  if (!bin) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'otog-bench-durable-'));
  const pgDir = join(dir, 'pg');
  mkdirSync(pgDir);
  const removeDir = onCleanup('durable cluster directory', () => rmSync(dir, { recursive: true, force: true }));
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chownSync(pgDir, uid, gid);
  }
  const port = await freePort();
  const data = join(pgDir, 'data');
  // initdb without --no-sync: this cluster is about durability.
  runPgTool(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8']);
  const options = [`-p ${port}`, '-c listen_addresses=127.0.0.1', `-k ${pgDir}`, '-c max_connections=100'].join(' ');
  runPgTool(bin, 'pg_ctl', ['-D', data, '-l', join(pgDir, 'log'), '-w', '-t', '30', '-o', options, 'start']);
  const stopServer = onCleanup('durable cluster', () => runPgTool(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']));
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await stopServer();
      await removeDir();
    },
  };
}

async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export interface BenchDatabase {
  readonly url: string;
  readonly pool: DatabasePool;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one benchmark, dropped by `drop()` (or by cleanup on error). */
export async function createBenchDatabase(adminUrl: string, label: string, maximumPoolSize = 12): Promise<BenchDatabase> {
  const name = `otog_bench_${label}_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let pool: DatabasePool | undefined;
  const drop = onCleanup(`database ${name}`, async () => {
    await pool?.end();
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  await migrate(url.toString());
  // Rebuild/projection batches can run long on a loaded machine: no statement timeout surprises.
  pool = await createDbPool(url.toString(), { maximumPoolSize, statementTimeoutMs: 600_000 });
  return { url: url.toString(), pool, drop };
}
