import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, port, postgresUrl } from '@otog/platform/config/define-config';
import { readApiConfig, repoRoot } from '@otog/api/config';
import { jwtSecretFor } from '@otog/api/api-settings';

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseConfig', () => {
  const shape = { NAME: z.string(), PORT: port, DATABASE_URL: postgresUrl };

  it('reports every problem at once, telling missing from invalid', () => {
    const problems = problemsOf(() => parseConfig(shape, { PORT: 'abc', DATABASE_URL: 'mysql://x' }));
    expect(problems).toHaveLength(3);
    expect(problems).toContain('NAME: is required but not set');
    expect(problems.find((p) => p.startsWith('PORT: '))).not.toContain('required');
    expect(problems).toContain('DATABASE_URL: must use the postgres:// scheme, got "mysql:"');
  });

  it('names the variable in the error message', () => {
    expect(() => parseConfig(shape, { NAME: 'x', PORT: '99999', DATABASE_URL: 'postgres://h/db' })).toThrow(/PORT:/);
    expect(() => parseConfig(shape, { NAME: 'x', PORT: '1', DATABASE_URL: 'nonsense' })).toThrow(/DATABASE_URL: is not a valid URL/);
  });

  it('returns typed values', () => {
    expect(parseConfig(shape, { NAME: 'x', PORT: '8080', DATABASE_URL: 'postgres://u:p@h:5432/db' })).toEqual({
      NAME: 'x',
      PORT: 8080,
      DATABASE_URL: 'postgres://u:p@h:5432/db',
    });
  });
});

describe('the API process config', () => {
  it('has defaults for everything', () => {
    expect(readApiConfig({})).toEqual({
      OTOG_ROLES: ['api', 'projector', 'relay', 'judge-queue'],
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      PORT: 3000,
      HOST: '127.0.0.1',
      OTOG_STOP_WITH_STDIN: false,
      DATABASE_URL: undefined,
      OTOG_DATA_DIR: join(repoRoot, 'data'),
      LOG_LEVEL: 'info',
      OTOG_LOCAL_JUDGE_SLOTS: 1,
      OTOG_SANDBOX: undefined,
      KAFKA_BROKERS: undefined,
      OTOG_PROJECTION_SOURCE: 'log',
      KAFKA_SESSION_TIMEOUT_MS: 10_000,
      REDIS_URL: undefined,
      JUDGE_LEASE_SECONDS: 60,
      JUDGE_MAX_ATTEMPTS: 3,
      OFFLINE_MODE: false,
      WEB_SESSION_POLL_SECONDS: 0,
      JWT_SECRET: undefined,
      ACCESS_TOKEN_TTL_SECONDS: 900,
      REFRESH_TOKEN_TTL_SECONDS: 604_800,
      COOKIE_SECURE: false,
      COOKIE_DOMAIN: undefined,
      REFRESH_COOKIE_PATH: '/api/auth',
      CORS_ORIGINS: undefined,
      SUBMISSION_MAX_BYTES: 10_240,
      SCOREBOARD_CACHE_SIZE: 8,
      PROBLEM_TABLE_CACHE_MB: 192,
      OTOG_ADMIN_USERNAME: 'admin',
      OTOG_ADMIN_PASSWORD: undefined,
      OTOG_S3_BUCKET: undefined,
      OTOG_S3_ENDPOINT: undefined,
      OTOG_S3_REGION: 'us-east-1',
      OTOG_S3_ACCESS_KEY_ID: undefined,
      OTOG_S3_SECRET_ACCESS_KEY: undefined,
      OTOG_S3_PREFIX: undefined,
      OTOG_S3_FORCE_PATH_STYLE: undefined,
    });
  });

  it('reads the S3 storage settings and refuses bad or incomplete ones by name', () => {
    const s3 = {
      OTOG_S3_BUCKET: 'otog-files',
      OTOG_S3_ENDPOINT: 'http://minio:9000',
      OTOG_S3_REGION: 'ap-southeast-1',
      OTOG_S3_ACCESS_KEY_ID: 'AKIA0',
      OTOG_S3_SECRET_ACCESS_KEY: 'secret/key+0',
      OTOG_S3_PREFIX: 'prod/objects/',
      OTOG_S3_FORCE_PATH_STYLE: 'false',
    };
    expect(readApiConfig(s3)).toMatchObject({ ...s3, OTOG_S3_FORCE_PATH_STYLE: false });
    expect(readApiConfig({ OTOG_S3_BUCKET: 'b.example' })).toMatchObject({ OTOG_S3_BUCKET: 'b.example', OTOG_S3_REGION: 'us-east-1' });
    const named = (env: Record<string, string>) => problemsOf(() => readApiConfig(env)).map((p) => p.split(':')[0]);
    expect(named({ OTOG_S3_BUCKET: 'Not_A_Bucket', OTOG_S3_ENDPOINT: 'ftp://minio', OTOG_S3_PREFIX: '/abs', OTOG_S3_FORCE_PATH_STYLE: 'yes' })).toEqual([
      'OTOG_S3_BUCKET',
      'OTOG_S3_ENDPOINT',
      'OTOG_S3_PREFIX',
      'OTOG_S3_FORCE_PATH_STYLE',
    ]);
    expect(problemsOf(() => readApiConfig({ OTOG_S3_BUCKET: 'otog-files', OTOG_S3_ENDPOINT: 'http://key:secret@minio:9000' }))).toContain(
      'OTOG_S3_ENDPOINT: must not carry credentials: use OTOG_S3_ACCESS_KEY_ID and OTOG_S3_SECRET_ACCESS_KEY',
    );
    // A key without its secret (or the other way round) names both.
    expect(problemsOf(() => readApiConfig({ OTOG_S3_BUCKET: 'otog-files', OTOG_S3_ACCESS_KEY_ID: 'AKIA0' }))).toEqual([
      'OTOG_S3_ACCESS_KEY_ID, OTOG_S3_SECRET_ACCESS_KEY: set both or neither',
    ]);
    expect(problemsOf(() => readApiConfig({ OTOG_S3_BUCKET: 'otog-files', OTOG_S3_SECRET_ACCESS_KEY: 's' }))).toEqual([
      'OTOG_S3_ACCESS_KEY_ID, OTOG_S3_SECRET_ACCESS_KEY: set both or neither',
    ]);
    // The details without a bucket would silently keep the files on local disk.
    expect(problemsOf(() => readApiConfig({ OTOG_S3_ENDPOINT: 'http://minio:9000', OTOG_S3_REGION: 'eu-west-1' }))).toEqual([
      'OTOG_S3_ENDPOINT: is set but OTOG_S3_BUCKET is not (S3 storage is used only with a bucket)',
      'OTOG_S3_REGION: is set but OTOG_S3_BUCKET is not (S3 storage is used only with a bucket)',
    ]);
  });

  it('reads the public API settings and refuses weak or malformed ones by name', () => {
    const config = readApiConfig({ OFFLINE_MODE: 'true', COOKIE_SECURE: '1', JWT_SECRET: 'x'.repeat(32), SUBMISSION_MAX_BYTES: '20000', SCOREBOARD_CACHE_SIZE: '0', PROBLEM_TABLE_CACHE_MB: '0' });
    expect(config).toMatchObject({ OFFLINE_MODE: true, COOKIE_SECURE: true, JWT_SECRET: 'x'.repeat(32), SUBMISSION_MAX_BYTES: 20_000, SCOREBOARD_CACHE_SIZE: 0, PROBLEM_TABLE_CACHE_MB: 0 });
    const problems = problemsOf(() => readApiConfig({ OFFLINE_MODE: 'yes', JWT_SECRET: 'short', SCOREBOARD_CACHE_SIZE: '-1', PROBLEM_TABLE_CACHE_MB: '1.5', OTOG_ADMIN_PASSWORD: 'abc' }));
    expect(problems.map((p) => p.split(':')[0])).toEqual(['OFFLINE_MODE', 'JWT_SECRET', 'SCOREBOARD_CACHE_SIZE', 'PROBLEM_TABLE_CACHE_MB', 'OTOG_ADMIN_PASSWORD']);
  });

  it('reads TRUST_PROXY as true, false or the proxies to believe; unset believes none', () => {
    expect(readApiConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(readApiConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(readApiConfig({ TRUST_PROXY: '10.0.0.0/8,loopback' }).TRUST_PROXY).toBe('10.0.0.0/8,loopback');
    expect(readApiConfig({}).TRUST_PROXY).toBeUndefined();
    expect(problemsOf(() => readApiConfig({ TRUST_PROXY: ' ' }))).toEqual([expect.stringMatching(/^TRUST_PROXY: /)]);
  });

  it('reads the cross-origin settings: allowed origins, the cookie domain and the refresh cookie path', () => {
    const config = readApiConfig({ CORS_ORIGINS: ' https://otog.in.th, http://localhost:3000 ,', COOKIE_DOMAIN: 'otog.in.th', REFRESH_COOKIE_PATH: '/auth' });
    expect(config).toMatchObject({ CORS_ORIGINS: ['https://otog.in.th', 'http://localhost:3000'], COOKIE_DOMAIN: 'otog.in.th', REFRESH_COOKIE_PATH: '/auth' });
    const problems = problemsOf(() => readApiConfig({ CORS_ORIGINS: 'otog.in.th,https://ok.example/path', COOKIE_DOMAIN: 'a b', REFRESH_COOKIE_PATH: 'auth' }));
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['COOKIE_DOMAIN', 'CORS_ORIGINS', 'CORS_ORIGINS', 'REFRESH_COOKIE_PATH']);
  });

  it('keeps a generated JWT secret in the data directory, readable by the owner only', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'otog-secret-'));
    try {
      const first = jwtSecretFor({ OTOG_DATA_DIR: dataDir, JWT_SECRET: undefined });
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(jwtSecretFor({ OTOG_DATA_DIR: dataDir, JWT_SECRET: undefined })).toBe(first);
      expect(statSync(join(dataDir, 'secrets/jwt-secret')).mode & 0o777).toBe(0o600);
      expect(jwtSecretFor({ OTOG_DATA_DIR: dataDir, JWT_SECRET: 'y'.repeat(40) })).toBe('y'.repeat(40));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('reads KAFKA_BROKERS as a host:port list', () => {
    expect(readApiConfig({ KAFKA_BROKERS: 'k1:9092,10.0.0.2:9093' }).KAFKA_BROKERS).toEqual(['k1:9092', '10.0.0.2:9093']);
    for (const bad of ['k1', 'k1:9092,', 'k1:x', 'k1:9092 k2:9092']) {
      expect(problemsOf(() => readApiConfig({ KAFKA_BROKERS: bad }))).toEqual(['KAFKA_BROKERS: must be a comma-separated list of host:port']);
    }
  });

  it('reads OTOG_ROLES as a subset of the roles, in a fixed order and each once', () => {
    const db = { DATABASE_URL: 'postgres://u:p@h:5432/db' };
    expect(readApiConfig({ ...db, OTOG_ROLES: 'api' }).OTOG_ROLES).toEqual(['api']);
    expect(readApiConfig({ ...db, OTOG_ROLES: ' judge-queue , projector,projector' }).OTOG_ROLES).toEqual(['projector', 'judge-queue']);
    expect(readApiConfig({ ...db, OTOG_ROLES: 'relay', KAFKA_BROKERS: 'k1:9092' }).OTOG_ROLES).toEqual(['relay']);
    // Every role named explicitly is the single-machine default: the embedded Postgres is fine.
    expect(readApiConfig({ OTOG_ROLES: 'judge-queue,relay,projector,api', KAFKA_BROKERS: 'k1:9092' }).OTOG_ROLES).toEqual(['api', 'projector', 'relay', 'judge-queue']);
  });

  it('refuses bad OTOG_ROLES by name', () => {
    const db = { DATABASE_URL: 'postgres://u:p@h:5432/db' };
    expect(problemsOf(() => readApiConfig({ ...db, OTOG_ROLES: 'api,web' }))).toEqual([
      'OTOG_ROLES: unknown role "web"; use a comma-separated subset of api, projector, relay, judge-queue',
    ]);
    expect(problemsOf(() => readApiConfig({ ...db, OTOG_ROLES: 'api,' }))).toEqual([
      'OTOG_ROLES: unknown role ""; use a comma-separated subset of api, projector, relay, judge-queue',
    ]);
    expect(problemsOf(() => readApiConfig({ ...db, OTOG_ROLES: ' ' }))).toEqual(['OTOG_ROLES: must name at least one of api, projector, relay, judge-queue']);
    expect(problemsOf(() => readApiConfig({ ...db, OTOG_ROLES: 'API' }))[0]).toMatch(/^OTOG_ROLES: unknown role "API"/);
    // Asking for the relay without brokers is a mistake; the default set relays only when KAFKA_BROKERS is set.
    expect(problemsOf(() => readApiConfig({ ...db, OTOG_ROLES: 'projector,relay' }))).toEqual(['OTOG_ROLES: the relay role needs KAFKA_BROKERS']);
    expect(readApiConfig(db).KAFKA_BROKERS).toBeUndefined();
    // Projections read Kafka only where there is a Kafka; a real broker refuses sessions under its minimum.
    expect(problemsOf(() => readApiConfig({ ...db, OTOG_PROJECTION_SOURCE: 'kafka' }))).toEqual(['OTOG_PROJECTION_SOURCE: kafka needs KAFKA_BROKERS']);
    expect(problemsOf(() => readApiConfig({ ...db, OTOG_PROJECTION_SOURCE: 'Kafka' }))[0]).toMatch(/^OTOG_PROJECTION_SOURCE: /);
    expect(readApiConfig({ ...db, KAFKA_BROKERS: 'k:9092', OTOG_PROJECTION_SOURCE: 'kafka', KAFKA_SESSION_TIMEOUT_MS: '2500' })).toMatchObject({
      OTOG_PROJECTION_SOURCE: 'kafka',
      KAFKA_SESSION_TIMEOUT_MS: 2_500,
    });
    expect(problemsOf(() => readApiConfig({ ...db, KAFKA_SESSION_TIMEOUT_MS: '5s' }))[0]).toMatch(/^KAFKA_SESSION_TIMEOUT_MS: /);
    // Split roles share a real database: the embedded Postgres serves one process.
    expect(problemsOf(() => readApiConfig({ OTOG_ROLES: 'api' }))).toEqual([
      'OTOG_ROLES: running only some roles needs DATABASE_URL (the embedded Postgres serves a single process)',
    ]);
  });

  it('reads REDIS_URL as a redis:// or rediss:// URL', () => {
    expect(readApiConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(readApiConfig({ REDIS_URL: 'rediss://:secret@cache.example:6380/2' }).REDIS_URL).toBe('rediss://:secret@cache.example:6380/2');
    expect(problemsOf(() => readApiConfig({ REDIS_URL: 'http://cache:6379' }))).toEqual(['REDIS_URL: must use the redis:// or rediss:// scheme, got "http:"']);
    expect(problemsOf(() => readApiConfig({ REDIS_URL: 'cache:6379' }))[0]).toMatch(/^REDIS_URL: /);
    expect(problemsOf(() => readApiConfig({ REDIS_URL: 'localhost' }))[0]).toMatch(/^REDIS_URL: is not a valid URL/);
  });

  it('resolves a relative data directory against the current directory', () => {
    expect(readApiConfig({ OTOG_DATA_DIR: 'some/dir' }).OTOG_DATA_DIR).toBe(resolve('some/dir'));
  });

  it('rejects bad values by name', () => {
    const problems = problemsOf(() => readApiConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', OTOG_DATA_DIR: '' }));
    expect(problems.map((p) => p.split(':')[0])).toEqual(['PORT', 'DATABASE_URL', 'OTOG_DATA_DIR', 'LOG_LEVEL']);
  });
});
