/**
 * The Fastify application: the HTTP API under /api (the web app will be served at /).
 * No listening and no process concerns here, so tests can use `app.inject`.
 */
import Fastify, { LogController, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { createLogger, type Logger } from '@otog/platform/log/logger';
import { JUDGE_INTERNAL_PREFIX } from '@otog/schemas/api/judge-internal';
import { judgeInternalRoutes, type JudgingDependencies } from './judging/internal-routes.ts';

export const API_PREFIX = '/api';

export interface AppOptions {
  logger?: Logger;
  /** Serves the internal judge API (/api/internal/judge) when given. */
  judging?: JudgingDependencies;
}

export type App = ReturnType<typeof buildApp>;

/** Per-request lines at debug level (LOG_LEVEL=debug shows them); failed requests stay at error. */
class RequestLogAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

export function buildApp(options: AppOptions = {}) {
  const app = Fastify({
    loggerInstance: options.logger ?? createLogger({ name: 'otog', level: 'silent' }),
    logController: new RequestLogAtDebug(),
  });
  // Routes declare zod schemas (schemas/src/api): requests are parsed and responses checked with them.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ message: `Not found: ${request.method} ${request.url.split('?')[0]}` });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      void reply.code(status).send({ message: 'Internal server error' });
      return;
    }
    void reply.code(status).send({ message: error.message });
  });

  void app.register(
    async (api) => {
      api.get('/ping', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('pong'));
      // The spec's App group: "GET /time returns the server date" (as a JSON string, ISO-8601).
      api.get('/time', async (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(new Date().toISOString())));
    },
    { prefix: API_PREFIX },
  );

  const judging = options.judging;
  if (judging) void app.register(async (scope) => judgeInternalRoutes(scope, judging), { prefix: JUDGE_INTERNAL_PREFIX });

  return app;
}
