/**
 * The real API for the worker throughput bench, composed like services/api/src/main.ts (and like the
 * judging test harness, tests/judging/harness.ts): a fresh migrated database on the bench cluster, the
 * platform runtime (projections, the judge-task reactor on the Postgres log), startJudging (the leased
 * queue, its sweeper and the local object store) and the Fastify app with the internal judge routes,
 * listening on a loopback port. Problems are seeded as events with their zip in the object store;
 * submissions are appended as SubmissionCreated events.
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from '@otog/api/app';
import { startJudging } from '@otog/api/judging/start-judging';
import { objectsDirOf } from '@otog/api/object-storage';
import { createLocalObjectStore } from '@otog/platform/storage/local-object-store';
import { addWorker } from '@otog/api/judging/worker-tokens';
import { startPlatformRuntime, type PlatformRuntime } from '@otog/api/platform-runtime';
import { sql } from '@otog/platform/db/pool';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { createLogger } from '@otog/platform/log/logger';
import { createBenchDatabase, onCleanup } from './services.ts';

export interface BenchJudgeApi {
  readonly url: string;
  readonly runtime: PlatformRuntime;
  addWorker(name: string): Promise<string>;
  /** ProblemJudgingConfigured + ProblemTestdataUploaded, the zip in the object store; waits for judge_problems. */
  seedProblem(problemId: number, zip: Uint8Array, options: { timeLimit: number; memoryLimit: number; score: number; testCount: number }): Promise<void>;
  /** Appends SubmissionCreated (does not wait for the reactor). */
  submit(submissionId: number, submission: { problemId: number; language: 'c' | 'cpp' | 'python'; sourceCode: string; fileName: string }): Promise<void>;
  /** SubmissionJudged events in the log. */
  judgedCount(): Promise<number>;
  /** From the first SubmissionCreated to the last SubmissionJudged, by the events' recorded_at (ms). */
  firstCreatedToLastJudgedMs(): Promise<number>;
  /** Appends (transactions) that wrote TestcaseJudged events: one per report the worker sent. */
  testcaseReportCount(): Promise<number>;
  events(submissionId: number): Promise<StoredEvent[]>;
  stop(): Promise<void>;
}

export async function startBenchJudgeApi(adminUrl: string, dataDir: string): Promise<BenchJudgeApi> {
  const db = await createBenchDatabase(adminUrl, 'judging', 4);
  const logger = createLogger({ name: 'otog-bench', level: 'silent' });
  const runtime = await startPlatformRuntime({ databaseUrl: db.url, logger });
  const stopRuntime = onCleanup('platform runtime', () => runtime.stop());
  const judging = startJudging({ runtime, objects: createLocalObjectStore(objectsDirOf(dataDir)), leaseMs: 60_000, maxAttempts: 3, logger });
  const stopJudging = onCleanup('judge queue', () => judging.stop());
  const app = buildApp({ logger, judging: judging.deps });
  const closeApp = onCleanup('API server', () => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    addWorker: (name) => addWorker(runtime.pool, name, { rotate: true }),
    async seedProblem(problemId, zip, seed) {
      const hash = await judging.deps.objects.put(zip);
      const scope = `problem:${problemId}`;
      const appended = await runtime.store.append(`problem-${problemId}`, [
        { type: 'ProblemJudgingConfigured', scope, data: { problemId, score: seed.score, timeLimit: seed.timeLimit, memoryLimit: seed.memoryLimit } },
        { type: 'ProblemTestdataUploaded', scope, data: { problemId, testdataHash: hash, case: String(seed.testCount) } },
      ]);
      await runtime.projections.waitFor('judge_problems', { ...appended.lastPosition, scope }, 30_000);
    },
    async submit(submissionId, submission) {
      const userId = 7;
      await runtime.store.append(
        `submission-${submissionId}`,
        [
          {
            type: 'SubmissionCreated',
            scope: `user:${userId}`,
            data: { submissionId, userId, problemId: submission.problemId, contestId: null, language: submission.language, sourceCode: submission.sourceCode, fileName: submission.fileName },
          },
        ],
        { expectedVersion: 'none' },
      );
    },
    async judgedCount() {
      return Number(await db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM event_log WHERE type = 'SubmissionJudged'`));
    },
    async firstCreatedToLastJudgedMs() {
      return Number(
        await db.pool.oneFirst(sql.unsafe`
          SELECT extract(epoch FROM (SELECT max(recorded_at) FROM event_log WHERE type = 'SubmissionJudged')
                                  - (SELECT min(recorded_at) FROM event_log WHERE type = 'SubmissionCreated')) * 1000`),
      );
    },
    async testcaseReportCount() {
      return Number(await db.pool.oneFirst(sql.unsafe`SELECT count(DISTINCT txid)::int FROM event_log WHERE type = 'TestcaseJudged'`));
    },
    events: (submissionId) => runtime.store.readStream(`submission-${submissionId}`),
    async stop() {
      // Stop the server side only after the worker has stopped. A claim long-poll that was still open when the
      // worker stopped leaves a keep-alive connection that app.close() would wait out (Fastify's
      // keepAliveTimeout, 72 s): close the connections at once.
      const closing = closeApp();
      app.server.closeAllConnections();
      await closing;
      await stopJudging();
      await stopRuntime();
      await db.drop();
    },
  };
}
