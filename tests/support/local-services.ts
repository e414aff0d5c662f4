/**
 * Starts the real services the test suites need when the environment does not provide them:
 * a throwaway Postgres cluster (Debian's server), a Redis server and librdkafka's mock Kafka cluster.
 * Everything lives in one temp directory and is stopped by the returned handle.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../services/api/src/local/free-port.ts';
import { startKafkaMock, type KafkaMock } from '../../services/api/src/local/kafka-mock.ts';
import { startRedisServer } from '../../services/api/src/local/redis-server.ts';

export { freePort };

function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) throw new Error('Debian postgresql is not installed (apt-get install postgresql)');
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error(`no PostgreSQL server found under ${root}`);
  return join(root, versions[0], 'bin');
}

const isRoot = process.getuid?.() === 0;

/** Postgres refuses to run as root: run its tools as the `postgres` user when we are root. */
function runPgTool(tool: string, args: string[]): void {
  const bin = join(postgresBinDir(), tool);
  if (isRoot) execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], { stdio: 'pipe' });
  else execFileSync(bin, args, { stdio: 'pipe' });
}

export interface StartedServices {
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startLocalServices(want: { postgres: boolean; redis: boolean; kafka: boolean }): Promise<StartedServices> {
  const dir = mkdtempSync(join(tmpdir(), 'otog-test-'));
  const env: Record<string, string> = {};
  const stops: Array<() => Promise<void> | void> = [];
  const stop = async () => {
    for (const fn of stops.reverse()) {
      try {
        await fn();
      } catch (error) {
        process.stderr.write(`stopping a test service failed: ${String(error)}\n`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (want.postgres) {
      const pgDir = join(dir, 'pg');
      mkdirSync(pgDir);
      if (isRoot) {
        const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
        const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
        chownSync(dir, uid, gid);
        chownSync(pgDir, uid, gid);
      }
      const port = await freePort();
      runPgTool('initdb', ['-D', join(pgDir, 'data'), '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
      const options = [
        `-p ${port}`,
        '-c listen_addresses=127.0.0.1',
        `-k ${pgDir}`,
        '-c fsync=off',
        '-c synchronous_commit=off',
        '-c full_page_writes=off',
        '-c max_connections=300',
      ].join(' ');
      runPgTool('pg_ctl', ['-D', join(pgDir, 'data'), '-l', join(pgDir, 'log'), '-w', '-t', '30', '-o', options, 'start']);
      stops.push(() => runPgTool('pg_ctl', ['-D', join(pgDir, 'data'), '-m', 'immediate', '-w', 'stop']));
      env.DATABASE_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
    }
    if (want.redis) {
      const redis = await startRedisServer({ dir });
      stops.push(() => redis.stop());
      env.REDIS_URL = redis.url;
    }
    if (want.kafka) {
      const mock: KafkaMock = await startKafkaMock({ brokers: 3, buildDir: join(dir, 'kafka') });
      stops.push(() => mock.stop());
      env.KAFKA_BROKERS = mock.bootstrap;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { env, stop };
}
