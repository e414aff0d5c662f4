/**
 * A second API node for the realtime suites, in its own process so a test can kill it (-9): the public API
 * and the realtime channel over a database whose read models another process folds, sharing its Redis.
 * Env: DATABASE_URL, REDIS_URL, JWT_SECRET, NAMESPACE, PRESENCE_TTL_MS. Prints `listening <port>` when up.
 */
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { buildApp } from '@otog/api/app';
import { createSessionGuard } from '@otog/api/modules/auth/session-guard';
import { DEFAULT_API_SETTINGS, type ApiDependencies } from '@otog/api/http/settings';
import { startPlatformRuntime } from '@otog/api/platform-runtime';
import { startRealtime } from '@otog/api/realtime/gateway';
import { createRedisPresence } from '@otog/api/realtime/presence';
import { createLogger } from '@otog/platform/log/logger';
import { createLocalObjectStore } from '@otog/platform/storage/local-object-store';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const namespace = env('NAMESPACE');
const redisUrl = env('REDIS_URL');
const logger = createLogger({ name: 'api-node-b', level: 'silent' });
const runtime = await startPlatformRuntime({ databaseUrl: env('DATABASE_URL'), logger, roles: ['api'] });
const redis = new Redis(redisUrl);
const ttlMs = Number(process.env.PRESENCE_TTL_MS ?? 30_000);
const presence = createRedisPresence({ redis, prefix: `${namespace}:presence:`, ttlMs, refreshMs: Math.max(100, Math.floor(ttlMs / 4)) });
const deps: ApiDependencies = {
  pool: runtime.pool,
  store: runtime.store,
  projections: runtime.projections,
  objects: createLocalObjectStore(join(mkdtempSync(join(tmpdir(), 'otog-node-b-')), 'objects')),
  logger,
  settings: { ...DEFAULT_API_SETTINGS, jwtSecret: env('JWT_SECRET') },
  sessions: createSessionGuard({ pool: runtime.pool, listener: runtime.listener }),
  redis,
  presence,
};
const app = buildApp({ logger, api: deps });
await app.ready();
await startRealtime({ app, deps, notices: runtime.notices, presence, redisUrl, logger, namespace });
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${(app.server.address() as AddressInfo).port}\n`);
