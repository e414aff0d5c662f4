/**
 * The internal judge API (`/api/internal/judge`, schemas/src/api/judge-internal.ts): judge workers lease
 * tasks, report test cases, complete or fail, and download test data, with a per-worker bearer token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DatabasePool } from '@otog/platform/db/pool';
import type { ObjectStore } from '@otog/platform/storage/object-store';
import {
  ClaimRequestSchema,
  ClaimResponseSchema,
  CompleteRequestSchema,
  ErrorResponseSchema,
  FailRequestSchema,
  HeartbeatRequestSchema,
  HeartbeatResponseSchema,
  OkResponseSchema,
  TaskParamsSchema,
  TestcaseReportSchema,
  TestdataParamsSchema,
} from '@otog/schemas/api/judge-internal';
import { JudgeApiError, type JudgeQueue } from './judge-queue.ts';
import { authenticateWorker } from './worker-tokens.ts';

export interface JudgingDependencies {
  readonly pool: DatabasePool;
  readonly queue: JudgeQueue;
  /** Where test-data zips are stored by sha256. */
  readonly objects: ObjectStore;
}

const errors = {
  400: ErrorResponseSchema,
  401: ErrorResponseSchema,
  403: ErrorResponseSchema,
  404: ErrorResponseSchema,
  409: ErrorResponseSchema,
} as const;

const BEARER = /^Bearer +(\S+) *$/i;

/** Register with `{ prefix: JUDGE_INTERNAL_PREFIX }`. */
export async function judgeInternalRoutes(parent: FastifyInstance, deps: JudgingDependencies): Promise<void> {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const workerOf = new WeakMap<FastifyRequest, string>();
  // Waiting claims answer at once (with no tasks) when the server closes, instead of holding it up.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  app.addHook('onRequest', async (request, reply) => {
    const match = BEARER.exec(request.headers.authorization ?? '');
    const worker = match ? await authenticateWorker(deps.pool, match[1]!) : null;
    if (!worker) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ message: 'missing, unknown or revoked judge worker token' });
    }
    workerOf.set(request, worker);
  });

  /** The body names the worker; it must be the one the token belongs to. */
  const sameWorker = <TBody extends { worker: string }>(request: FastifyRequest & { body: TBody }): TBody => {
    const worker = workerOf.get(request);
    if (request.body.worker !== worker) {
      throw new JudgeApiError(403, `this token belongs to worker "${worker ?? ''}", not "${request.body.worker}"`);
    }
    return request.body;
  };

  app.post(
    '/claim',
    { schema: { body: ClaimRequestSchema, response: { 200: ClaimResponseSchema, ...errors } } },
    async (request, reply) => {
      const aborted = new AbortController();
      reply.raw.once('close', () => aborted.abort());
      const tasks = await deps.queue.claim(sameWorker(request), AbortSignal.any([aborted.signal, closing.signal]));
      return { tasks };
    },
  );

  app.post(
    '/tasks/:submissionId/heartbeat',
    { schema: { params: TaskParamsSchema, body: HeartbeatRequestSchema, response: { 200: HeartbeatResponseSchema, ...errors } } },
    async (request) => deps.queue.heartbeat(request.params.submissionId, sameWorker(request)),
  );

  app.post(
    '/tasks/:submissionId/testcases',
    { schema: { params: TaskParamsSchema, body: TestcaseReportSchema, response: { 200: OkResponseSchema, ...errors } } },
    async (request) => {
      const body = sameWorker(request);
      await deps.queue.reportTestcases(request.params.submissionId, body, body.results);
      return { ok: true as const };
    },
  );

  app.post(
    '/tasks/:submissionId/complete',
    { schema: { params: TaskParamsSchema, body: CompleteRequestSchema, response: { 200: OkResponseSchema, ...errors } } },
    async (request) => {
      const body = sameWorker(request);
      await deps.queue.complete(request.params.submissionId, body, body.result);
      return { ok: true as const };
    },
  );

  app.post(
    '/tasks/:submissionId/fail',
    { schema: { params: TaskParamsSchema, body: FailRequestSchema, response: { 200: OkResponseSchema, ...errors } } },
    async (request) => {
      const body = sameWorker(request);
      await deps.queue.fail(request.params.submissionId, body, body.message);
      return { ok: true as const };
    },
  );

  // 200 is application/zip, streamed (no JSON schema); errors are { message } as everywhere.
  app.get('/testdata/:hash', { schema: { params: TestdataParamsSchema } }, async (request, reply) => {
    const object = await deps.objects.open(request.params.hash);
    if (!object) return reply.code(404).send({ message: `no test data with hash ${request.params.hash}` });
    return reply
      .type('application/zip')
      .header('content-length', object.size)
      .header('etag', `"${request.params.hash}"`)
      .header('cache-control', 'private, max-age=31536000, immutable')
      .send(object.stream);
  });
}
