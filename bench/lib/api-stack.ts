/**
 * The public API for the API bench, composed like tests/api/support/stack.ts (and services/api/src/main.ts):
 * a fresh migrated database on the bench cluster, the platform runtime (every projection and the judge-task
 * reactor on the Postgres log), a local object store and the Fastify app with the public API, listening on
 * a loopback port. No judge worker: submissions stay `waiting` (this measures the API, not the judge).
 * Seeding goes straight to the command side, not through HTTP: accounts with createAccount, problems and
 * submissions as events appended in large transactions, then the projections fold them.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp, type App } from '@otog/api/app';
import type { WebAppOptions } from '@otog/api/http/web-app';
import type { AuthUser } from '@otog/api/http/access';
import { createSessionGuard } from '@otog/api/modules/auth/session-guard';
import { openSession } from '@otog/api/modules/auth/session';
import { DEFAULT_API_SETTINGS, type ApiDependencies, type ApiSettings } from '@otog/api/http/settings';
import { createAccount } from '@otog/api/modules/users/accounts';
import { startPlatformRuntime, type PlatformRuntime } from '@otog/api/platform-runtime';
import { allProjections } from '@otog/projections';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { Position } from '@otog/platform/eventstore/position';
import { createLogger } from '@otog/platform/log/logger';
import { createLocalObjectStore } from '@otog/platform/storage/local-object-store';
import { createBenchDatabase, onCleanup, type BenchDatabase } from './services.ts';
import { now, progressPrinter } from './stats.ts';

export interface BenchUser extends AuthUser {
  readonly token: string;
}

/** Warnings and errors the API logged during the bench, by message (a 500 or a read-your-writes timeout shows here). */
export interface LogTally {
  readonly counts: Map<string, number>;
  readonly examples: string[];
}

/** Cumulative counters, to diff around a measurement. */
export interface Usage {
  /** CPU of this process (the API, its projections and reactor), ms. */
  readonly apiCpuMs: number;
  /** CPU of the Postgres cluster's processes by pid, ms; null when they cannot be seen (a remote DATABASE_URL). */
  readonly postgresCpuMs: ReadonlyMap<number, number> | null;
  /** Transactions committed or rolled back in the bench database (pg_stat_database; flushed about once a second). */
  readonly transactions: number;
}

export interface BenchApiStack {
  readonly url: string;
  readonly app: App;
  readonly runtime: PlatformRuntime;
  readonly db: BenchDatabase;
  readonly settings: ApiSettings;
  readonly log: LogTally;
  createUsers(count: number, role: 'user' | 'admin', prefix: string): Promise<BenchUser[]>;
  /** Problems (details, judging limits, shown), `perTransaction` streams per transaction; returns their ids. */
  seedProblems(count: number, admin: BenchUser, options: SeedOptions): Promise<number[]>;
  /** Submissions by `users` on `problemIds`; every other one judged (accept or reject); returns their ids. */
  seedSubmissions(count: number, users: readonly BenchUser[], problemIds: readonly number[], options: SeedOptions): Promise<number[]>;
  /** Waits until every projection and the judge-task reactor have folded the whole log. */
  waitForCatchUp(timeoutMs: number): Promise<void>;
  usage(): Promise<Usage>;
  stop(): Promise<void>;
}

export interface SeedOptions {
  readonly perTransaction: number;
  readonly writers: number;
}

/** A small C++ source (a+b): what the POST bench uploads and the seeded submissions hold. */
export const CPP_SOURCE = '#include <cstdio>\nint main() {\n  long long a, b;\n  if (scanf("%lld %lld", &a, &b) != 2) return 1;\n  printf("%lld\\n", a + b);\n  return 0;\n}\n';

/** multipart/form-data by hand, text fields first (the body is ASCII, so it travels to the load generator as a string). */
export function multipartForm(
  fields: Readonly<Record<string, string>>,
  files: Readonly<Record<string, { filename: string; content: string; contentType: string }>>,
): { body: string; contentType: string } {
  const boundary = '----otogbench7d1f3c0a9b';
  let body = '';
  for (const [name, value] of Object.entries(fields)) {
    body += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  for (const [name, file] of Object.entries(files)) {
    body += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n${file.content}\r\n`;
  }
  body += `--${boundary}--\r\n`;
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

function tallyStream(tally: LogTally): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        let message = line;
        try {
          const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } | string };
          message = entry.msg ?? line;
          const detail = typeof entry.err === 'string' ? entry.err : entry.err?.message;
          if (tally.examples.length < 5) tally.examples.push(detail ? `${message}: ${detail}` : message);
        } catch {
          // not JSON: count the raw line
        }
        tally.counts.set(message, (tally.counts.get(message) ?? 0) + 1);
      }
      done();
    },
  });
}

const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process in ms, and its parent pid, from /proc (null when it is gone). */
export function processStat(pid: number): { ppid: number; cpuMs: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state ppid ... utime(14) stime(15).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

/** CPU of the postmaster and each of its children (backends, walwriter, autovacuum, ...), ms by pid. */
export function clusterCpuMs(postmaster: number): Map<number, number> {
  const byPid = new Map<number, number>();
  const own = processStat(postmaster);
  if (own) byPid.set(postmaster, own.cpuMs);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry));
    if (stat?.ppid === postmaster) byPid.set(Number(entry), stat.cpuMs);
  }
  return byPid;
}

/**
 * CPU between two usages: per process, so a backend that started meanwhile counts whole and one that
 * exited is left out (its last moments are lost, not subtracted).
 */
export function postgresCpuBetween(before: Usage, after: Usage): number | null {
  if (!before.postgresCpuMs || !after.postgresCpuMs) return null;
  let total = 0;
  for (const [pid, cpu] of after.postgresCpuMs) total += cpu - (before.postgresCpuMs.get(pid) ?? 0);
  return total;
}

/** `count` fresh values of a sequence, in order. */
async function nextIds(pool: DatabasePool, sequence: 'problem_ids' | 'submission_ids', count: number): Promise<number[]> {
  const rows = await pool.anyFirst(sql.unsafe`SELECT nextval(${sequence}::regclass)::int FROM generate_series(1, ${count})`);
  return rows.map(Number);
}

export async function startBenchApiStack(adminUrl: string, options: { web?: WebAppOptions } = {}): Promise<BenchApiStack> {
  const db = await createBenchDatabase(adminUrl, 'api', 8);
  const log: LogTally = { counts: new Map(), examples: [] };
  const logger = createLogger({ name: 'otog-bench-api', level: 'warn', destination: tallyStream(log) });
  const runtime = await startPlatformRuntime({ databaseUrl: db.url, logger });
  const stopRuntime = onCleanup('platform runtime', () => runtime.stop());
  const dir = mkdtempSync(join(tmpdir(), 'otog-bench-api-'));
  const removeDir = onCleanup('API object store', () => rmSync(dir, { recursive: true, force: true }));
  const objects = createLocalObjectStore(join(dir, 'objects'));
  const settings: ApiSettings = {
    ...DEFAULT_API_SETTINGS,
    jwtSecret: `bench-${Math.random().toString(36).slice(2)}-secret-0123456789abcdef`,
    // Set high so the API's throughput is measured, not the per-user submit limit (30/min by default):
    // the limiter still runs on every POST, it just never says 429.
    rateLimits: Object.fromEntries(
      Object.keys(DEFAULT_API_SETTINGS.rateLimits).map((name) => [name, { max: 1_000_000_000, windowMs: 60_000 }]),
    ) as ApiSettings['rateLimits'],
  };
  const sessions = createSessionGuard({ pool: runtime.pool, listener: runtime.listener });
  const deps: ApiDependencies = { pool: runtime.pool, store: runtime.store, projections: runtime.projections, objects, logger, settings, sessions };
  const app = buildApp({ logger, api: deps, ...(options.web ? { web: options.web } : {}) });
  const closeApp = onCleanup('API server', () => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const store = runtime.store;
  const backend = Number(await db.pool.oneFirst(sql.unsafe`SELECT pg_backend_pid()`));
  // The cluster is local when this backend's process is visible here.
  const postmaster = processStat(backend)?.ppid ?? null;

  /** Appends `streams` (one append each, a new stream each) in transactions of `perTransaction`, `writers` at a time. */
  async function appendStreams(label: string, streams: ReadonlyArray<{ id: string; events: NewEvent[] }>, options: SeedOptions): Promise<void> {
    const progress = progressPrinter(label, streams.length, 5_000);
    let next = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: options.writers }, async () => {
        for (;;) {
          const first = next;
          if (first >= streams.length) return;
          next = Math.min(streams.length, first + options.perTransaction);
          const chunk = streams.slice(first, next);
          await db.pool.transaction(async (tx) => {
            for (const stream of chunk) await store.appendInTransaction(tx, stream.id, stream.events, { expectedVersion: 'none' });
          });
          done += chunk.length;
          progress.update(done);
        }
      }),
    );
    progress.update(done, true);
  }

  return {
    url,
    app,
    runtime,
    db,
    settings,
    log,
    async createUsers(count, role, prefix) {
      const users: BenchUser[] = [];
      // argon2 hashing (about 50 ms each) dominates: two at a time for the two cores.
      for (let i = 0; i < count; i += 2) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(2, count - i) }, (_, j) =>
            createAccount(deps, { username: `${prefix}${i + j + 1}`, showName: `Bench ${prefix}${i + j + 1}`, password: `password-${prefix}-${i + j}`, role }),
          ),
        );
        for (const account of batch) {
          const user: AuthUser = { id: account.id, username: account.username, showName: account.showName, role: account.role, rating: account.rating };
          // Valid for the whole bench, whatever its length.
          const session = await openSession(app, db.pool, { accessTokenTtlSeconds: 24 * 60 * 60, refreshTokenTtlSeconds: 24 * 60 * 60 }, user);
          users.push({ ...user, token: session.accessToken });
        }
      }
      return users;
    },
    async seedProblems(count, admin, options) {
      const ids = await nextIds(db.pool, 'problem_ids', count);
      const start = Date.now() - count * 60_000;
      const streams = ids.map((problemId, i) => {
        const scope = `problem:${problemId}`;
        const at = new Date(start + i * 60_000).toISOString();
        const meta = { actor: admin.id };
        return {
          id: `problem-${problemId}`,
          events: [
            { type: 'ProblemDetailsSet', scope, occurredAt: at, meta, data: { problemId, name: `Bench problem ${problemId}`, sname: `bench${problemId}`, case: '10' } },
            { type: 'ProblemJudgingConfigured', scope, occurredAt: at, meta, data: { problemId, score: 100, timeLimit: 1_000, memoryLimit: 256 } },
            { type: 'ProblemVisibilityChanged', scope, occurredAt: at, meta, data: { problemId, show: true } },
          ],
        };
      });
      await appendStreams('problems', streams, options);
      return ids;
    },
    async seedSubmissions(count, users, problemIds, options) {
      const ids = await nextIds(db.pool, 'submission_ids', count);
      const start = Date.now() - count * 10_000;
      // A fixed-seed LCG: the same problems for the same submissions on every run.
      let seed = 12_345;
      const random = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed % n;
      };
      const streams = ids.map((submissionId, i) => {
        const user = users[i % users.length]!;
        const problemId = problemIds[random(problemIds.length)]!;
        const scope = `user:${user.id}`;
        const created = new Date(start + i * 10_000);
        const events: NewEvent[] = [
          {
            type: 'SubmissionCreated',
            scope,
            occurredAt: created.toISOString(),
            meta: { actor: user.id },
            data: { submissionId, userId: user.id, problemId, contestId: null, language: 'cpp', sourceCode: CPP_SOURCE, fileName: 'main.cpp' },
          },
        ];
        if (i % 2 === 0) {
          const accepted = i % 4 === 0;
          const verdicts = Array.from({ length: 10 }, (_, k) => ({
            testcaseIndex: k + 1,
            status: accepted || k < 7 ? ('ACCEPTED' as const) : ('REJECTED' as const),
            percent: accepted || k < 7 ? 1 : 0,
            timeUsed: 3 + k,
            memUsed: 3_200,
          }));
          events.push({
            type: 'SubmissionJudged',
            scope,
            occurredAt: new Date(created.getTime() + 2_000).toISOString(),
            data: {
              submissionId,
              judging: 1,
              status: accepted ? 'accept' : 'reject',
              result: accepted ? 'PPPPPPPPPP' : 'PPPPPPP---',
              score: accepted ? 100 : 70,
              timeUsed: 12,
              memUsed: 3_200,
              errmsg: null,
              subtaskResults: [{ subtaskIndex: 1, score: accepted ? 10 : 7, fullScore: 10, verdicts }],
              judgedBy: 'bench',
              attempts: 1,
            },
          });
        }
        return { id: `submission-${submissionId}`, events };
      });
      await appendStreams('submissions', streams, options);
      return ids;
    },
    async waitForCatchUp(timeoutMs) {
      const head: Position = await store.headPosition();
      // A scope each projection folds: a projection declaring scopes does not wait for events of other ones.
      const at = (projection: (typeof allProjections)[number]) => ({ ...head, scope: `${projection.scopes ? [...projection.scopes][0]! : 'user'}:1` });
      const started = now();
      await Promise.all([
        ...allProjections.map((projection) => runtime.projections.waitFor(projection.name, at(projection), timeoutMs)),
        runtime.judgeTasks!.waitFor({ ...head, scope: 'user:1' }, timeoutMs),
      ]);
      process.stdout.write(`  api: projections and the judge-task reactor caught up in ${((now() - started) / 1000).toFixed(1)} s\n`);
    },
    async usage() {
      const cpu = process.cpuUsage();
      const transactions = Number(
        await db.pool.oneFirst(sql.unsafe`SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()`),
      );
      return { apiCpuMs: (cpu.user + cpu.system) / 1000, postgresCpuMs: postmaster === null ? null : clusterCpuMs(postmaster), transactions };
    },
    async stop() {
      await closeApp();
      await stopRuntime();
      await db.drop();
      await removeDir();
    },
  };
}
