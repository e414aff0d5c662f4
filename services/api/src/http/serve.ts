/**
 * Serves a route declared in schemas/api: its params, query and body are parsed with the contract's zod
 * schemas (a mismatch is a 400 naming the field), its responses serialized and checked with them, and its
 * RouteAccess enforced by access.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { RouteContract } from '@otog/schemas/api/contract';
import { badRequest, findNulCharacter, NUL_MESSAGE } from './errors.ts';
import { NO_BODY_LIMIT_BYTES } from './request-bodies.ts';
import type { RateLimit } from './settings.ts';

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;

export type RequestOf<C extends RouteContract> = FastifyRequest<{
  Params: Out<C['params']>;
  Querystring: Out<C['query']>;
  Body: Out<C['body']>;
}>;

type SuccessStatus<C extends RouteContract> = Extract<keyof C['responses'], 200 | 201>;
/** What a handler may return: the 2xx body, or the reply it has already sent. */
export type ResultOf<C extends RouteContract> = z.output<C['responses'][SuccessStatus<C>]> | FastifyReply;

export interface ServeOptions {
  /** Per-caller limit (by user id when signed in, else by IP); over it → 429 {message}. */
  readonly rateLimit?: RateLimit & { readonly keyBy?: 'user' | 'ip' };
}

export function serve<C extends RouteContract>(
  parent: FastifyInstance,
  contract: C,
  handler: (request: RequestOf<C>, reply: FastifyReply) => Promise<ResultOf<C>>,
  options: ServeOptions = {},
): void {
  const app = parent.withTypeProvider<ZodTypeProvider>();
  const status201 = 201 in contract.responses && !(200 in contract.responses);
  const limit = options.rateLimit;
  app.route({
    method: contract.method,
    url: contract.path,
    // A route without a JSON body takes at most a token one: a large body is refused before it is read.
    // (Multipart and raw uploads are streamed by their own parsers and limits.)
    ...(contract.body ? {} : { bodyLimit: NO_BODY_LIMIT_BYTES }),
    schema: {
      summary: contract.summary,
      tags: [...contract.tags],
      ...(contract.params ? { params: contract.params } : {}),
      ...(contract.query ? { querystring: contract.query } : {}),
      ...(contract.body ? { body: contract.body } : {}),
      ...(contract.multipart ? { consumes: ['multipart/form-data'] } : {}),
      response: contract.responses,
    },
    config: {
      access: contract.access,
      ...(contract.multipart ? { multipart: contract.multipart } : {}),
      ...(limit
        ? {
            rateLimit: {
              max: limit.max,
              timeWindow: limit.windowMs,
              keyGenerator: (request: FastifyRequest) =>
                limit.keyBy === 'user' && request.auth ? `user:${request.auth.id}` : `ip:${request.ip}`,
            },
          }
        : {}),
    },
    // Postgres text and jsonb cannot hold NUL: refused here with the field's name instead of failing in SQL.
    preValidation: async (request) => {
      const field = findNulCharacter({ params: request.params, querystring: request.query, body: request.body });
      if (field) throw badRequest(`${field}: ${NUL_MESSAGE}`);
    },
    handler: async (request, reply) => {
      if (status201) void reply.code(201);
      return handler(request as unknown as RequestOf<C>, reply);
    },
  });
}
