/**
 * The Fastify application: the HTTP API under /api and the web app at /.
 * No listening and no process concerns here, so tests can use `app.inject`.
 */
import Fastify, { LogController, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { hasZodFastifySchemaValidationErrors, jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import { createLogger, type Logger } from '@otog/platform/log/logger';
import { appContract } from '@otog/schemas/api/app';
import type { RouteContract } from '@otog/schemas/api/contract';
import { z } from 'zod';
import { JUDGE_INTERNAL_PREFIX } from '@otog/schemas/api/judge-internal';
import { accessControl } from './http/access.ts';
import { crossOrigin, parseQueryString } from './http/cross-origin.ts';
import { badRequest, isUnstorableText } from './http/errors.ts';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './http/request-bodies.ts';
import { serve } from './http/serve.ts';
import { pageSender, staticFilesOptions, wantsPage, type WebAppOptions } from './http/web-app.ts';
import type { ApiDependencies } from './http/settings.ts';
import { judgeInternalRoutes, type JudgingDependencies } from './judging/internal-routes.ts';
import { adminRoutes } from './modules/admin/routes.ts';
import { announcementsRoutes } from './modules/announcements/routes.ts';
import { authRoutes } from './modules/auth/routes.ts';
import { chatRoutes } from './modules/chat/routes.ts';
import { contestsRoutes } from './modules/contests/routes.ts';
import { problemsRoutes } from './modules/problems/routes.ts';
import { submissionsRoutes } from './modules/submissions/routes.ts';
import { usersRoutes } from './modules/users/routes.ts';
import type { ProcessMetrics } from './ops/metrics.ts';
import { createReadiness, type Readiness } from './ops/readiness.ts';

export const API_PREFIX = '/api';
/** Prefix of the rate-limit counters in Redis: `<prefix><METHOD><route url>-<ip:… or user:…>`. */
export const RATE_LIMIT_NAMESPACE = 'otog-rate-limit:';

export interface AppOptions {
  logger?: Logger;
  /** Serves the internal judge API (/api/internal/judge) when given. */
  judging?: JudgingDependencies;
  /** Serves the public API (auth, users, problems, submissions, announcements) when given. */
  api?: ApiDependencies;
  /** Serves the web app (web/dist) at / when given. */
  web?: WebAppOptions;
  /** What GET /health/ready reports; without it the node is ready when its database answers. */
  readiness?: Readiness;
  /** Each answer's latency goes into this histogram (served on the ops port, never here). */
  httpDuration?: ProcessMetrics['httpDuration'];
}

/** The OpenAPI body of a multipart route: its text fields (as the client sends them) and its files. */
function multipartJsonSchema(form: NonNullable<RouteContract['multipart']>): Record<string, unknown> {
  const fields = z.toJSONSchema(form.fields, { io: 'input', unrepresentable: 'any' }) as { properties?: object; required?: string[] };
  const files = Object.fromEntries(Object.entries(form.files).map(([name, description]) => [name, { type: 'string', format: 'binary', description }]));
  return { type: 'object', properties: { ...fields.properties, ...files }, ...(fields.required?.length ? { required: fields.required } : {}) };
}

/** "body.username: Required; query.limit: Too big" from a request validation failure. */
function describeValidation(error: FastifyError): string {
  const issues = (error.validation ?? []).map((issue) => {
    const path = String(issue.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    const where = [error.validationContext, path].filter(Boolean).join('.');
    return where ? `${where}: ${issue.message ?? 'invalid'}` : (issue.message ?? 'invalid');
  });
  return issues.length ? issues.join('; ') : error.message;
}

export type App = ReturnType<typeof buildApp>;

/** The request as logged: a signed link's signature stays out (whoever reads the log could use the link). */
export function loggedRequest(request: Pick<FastifyRequest, 'method' | 'url' | 'ip'>): { method: string; url: string; remoteAddress: string } {
  return { method: request.method, url: request.url.replace(/([?&]signature=)[^&#]*/gi, '$1[redacted]'), remoteAddress: request.ip };
}

/** Per-request lines at debug level (LOG_LEVEL=debug shows them); failed requests stay at error. */
class RequestLogAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: loggedRequest(request) }, 'incoming request');
  }
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** A node built without a readiness of its own (tests, tools): ready when its database answers, if it has one. */
function readinessOfDatabase(pool: DatabasePool | undefined): Readiness {
  const readiness = createReadiness({ roles: [] });
  if (pool) readiness.addCheck('database', () => pool.query(sql.unsafe`SELECT 1`));
  readiness.markStarted();
  return readiness;
}

export function buildApp(options: AppOptions = {}) {
  const app = Fastify({
    loggerInstance: options.logger ?? createLogger({ name: 'otog', level: 'silent' }),
    // Which X-Forwarded-For hops name the caller (TRUST_PROXY); by default none, so a client cannot pick its IP.
    trustProxy: options.api?.settings.trustProxy ?? false,
    logController: new RequestLogAtDebug(),
    routerOptions: { querystringParser: parseQueryString },
  });
  const httpDuration = options.httpDuration;
  if (httpDuration) {
    app.addHook('onResponse', async (request, reply) => {
      // The route's pattern, never the URL: ids and queries would make a series per request.
      httpDuration.observe({ method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1_000);
    });
  }
  // Routes declare zod schemas (schemas/src/api): requests are parsed and responses checked with them.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Fastify's JSON parser (with its prototype-poisoning checks), after a linear check of the nesting depth.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    // An empty body is no body (clients send `content-type: application/json` on a POST without one); a
    // route that needs a body says so in its own validation.
    if (text.trim() === '') done(null, undefined);
    else if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) done(badRequest(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    else parseJson(request, text, done);
  });

  const web = options.web;
  if (web && existsSync(web.distDir)) void app.register(fastifyStatic, staticFilesOptions(web));
  const sendPage = web ? pageSender(web) : undefined;
  // '/' explicitly: the static files plugin would answer a directory without an index with a 403.
  if (sendPage) app.get('/', { schema: { hide: true } }, (_request, reply) => sendPage(reply));
  app.setNotFoundHandler((request, reply) => {
    // Page paths (/problem/12, ...) are the web app's routes: it answers them, a 404 page included.
    if (sendPage && wantsPage(request, API_PREFIX)) return sendPage(reply);
    return reply.code(404).send({ message: `Not found: ${request.method} ${request.url.split('?')[0]}` });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      void reply.code(400).send({ message: describeValidation(error) });
      return;
    }
    // Input the database cannot store (a NUL the route's checks missed) is the client's error, not ours.
    if (isUnstorableText(error)) {
      void reply.code(400).send({ message: 'Text must not contain the NUL character (\\u0000)' });
      return;
    }
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      void reply.code(status).send({ message: 'Internal server error' });
      return;
    }
    void reply.code(status).send({ message: error.message });
  });

  const deps = options.api;
  if (deps) {
    void app.register(fastifyMultipart, { limits: { fileSize: deps.settings.problemFileMaxBytes, files: 10 } });
    void app.register(fastifyRateLimit, {
      global: false,
      // A Redis outage must not take sign-in and submitting down with it: the limits pause until it is back.
      ...(deps.redis ? { redis: deps.redis, nameSpace: RATE_LIMIT_NAMESPACE, skipOnError: true } : {}),
      errorResponseBuilder: (_request, context) => ({ statusCode: 429, message: `Too many requests; try again in ${context.after}` }),
    });
    void app.register(accessControl, { ...deps.settings, sessions: deps.sessions });
    void app.register(crossOrigin, { allowedOrigins: deps.settings.corsOrigins });
    void app.register(fastifySwagger, {
      openapi: {
        info: { title: 'OTOG API', description: 'One Tambon One Grader: the public API (spec section 7)', version: '1.0.0' },
        servers: [{ url: API_PREFIX }],
      },
      transform: (input) => {
        const transformed = jsonSchemaTransform(input);
        const form = input.route.config?.multipart;
        return form ? { ...transformed, schema: { ...transformed.schema, body: multipartJsonSchema(form) } } : transformed;
      },
      // Only the public API: the internal judge API is not a client contract.
      hideUntagged: true,
    });
    void app.register(fastifySwaggerUi, { routePrefix: `${API_PREFIX}/doc` });
  }

  void app.register(
    async (api) => {
      serve(api, appContract.ping, async (_request, reply) => reply.type('text/plain; charset=utf-8').send('pong'));
      // The spec's App group: "GET /time returns the server date" (as a JSON string, ISO-8601).
      serve(api, appContract.time, async (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(new Date().toISOString())));
      serve(api, appContract.health, async () => ({ status: 'ok' as const }));
      const readiness = options.readiness ?? readinessOfDatabase(deps?.pool);
      serve(api, appContract.ready, async (_request, reply) => {
        const report = await readiness.report();
        if (report.status === 'ready') return reply.code(200).send(report);
        return reply.code(503).send({ ...report, message: `Not ready: ${report.status}` });
      });
      if (deps) {
        await authRoutes(api, deps);
        await usersRoutes(api, deps);
        await problemsRoutes(api, deps);
        await submissionsRoutes(api, deps);
        await announcementsRoutes(api, deps);
        await contestsRoutes(api, deps);
        await chatRoutes(api, deps);
        await adminRoutes(api, deps);
      }
    },
    { prefix: API_PREFIX },
  );

  const judging = options.judging;
  if (judging) void app.register(async (scope) => judgeInternalRoutes(scope, judging), { prefix: JUDGE_INTERNAL_PREFIX });

  return app;
}
