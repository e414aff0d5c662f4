import { pino, type Logger } from 'pino';
import { prettyStream } from './pretty.ts';

/** Paths that must never reach a log line (passwords, tokens, connection strings with credentials). */
export const redactedPaths = [
  'password',
  '*.password',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'databaseUrl',
  '*.databaseUrl',
  'DATABASE_URL',
  '*.DATABASE_URL',
  'jwtSecret',
  '*.jwtSecret',
  'JWT_SECRET',
  '*.JWT_SECRET',
  'OTOG_ADMIN_PASSWORD',
  '*.OTOG_ADMIN_PASSWORD',
  'secretAccessKey',
  '*.secretAccessKey',
  'OTOG_S3_SECRET_ACCESS_KEY',
  '*.OTOG_S3_SECRET_ACCESS_KEY',
];

export type { Logger };

/**
 * JSON lines, or readable lines when `pretty` (by default: when the destination is a terminal, so a
 * person running `npm start` reads sentences while pipes and log collectors get JSON).
 */
export function createLogger(options: { name: string; level?: string; destination?: NodeJS.WritableStream & { isTTY?: boolean }; pretty?: boolean }): Logger {
  const destination = options.destination ?? process.stdout;
  const pretty = options.pretty ?? destination.isTTY === true;
  return pino(
    { name: options.name, level: options.level ?? 'info', redact: { paths: redactedPaths, censor: '[redacted]' } },
    pretty ? prettyStream(destination) : destination,
  );
}

/** A URL with its password replaced, for messages that name a database. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable url)';
  }
}
