import type { Redis } from 'ioredis';
import type { Presence } from '../realtime/presence.ts';
import type { Logger } from 'pino';
import type { KafkaTransport } from '@otog/platform/transport/kafka-transport';
import type { DatabasePool } from '@otog/platform/db/pool';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import type { ProjectionRunner } from '@otog/platform/runner/projection-runner';
import type { ObjectStore } from '@otog/platform/storage/object-store';
import type { SessionGuard } from '../modules/auth/session-guard.ts';

export interface RateLimit {
  readonly max: number;
  readonly windowMs: number;
}

/** Behaviour of the public API that differs between deployments (from config.ts, or set by tests). */
export interface ApiSettings {
  /** On-site contest mode: routes fall into public / authenticated / admin-only (RouteAccess.offline). */
  readonly offline: boolean;
  /** HMAC secret of access tokens and signed file URLs (at least 32 characters). */
  readonly jwtSecret: string;
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  /** Secure flag on cookies (HTTPS deployments). */
  readonly cookieSecure: boolean;
  /** Domain of the session cookies; absent: the API's own host. */
  readonly cookieDomain?: string;
  /** Path the refresh-token cookie is scoped to: the auth routes as the browser addresses them. */
  readonly refreshCookiePath: string;
  /** Other origins whose web apps may call the API with credentials (CORS); the API's own origin always may. */
  readonly corsOrigins: readonly string[];
  /** Largest source file accepted (DOMAIN.md: 10 KiB by default). */
  readonly submissionMaxBytes: number;
  /** Largest PDF, test-data zip or attachment an admin may upload. */
  readonly problemFileMaxBytes: number;
  /** How long a write waits for its projection before answering (read-your-writes, bounded). */
  readonly readYourWritesTimeoutMs: number;
  readonly rateLimits: {
    /** Sign-ins per IP: generous, a school signs in from behind one address. */
    readonly login: RateLimit;
    /** Sign-ins per account name, from anywhere: what stops guessing one account's password. */
    readonly loginPerAccount: RateLimit;
    readonly register: RateLimit;
    readonly submit: RateLimit;
    /** Show-name changes, avatar uploads and share toggles, per user. */
    readonly accountEdit: RateLimit;
  };
  /** Behind a reverse proxy: which X-Forwarded-For hops to believe for the caller's IP (Fastify's trustProxy). */
  readonly trustProxy: boolean | string;
  /**
   * How many scoreboards (a contest's live board, or its board frozen at a moment) each API process keeps
   * built, the least recently read dropped first; 0 builds every answer. A board of 10,000 contestants ×
   * 10 problems takes about 15 MB kept (ranked rows 5.5 MB, both answers' JSON 5.8 MB, compressed 0.5 MB),
   * up to twice that while its next build runs.
   */
  readonly scoreboardCacheSize: number;
  /**
   * Bytes each API process keeps of per-caller problem tables (the problem list with the caller's own
   * results): two thirds for their JSON (2.3 MB each for 10,000 problems), a third for their compressed
   * bodies (~90 KB each). 0 makes every such answer again.
   */
  readonly problemTableCacheBytes: number;
}

/** What the public API's modules are given: the event-sourcing core, file storage and settings. */
export interface ApiDependencies {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly projections: ProjectionRunner;
  readonly objects: ObjectStore;
  readonly logger: Logger;
  readonly settings: ApiSettings;
  /** Whether a signed access token's session still stands (role, logout, password), per request. */
  readonly sessions: SessionGuard;
  /** Keeps the rate-limit counters, shared by every API node (REDIS_URL); without it each process counts alone. */
  readonly redis?: Redis;
  /** Who is connected to the realtime channel (GET /user/online); absent: nobody is. */
  readonly presence?: Presence;
  /** Present when projections read Kafka (scaled): the status page reports their consumer lag through it. */
  readonly kafka?: KafkaTransport;
}

export const DEFAULT_API_SETTINGS: Omit<ApiSettings, 'jwtSecret'> = {
  offline: false,
  accessTokenTtlSeconds: 15 * 60,
  refreshTokenTtlSeconds: 7 * 24 * 60 * 60,
  cookieSecure: false,
  refreshCookiePath: '/api/auth',
  corsOrigins: [],
  submissionMaxBytes: 10 * 1024,
  problemFileMaxBytes: 64 * 1024 * 1024,
  readYourWritesTimeoutMs: 2_000,
  rateLimits: {
    login: { max: 100, windowMs: 60_000 },
    loginPerAccount: { max: 10, windowMs: 60_000 },
    register: { max: 30, windowMs: 60_000 },
    submit: { max: 30, windowMs: 60_000 },
    accountEdit: { max: 10, windowMs: 60_000 },
  },
  trustProxy: false,
  scoreboardCacheSize: 8,
  problemTableCacheBytes: 192 * 1024 * 1024,
};
