/**
 * Who is calling, and may they: verifies the access token (Bearer header, else the `accessToken` cookie)
 * and enforces each route's RouteAccess, including offline mode. Installed once on the root instance.
 */
import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyJwt from '@fastify/jwt';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { RouteAccess, RouteContract } from '@otog/schemas/api/contract';
import type { SessionGuard } from '../modules/auth/session-guard.ts';
import type { ApiSettings } from './settings.ts';

/** The signed-in caller, as carried by the access token (OTOG's payload fields). */
export interface AuthUser {
  readonly id: number;
  readonly username: string;
  readonly showName: string;
  readonly role: 'user' | 'admin';
  readonly rating: number | null;
}

export interface AccessTokenPayload extends AuthUser {
  readonly jti: string;
  /** The session (refresh-token family) the token belongs to: logging out of it ends the token too. */
  readonly sid: string;
  /** Expiry (seconds since the epoch), set when the token is signed. */
  readonly exp?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /** The multipart form of the route's contract (documented in OpenAPI; the handler parses the stream). */
    multipart?: RouteContract['multipart'];
  }
  interface FastifyRequest {
    /** The verified caller; null when anonymous. */
    auth: AuthUser | null;
  }
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccessTokenPayload;
    user: AccessTokenPayload;
  }
}

export const ACCESS_TOKEN_COOKIE = 'accessToken';
const BEARER = /^Bearer +(\S+) *$/i;

export function tokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header) return BEARER.exec(header)?.[1] ?? null;
  return request.cookies[ACCESS_TOKEN_COOKIE] || null;
}

/** Issues an access token of session `sid`; the jti ties it to the refresh token issued with it. */
export function signAccessToken(app: Pick<FastifyInstance, 'jwt'>, user: AuthUser, ttlSeconds: number, sid: string): { token: string; jti: string } {
  const jti = randomUUID();
  const payload: AccessTokenPayload = { id: user.id, username: user.username, showName: user.showName, role: user.role, rating: user.rating, jti, sid };
  return { token: app.jwt.sign(payload, { expiresIn: ttlSeconds }), jti };
}

/** The payload of a token whose signature is valid, expired or not (refresh needs the expired one's jti). */
export function decodeVerifiedIgnoringExpiry(app: Pick<FastifyInstance, 'jwt'>, token: string): AccessTokenPayload | null {
  try {
    return app.jwt.verify<AccessTokenPayload>(token, { ignoreExpiration: true } as never);
  } catch {
    return null;
  }
}

/** The payload of a token whose signature is valid and which has not expired, else null. */
export function verifiedPayload(app: Pick<FastifyInstance, 'jwt'>, token: string): AccessTokenPayload | null {
  try {
    return app.jwt.verify<AccessTokenPayload>(token);
  } catch {
    return null;
  }
}

const deny = (reply: FastifyReply, status: 401 | 403, message: string) => reply.code(status).send({ message });

function checkAccess(access: RouteAccess, user: AuthUser | null, offline: boolean): { status: 401 | 403; message: string } | null {
  const required = offline && access.offline !== 'public' ? strictest(access.role, access.offline === 'admin' ? 'admin' : 'user') : access.role;
  if (required === 'any') return null;
  if (!user) return { status: 401, message: offline ? 'Sign in to use this in offline mode' : 'Unauthorized' };
  if (required === 'admin' && user.role !== 'admin') return { status: 403, message: offline ? 'Only admins can use this in offline mode' : 'Forbidden' };
  return null;
}

function strictest(a: RouteAccess['role'], b: RouteAccess['role']): RouteAccess['role'] {
  const rank = { any: 0, user: 1, admin: 2 } as const;
  return rank[a] >= rank[b] ? a : b;
}

export const accessControl = fastifyPlugin(
  async (app: FastifyInstance, settings: Pick<ApiSettings, 'jwtSecret' | 'offline'> & { sessions: SessionGuard }) => {
    await app.register(fastifyCookie);
    await app.register(fastifyJwt, { secret: settings.jwtSecret });
    app.decorateRequest('auth', null);

    app.addHook('onRequest', async (request, reply) => {
      const access = request.routeOptions.config.access;
      if (!access) return; // not a public-API route (internal judge API, 404s)
      const token = tokenOf(request);
      if (token) {
        const payload = verifiedPayload(app, token);
        // A valid signature is not enough: the session must still stand (role unchanged, not logged out).
        if (payload && (await settings.sessions.isCurrent(payload))) {
          request.auth = { id: payload.id, username: payload.username, showName: payload.showName, role: payload.role, rating: payload.rating };
        } else if (!access.ignoresInvalidToken) {
          return deny(reply, 401, 'Invalid or expired access token');
        }
      }
      const denial = checkAccess(access, request.auth, settings.offline);
      if (denial) return deny(reply, denial.status, denial.message);
    });
  },
  { name: 'otog-access-control' },
);

/** The caller, for handlers of routes whose access requires a sign-in. */
export function caller(request: FastifyRequest): AuthUser {
  if (!request.auth) throw Object.assign(new Error('Unauthorized'), { statusCode: 401 });
  return request.auth;
}

export const isAdmin = (user: AuthUser | null): boolean => user?.role === 'admin';
