/**
 * Web apps on other origins, and what keeps other sites out: CORS with credentials for the configured
 * origins (the original OTOG web serves itself apart from its API), query values that such a client sends
 * JSON-encoded, and an Origin check on writes that a cookie authenticates.
 */
import fastifyCors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { parse } from 'node:querystring';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The cookies that authenticate a request by themselves (the access token's, and the refresh token's on /auth). */
const CREDENTIAL_COOKIES = ['accessToken', 'RID'];

/**
 * Parses a query string as Fastify does, then decodes each value written as a JSON string literal: a
 * ts-rest client with `jsonQuery` quotes exactly the strings that would otherwise read as a number, a
 * boolean or null (`search=""`, `contestId="7"`). Other values stay as sent, so `?search=abc` and
 * `?limit=10` mean what they always did.
 */
export function parseQueryString(raw: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(parse(raw))) {
    if (value !== undefined) query[key] = Array.isArray(value) ? value.map(decodeJsonString) : decodeJsonString(value);
  }
  return query;
}

function decodeJsonString(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  try {
    const decoded: unknown = JSON.parse(value);
    return typeof decoded === 'string' ? decoded : value;
  } catch {
    return value;
  }
}

/** The origin a request says it comes from: its Origin header, else its Referer's; undefined for neither (not a browser). */
function claimedOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (origin) return origin;
  const referer = request.headers.referer;
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}

/**
 * Whether a write may go ahead: reads, writes carrying their own Authorization header, and writes without
 * session cookies always may (another site can neither read a token nor set a header); a cookie-borne write
 * must come from this site's own host or an allowed origin. SameSite=Lax already stops most cross-site
 * posts; this also covers other hosts of the same site and browsers without SameSite.
 */
export function writeOriginAllowed(request: FastifyRequest, allowedOrigins: readonly string[]): boolean {
  if (SAFE_METHODS.has(request.method) || request.headers.authorization) return true;
  if (!CREDENTIAL_COOKIES.some((name) => request.cookies[name])) return true;
  const origin = claimedOrigin(request);
  if (origin === undefined) return true;
  if (allowedOrigins.includes(origin)) return true;
  try {
    return new URL(origin).host === request.host;
  } catch {
    return false;
  }
}

/**
 * Registers CORS for `allowedOrigins` (none: same origin only) and refuses cookie-borne writes from elsewhere
 * with a 403. Register it after the cookie parser (access control), whose hook must run first.
 */
export const crossOrigin = fastifyPlugin(async (app: FastifyInstance, { allowedOrigins }: { allowedOrigins: readonly string[] }) => {
  if (allowedOrigins.length > 0) {
    await app.register(fastifyCors, {
      origin: [...allowedOrigins],
      credentials: true,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      maxAge: 600,
    });
  }
  app.addHook('onRequest', async (request, reply) => {
    if (!writeOriginAllowed(request, allowedOrigins)) {
      await reply.code(403).send({ message: 'Cross-site request refused: this origin may not write with the session cookie' });
    }
  });
});
