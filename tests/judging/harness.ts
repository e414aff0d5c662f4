/**
 * A real API process for the judging suites: a test database, the platform runtime (projections and the
 * judge-task reactor on the Postgres log), a local object store in a temp dir and the Fastify app with the
 * internal judge routes. Requests go through `app.inject` (the real routing, hooks, validation, serialization).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '@otog/api/app';
import { createJudgeQueue, type JudgeQueue } from '@otog/api/judging/judge-queue';
import { addWorker } from '@otog/api/judging/worker-tokens';
import { startPlatformRuntime, type PlatformRuntime } from '@otog/api/platform-runtime';
import { sql } from '@otog/platform/db/pool';
import type { AppendResult, StoredEvent } from '@otog/platform/eventstore/event-store';
import { createLogger } from '@otog/platform/log/logger';
import { createLocalObjectStore } from '@otog/platform/storage/local-object-store';
import type { ObjectStore } from '@otog/platform/storage/object-store';
import { JUDGE_INTERNAL_PREFIX, type JudgeTask } from '@otog/schemas/api/judge-internal';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';

export interface Harness {
  readonly db: TestDatabase;
  readonly runtime: PlatformRuntime;
  readonly app: App;
  readonly queue: JudgeQueue;
  readonly objects: ObjectStore;
  /** A worker and its token, made through the same code as the CLI. */
  addWorker(name: string): Promise<string>;
  /** Configures a problem (score, limits) and, unless `testdata: false`, uploads a small zip for it. */
  /** `testdata`: false for none, a zip's bytes for that package, else a generated one of `cases` tests. */
  problem(
    problemId: number,
    options?: { testdata?: boolean | Uint8Array; cases?: number; score?: number; timeLimit?: number; memoryLimit?: number },
  ): Promise<{ hash: string | null }>;
  /** Appends events to the problem's stream; the judge's problem read model folds them in its own time. */
  appendProblem(problemId: number, events: Array<{ type: string; data: unknown }>): Promise<AppendResult>;
  /** Resolves once the judge's problem read model has folded the append. */
  problemFolded(problemId: number, appended: AppendResult): Promise<void>;
  submit(
    submissionId: number,
    options?: {
      problemId?: number;
      language?: 'c' | 'cpp' | 'python';
      contestId?: number | null;
      userId?: number;
      sourceCode?: string;
      fileName?: string | null;
    },
  ): Promise<AppendResult>;
  rejudge(submissionId: number): Promise<AppendResult>;
  /** Resolves once the judge-task reactor has applied the append. */
  reacted(appended: AppendResult): Promise<void>;
  post(path: string, token: string | null, body: unknown): Promise<LightMyRequestResponse>;
  claim(token: string, worker: string, options?: { languages?: string[]; capacity?: number; waitMs?: number }): Promise<JudgeTask[]>;
  events(submissionId: number, type?: string): Promise<StoredEvent[]>;
  task(submissionId: number): Promise<Record<string, unknown> | null>;
  /** Ends every task (between tests, so each starts with an empty queue). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export const SOURCE = '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}\n';

export function testdataZip(cases: number): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (let i = 1; i <= cases; i += 1) {
    files[`${i}.in`] = strToU8(`${i} ${i + 1}\n`);
    files[`${i}.sol`] = strToU8(`${2 * i + 1}\n`);
  }
  return zipSync(files);
}

export async function startHarness(options: { leaseMs?: number; maxAttempts?: number } = {}): Promise<Harness> {
  const db = await createTestDatabase({ maximumPoolSize: 4 });
  const logger = createLogger({ name: 'judging-test', level: 'silent' });
  const runtime = await startPlatformRuntime({ databaseUrl: db.url, logger });
  const dir = mkdtempSync(join(tmpdir(), 'otog-objects-'));
  const objects = createLocalObjectStore(dir);
  const queue = createJudgeQueue({ pool: runtime.pool, store: runtime.store, listener: runtime.listener, logger, ...options });
  const app = buildApp({ logger, judging: { pool: runtime.pool, queue, objects } });
  await app.ready();

  const harness: Harness = {
    db,
    runtime,
    app,
    queue,
    objects,
    addWorker: (name) => addWorker(runtime.pool, name, { rotate: true }),
    async problem(problemId, options = {}) {
      const cases = options.cases ?? 3;
      const { timeLimit = 1_000, memoryLimit = 256, score = 100 } = options;
      const events: Array<{ type: string; data: unknown }> = [
        { type: 'ProblemJudgingConfigured', data: { problemId, score, timeLimit, memoryLimit } },
      ];
      let hash: string | null = null;
      if (options.testdata !== false) {
        hash = await objects.put(options.testdata instanceof Uint8Array ? options.testdata : testdataZip(cases));
        events.push({ type: 'ProblemTestdataUploaded', data: { problemId, testdataHash: hash, case: String(cases) } });
      }
      await harness.problemFolded(problemId, await harness.appendProblem(problemId, events));
      return { hash };
    },
    appendProblem: (problemId, events) =>
      runtime.store.append(
        `problem-${problemId}`,
        events.map((e) => ({ ...e, scope: `problem:${problemId}` })),
      ),
    problemFolded: (problemId, appended) =>
      runtime.projections.waitFor('judge_problems', { ...appended.lastPosition, scope: `problem:${problemId}` }),
    async submit(submissionId, options = {}) {
      const userId = options.userId ?? 7;
      const contestId = options.contestId ?? null;
      const appended = await runtime.store.append(
        `submission-${submissionId}`,
        [
          {
            type: 'SubmissionCreated',
            scope: contestId === null ? `user:${userId}` : `contest:${contestId}`,
            data: {
              submissionId,
              userId,
              problemId: options.problemId ?? 1,
              contestId,
              language: options.language ?? 'cpp',
              sourceCode: options.sourceCode ?? SOURCE,
              fileName: options.fileName === undefined ? 'a.cpp' : options.fileName,
            },
          },
        ],
        { expectedVersion: 'none' },
      );
      await harness.reacted(appended);
      return appended;
    },
    async rejudge(submissionId) {
      const [created] = await runtime.store.readStream(`submission-${submissionId}`);
      const appended = await runtime.store.append(`submission-${submissionId}`, [
        { type: 'RejudgeRequested', scope: created!.scope, data: { submissionId, requestedBy: 1 } },
      ]);
      await harness.reacted(appended);
      return appended;
    },
    reacted: (appended) => runtime.judgeTasks!.waitFor({ ...appended.lastPosition, scope: '' }, 15_000),
    post: (path, token, body) =>
      app.inject({
        method: 'POST',
        url: `${JUDGE_INTERNAL_PREFIX}${path}`,
        headers: token === null ? {} : { authorization: `Bearer ${token}` },
        payload: body as object,
      }),
    async claim(token, worker, options = {}) {
      const response = await harness.post('/claim', token, {
        worker,
        languages: options.languages ?? ['c', 'cpp', 'python'],
        capacity: options.capacity ?? 10,
        waitMs: options.waitMs ?? 0,
      });
      if (response.statusCode !== 200) throw new Error(`claim answered ${response.statusCode}: ${response.body}`);
      return response.json<{ tasks: JudgeTask[] }>().tasks;
    },
    async events(submissionId, type) {
      const events = await runtime.store.readStream(`submission-${submissionId}`);
      return type ? events.filter((e) => e.type === type) : events;
    },
    async task(submissionId) {
      return (await runtime.pool.maybeOne(sql.unsafe`SELECT * FROM judge_tasks WHERE submission_id = ${submissionId}`)) as Record<string, unknown> | null;
    },
    async drain() {
      await runtime.pool.query(sql.unsafe`UPDATE judge_tasks SET state = 'done', lease_owner = NULL, lease_until = NULL WHERE state <> 'done'`);
    },
    async stop() {
      await app.close();
      queue.close();
      await runtime.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Makes the current lease of a task look expired (no sleeping through a lease in tests). */
export async function expireLease(harness: Harness, submissionId: number): Promise<void> {
  await harness.runtime.pool.query(sql.unsafe`
    UPDATE judge_tasks SET lease_until = now() - interval '1 second' WHERE submission_id = ${submissionId} AND state = 'leased'`);
}
