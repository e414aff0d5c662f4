import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiConfig } from './config.ts';
import { DEFAULT_API_SETTINGS, type ApiSettings } from './http/settings.ts';

/**
 * The JWT secret: JWT_SECRET when set, else one generated on first start and kept in
 * `<data dir>/secrets/jwt-secret` (0600), so sign-ins survive a restart.
 */
export function jwtSecretFor(config: Pick<ApiConfig, 'JWT_SECRET' | 'OTOG_DATA_DIR'>): string {
  if (config.JWT_SECRET) return config.JWT_SECRET;
  const dir = join(config.OTOG_DATA_DIR, 'secrets');
  const file = join(dir, 'jwt-secret');
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

export function apiSettingsFrom(config: ApiConfig): ApiSettings {
  return {
    ...DEFAULT_API_SETTINGS,
    offline: config.OFFLINE_MODE,
    jwtSecret: jwtSecretFor(config),
    accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
    cookieSecure: config.COOKIE_SECURE,
    ...(config.COOKIE_DOMAIN ? { cookieDomain: config.COOKIE_DOMAIN } : {}),
    refreshCookiePath: config.REFRESH_COOKIE_PATH,
    corsOrigins: config.CORS_ORIGINS ?? [],
    submissionMaxBytes: config.SUBMISSION_MAX_BYTES,
    trustProxy: config.TRUST_PROXY ?? false,
    scoreboardCacheSize: config.SCOREBOARD_CACHE_SIZE,
    problemTableCacheBytes: config.PROBLEM_TABLE_CACHE_MB * 1024 * 1024,
  };
}
