/**
 * `node bench/submissions-fold.ts [--submissions N] [--runs R] [--profile] [--keep]`
 *
 * The submissions projection's fold on its own: a log of N submissions (default 5,000; each
 * SubmissionCreated, one TestcaseJudged and a SubmissionJudged: a quarter accepted, a quarter rejected,
 * a quarter compile errors, a quarter accepted again after a rejudge) from 50 registered users over 1,000
 * problems is appended once; then a fresh slot of `submissionsProjection` is folded from the start of the
 * log to its head through the Postgres-log transport (runner defaults, batch 500), R times (default 3),
 * each on a new slot. `--profile` adds the wall time per statement shape (through a timing interceptor);
 * `--keep` leaves the database in place (with DATABASE_URL set, for EXPLAIN on the folded tables).
 *
 * Standalone (not part of `npm run bench`): for comparing the fold of two versions of the projection on
 * the same log; the script only uses what both have (the projection, the event store, the bench fixtures).
 * Starts its own Postgres (fsync off) unless DATABASE_URL is set.
 */
import { parseArgs } from 'node:util';
import { createNotificationListener } from '@otog/platform/db/listen';
import { sql } from '@otog/platform/db/pool';
import { createEventStore, type NewEvent } from '@otog/platform/eventstore/event-store';
import { ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import type { ProjectionDefinition } from '@otog/platform/runner/projection';
import { otogEventRegistry } from '@otog/schemas/events';
import { submissionsProjection } from '@otog/projections';
import { clusterCpuMs, processStat } from './lib/api-stack.ts';
import { createProfilingPool, foldToHead } from './lib/fixtures.ts';
import { cleanupAll, createBenchDatabase, startBenchServices } from './lib/services.ts';
import { int, seconds } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    submissions: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '3' },
    profile: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const SUBMISSIONS = Number(values.submissions);
const RUNS = Number(values.runs);
const USERS = 50;
const PROBLEMS = 1_000;

type Verdict = 'accept' | 'reject' | 'compileError';

const judged = (submissionId: number, judging: number, scope: string, status: Verdict): NewEvent => ({
  type: 'SubmissionJudged',
  scope,
  data: {
    submissionId,
    judging,
    status,
    result: status === 'accept' ? 'PP' : status === 'reject' ? 'P-' : 'Compilation Error',
    score: status === 'accept' ? 100 : status === 'reject' ? 50 : 0,
    timeUsed: 6,
    memUsed: 1_024,
    errmsg: status === 'compileError' ? 'a.cpp:1: error' : null,
    subtaskResults: [],
    judgedBy: 'bench',
    attempts: 1,
  },
});

/** One stream per submission (and per user), in the order a judge would produce them. */
function streams(): Array<{ id: string; events: NewEvent[] }> {
  let seed = 12_345;
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: `user-${i + 1}`,
    events: [{ type: 'UserRegistered', scope: `user:${i + 1}`, data: { userId: i + 1, username: `u${i + 1}`, showName: `U ${i + 1}`, role: 'user' } }],
  }));
  const submissions = Array.from({ length: SUBMISSIONS }, (_, i) => {
    const submissionId = i + 1;
    const userId = (i % USERS) + 1;
    const scope = `user:${userId}`;
    const events: NewEvent[] = [
      {
        type: 'SubmissionCreated',
        scope,
        data: { submissionId, userId, problemId: random(PROBLEMS) + 1, contestId: null, language: 'cpp', sourceCode: 'int main() {}\n', fileName: 'a.cpp' },
      },
      { type: 'TestcaseJudged', scope, data: { submissionId, judging: 1, testNumber: 1, outcome: { status: 'ACCEPTED', timeUsed: 3, memUsed: 1_024 } } },
    ];
    const kind = i % 4;
    if (kind === 3) {
      // The rejudge is the stream's 4th event: the judging its verdict belongs to.
      events.push(judged(submissionId, 1, scope, 'reject'), { type: 'RejudgeRequested', scope, data: { submissionId, requestedBy: 1 } });
      events.push(judged(submissionId, 4, scope, 'accept'));
    } else {
      events.push(judged(submissionId, 1, scope, kind === 0 ? 'accept' : kind === 1 ? 'reject' : 'compileError'));
    }
    return { id: `submission-${submissionId}`, events };
  });
  return [...users, ...submissions];
}

async function main(): Promise<void> {
  if (values.keep && !process.env.DATABASE_URL) throw new Error('--keep needs DATABASE_URL (a Postgres that outlives the script)');
  const services = await startBenchServices({ kafka: false });
  const db = await createBenchDatabase(services.adminUrl, 'submissions_fold');
  const listener = createNotificationListener(db.url);
  try {
    const store = createEventStore(db.pool, otogEventRegistry);
    const all = streams();
    for (let first = 0; first < all.length; first += 500) {
      await db.pool.transaction(async (tx) => {
        for (const stream of all.slice(first, first + 500)) await store.appendInTransaction(tx, stream.id, stream.events, { expectedVersion: 'none' });
      });
    }
    await db.pool.query(sql.unsafe`VACUUM ANALYZE event_log`);
    const head = await store.headPosition();
    const definition: ProjectionDefinition = submissionsProjection;
    const expected = all.flatMap((s) => s.events).filter((e) => definition.handles.has(e.type)).length;
    process.stdout.write(`submissions fold: ${int(expected)} events of the projection's types (${int(SUBMISSIONS)} submissions), projection v${definition.version}\n`);

    const profiling = values.profile ? await createProfilingPool(db.url) : null;
    const pool = profiling?.pool ?? db.pool;
    for (let run = 1; run <= RUNS; run += 1) {
      // A fresh slot each run (new, empty tables, as in a rebuild): the same fold under another name.
      const named: ProjectionDefinition = { ...definition, name: `${definition.name}_run${run}` };
      const [version] = await ensureCodeSlot(pool, named);
      profiling?.profile.clear();
      // CPU as well as wall time: on a shared machine the wall time of the same work varies far more.
      const postmaster = processStat(Number(await db.pool.oneFirst(sql.unsafe`SELECT pg_backend_pid()`)))?.ppid ?? null;
      const cpuBefore = { node: process.cpuUsage(), postgres: postmaster === null ? null : clusterCpuMs(postmaster) };
      const result = await foldToHead({ pool, store, listener, definition: named, version: version!, head, expected });
      const nodeCpuMs = (() => {
        const used = process.cpuUsage(cpuBefore.node);
        return (used.user + used.system) / 1000;
      })();
      let postgresCpuMs: number | null = null;
      if (postmaster !== null && cpuBefore.postgres) {
        postgresCpuMs = 0;
        for (const [pid, cpu] of clusterCpuMs(postmaster)) postgresCpuMs += cpu - (cpuBefore.postgres.get(pid) ?? 0);
      }
      process.stdout.write(
        `run ${run}: ${seconds(result.elapsedMs)} s, ${int(result.eventsPerSecond)} events/s, ${int(result.batches)} batches, ` +
          `${((100 * result.handlerMs) / result.elapsedMs).toFixed(0)} % in apply; CPU: node ${seconds(nodeCpuMs)} s, ` +
          `Postgres ${postgresCpuMs === null ? '?' : seconds(postgresCpuMs)} s\n`,
      );
      if (profiling) {
        for (const p of [...profiling.profile.values()].sort((a, b) => b.totalMs - a.totalMs)) {
          process.stdout.write(`  ${int(p.totalMs).padStart(7)} ms ${int(p.calls).padStart(7)}×  ${p.label}\n`);
        }
      }
    }
    await profiling?.pool.end();
  } finally {
    await listener.close();
    if (values.keep) {
      await db.pool.end();
      process.stdout.write(`kept ${db.url}\n`);
    } else {
      await db.drop();
      await cleanupAll();
    }
  }
}

await main();
