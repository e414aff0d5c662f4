/**
 * The real public-API stack for the API suites: a test database, the platform runtime (projections and the
 * judge-task reactor on the Postgres log), a local object store, the Fastify app with the public and the
 * internal judge API, and optionally a real judge worker in the bwrap sandbox. Requests go through
 * `app.inject` (real routing, hooks, validation, serialization); with a worker the app also listens.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { z } from 'zod';
import { buildApp, type App } from '@otog/api/app';
import type { AuthUser } from '@otog/api/http/access';
import { createSessionGuard } from '@otog/api/modules/auth/session-guard';
import { openSession } from '@otog/api/modules/auth/session';
import { DEFAULT_API_SETTINGS, type ApiDependencies, type ApiSettings } from '@otog/api/http/settings';
import { createJudgeQueue, type JudgeQueue } from '@otog/api/judging/judge-queue';
import { addWorker } from '@otog/api/judging/worker-tokens';
import { createAccount } from '@otog/api/modules/users/accounts';
import { startRealtime, type Realtime } from '@otog/api/realtime/gateway';
import { createRedisPresence } from '@otog/api/realtime/presence';
import { Redis } from 'ioredis';
import { startPlatformRuntime, type PlatformRuntime } from '@otog/api/platform-runtime';
import { createLogger } from '@otog/platform/log/logger';
import { createLocalObjectStore } from '@otog/platform/storage/local-object-store';
import type { ObjectStore } from '@otog/platform/storage/object-store';
import { pathOf, type RouteContract } from '@otog/schemas/api/contract';
import { silentLogger, startWorker, type RunningWorker } from '@otog/judge/worker/index';
import { createTestDatabase, type TestDatabase } from '../../support/test-db.ts';

export interface TestUser extends AuthUser {
  readonly password: string;
  /** A valid access token for this user. */
  readonly token: string;
}

export interface CallOptions {
  readonly params?: Record<string, string | number>;
  readonly query?: Record<string, string | number | boolean>;
  readonly body?: unknown;
  /** A user (their token as Bearer), a raw token, or nothing (anonymous). */
  readonly as?: TestUser | string | null;
  readonly headers?: Record<string, string>;
  readonly cookies?: Record<string, string>;
  /** multipart/form-data: text fields and files. */
  readonly form?: { fields?: Record<string, string>; files?: Record<string, { filename: string; content: Uint8Array | string; contentType?: string }> };
}

export interface Stack {
  readonly db: TestDatabase;
  readonly runtime: PlatformRuntime;
  readonly app: App;
  readonly deps: ApiDependencies;
  readonly objects: ObjectStore;
  readonly queue: JudgeQueue;
  /** Set when started with `worker`: where the app listens. */
  readonly url: string | null;
  /** A user made directly (accounts row + UserRegistered), signed in (an access token of a real session). */
  createUser(options?: { role?: 'user' | 'admin'; username?: string; showName?: string; password?: string }): Promise<TestUser>;
  /** An access token of a new session of `user` (the way another sign-in would). */
  newSession(user: AuthUser): Promise<string>;
  /** Calls a contract route through app.inject. */
  call(contract: RouteContract, options?: CallOptions): Promise<LightMyRequestResponse>;
  /** expectCall that also hands back the response, for headers and raw bytes. */
  expectResponse<C extends RouteContract, S extends keyof C['responses'] & number>(
    contract: C,
    status: S,
    options?: CallOptions,
  ): Promise<{ response: LightMyRequestResponse; body: z.output<C['responses'][S]> }>;
  /** Calls, expects `status`, and parses the body with the contract's schema for that status (strict check). */
  expectCall<C extends RouteContract, S extends keyof C['responses'] & number>(
    contract: C,
    status: S,
    options?: CallOptions,
  ): Promise<z.output<C['responses'][S]>>;
  stop(): Promise<void>;
}

let userCounter = 0;

/** A multipart body by hand (light-my-request takes a payload buffer and headers). */
export function multipartBody(form: NonNullable<CallOptions['form']>): { payload: Buffer; contentType: string } {
  const boundary = `----otogtest${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(form.fields ?? {})) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const [name, file] of Object.entries(form.files ?? {})) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${file.filename}"\r\n` +
          `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      Buffer.from(file.content),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function startStack(
  options: {
    settings?: Partial<ApiSettings>;
    /** The files' store (an S3 bucket, as nodes that share one have); by default a directory of this stack's. */
    objects?: ObjectStore;
    worker?: { firstUid: number; slots?: number };
    /** Listens and serves the realtime channel, with Redis (REDIS_URL) under this namespace of keys. */
    realtime?: { namespace: string };
  } = {},
): Promise<Stack> {
  const db = await createTestDatabase({ maximumPoolSize: 6 });
  const logger = createLogger({ name: 'api-test', level: 'silent' });
  const runtime = await startPlatformRuntime({ databaseUrl: db.url, logger });
  const dir = mkdtempSync(join(tmpdir(), 'otog-api-'));
  // mkdtemp makes a 0700 directory; the sandbox's per-slot uids must be able to traverse to their boxes.
  chmodSync(dir, 0o711);
  const objects = options.objects ?? createLocalObjectStore(join(dir, 'objects'));
  const queue = createJudgeQueue({ pool: runtime.pool, store: runtime.store, listener: runtime.listener, logger });
  const settings: ApiSettings = {
    ...DEFAULT_API_SETTINGS,
    jwtSecret: 'test-secret-test-secret-test-secret-0123',
    // Generous limits: the suites sign in often from one address; the rate-limit tests set their own.
    rateLimits: Object.fromEntries(Object.keys(DEFAULT_API_SETTINGS.rateLimits).map((name) => [name, { max: 10_000, windowMs: 60_000 }])) as ApiSettings['rateLimits'],
    ...options.settings,
  };
  const sessions = createSessionGuard({ pool: runtime.pool, listener: runtime.listener });
  const redisUrl = process.env.REDIS_URL;
  const redis = options.realtime && redisUrl ? new Redis(redisUrl) : undefined;
  const presence = options.realtime && redis ? createRedisPresence({ redis, prefix: `${options.realtime.namespace}:presence:` }) : undefined;
  const deps: ApiDependencies = {
    pool: runtime.pool,
    store: runtime.store,
    projections: runtime.projections,
    objects,
    logger,
    settings,
    sessions,
    ...(redis ? { redis } : {}),
    ...(presence ? { presence } : {}),
  };
  const app = buildApp({ logger, judging: { pool: runtime.pool, queue, objects }, api: deps });
  await app.ready();

  let url: string | null = null;
  let realtime: Realtime | undefined;
  if (options.realtime) {
    if (!redisUrl || !presence) throw new Error('REDIS_URL is not set: run the suites through `npm test`, which starts Redis');
    realtime = await startRealtime({ app, deps, notices: runtime.notices, presence, redisUrl, logger, namespace: options.realtime.namespace });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }
  let worker: RunningWorker | undefined;
  if (options.worker) {
    if (!url) {
      await app.listen({ port: 0, host: '127.0.0.1' });
      url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    }
    const name = `api-test-${process.pid}`;
    worker = await startWorker({
      apiUrl: url,
      worker: name,
      token: await addWorker(runtime.pool, name, { rotate: true }),
      slots: options.worker.slots ?? 2,
      sandbox: {
        mode: 'bwrap',
        rootDir: join(dir, 'sandbox'),
        firstUid: options.worker.firstUid,
        cgroupParent: `otog-test-api-${process.pid}`,
        calibrationRuns: 10,
      },
      cacheDir: join(dir, 'cache'),
      claimWaitMs: 2_000,
      logger: silentLogger,
    });
  }

  const stack: Stack = {
    db,
    runtime,
    app,
    deps,
    objects,
    queue,
    url,
    async createUser(userOptions = {}) {
      userCounter += 1;
      const tag = `${process.pid}_${userCounter}`;
      const password = userOptions.password ?? `password-${tag}`;
      const account = await createAccount(deps, {
        username: userOptions.username ?? `user_${tag}`,
        showName: userOptions.showName ?? `User ${tag}`,
        password,
        role: userOptions.role ?? 'user',
      });
      const user: AuthUser = { id: account.id, username: account.username, showName: account.showName, role: account.role, rating: account.rating };
      return { ...user, password, token: await stack.newSession(user) };
    },
    async newSession(user) {
      return (await openSession(app, runtime.pool, settings, user)).accessToken;
    },
    async call(contract, callOptions = {}) {
      const token = typeof callOptions.as === 'string' ? callOptions.as : (callOptions.as?.token ?? null);
      const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...callOptions.headers };
      let payload: string | Buffer | undefined;
      if (callOptions.form) {
        const body = multipartBody(callOptions.form);
        payload = body.payload;
        headers['content-type'] = body.contentType;
      } else if (callOptions.body !== undefined) {
        payload = JSON.stringify(callOptions.body);
        headers['content-type'] = 'application/json';
      }
      const query = Object.fromEntries(Object.entries(callOptions.query ?? {}).map(([key, value]) => [key, String(value)]));
      return app.inject({
        method: contract.method,
        url: `/api${pathOf(contract, callOptions.params)}`,
        query,
        headers,
        ...(callOptions.cookies ? { cookies: callOptions.cookies } : {}),
        ...(payload === undefined ? {} : { payload }),
      });
    },
    async expectResponse(contract, status, callOptions) {
      const response = await stack.call(contract, callOptions);
      expect(response.statusCode, `${contract.method} ${contract.path} answered ${response.statusCode}: ${response.body.slice(0, 500)}`).toBe(status);
      const schema = contract.responses[status];
      if (!schema) throw new Error(`${contract.method} ${contract.path} declares no ${status} response`);
      const body: unknown = response.body === '' ? null : response.headers['content-type']?.toString().includes('json') ? response.json() : response.body;
      const parsed = schema.safeParse(body);
      expect(parsed.success, `${contract.method} ${contract.path} ${status} body does not match its contract: ${parsed.error?.message}`).toBe(true);
      return { response, body: parsed.data as never };
    },
    async expectCall(contract, status, callOptions) {
      return (await stack.expectResponse(contract, status, callOptions)).body;
    },
    async stop() {
      await worker?.stop();
      // The worker's HTTP client (fetch) can leave a keep-alive socket that Node does not count as idle, and
      // app.close() would wait for it until the server's timeouts (60 s and more). No request is in flight now.
      await realtime?.close();
      if (url) app.server.closeAllConnections();
      await app.close();
      redis?.disconnect();
      queue.close();
      await runtime.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return stack;
}
