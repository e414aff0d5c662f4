/**
 * Judge workers' bearer tokens: 256 random bits, shown once when made, stored only as sha256 (a plain
 * hash suffices for a random secret of that size), compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql, type Queryable } from '@otog/platform/db/pool';
import { ClaimRequestSchema } from '@otog/schemas/api/judge-internal';

const TOKEN_PREFIX = 'otogw_';
/** The prefix and 43 base64url characters (32 bytes). */
const TOKEN_FORMAT = /^otogw_[A-Za-z0-9_-]{43}$/;

/** The name of the worker `npm start` runs beside the API; its token is replaced at every start. */
export const LOCAL_WORKER = 'local';

export class WorkerNameError extends Error {
  constructor(name: string) {
    super(`invalid worker name "${name.slice(0, 120)}": letters, digits and _.:- (at most 100), starting with a letter or digit`);
    this.name = 'WorkerNameError';
  }
}

export function isWorkerName(name: string): boolean {
  return ClaimRequestSchema.shape.worker.safeParse(name).success;
}

function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export interface WorkerInfo {
  readonly name: string;
  readonly state: 'active' | 'revoked';
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

/**
 * Makes a worker and returns its token (the only time it exists in plain text). With `rotate`, an existing
 * worker (revoked or not) gets a new token and is active again; without it an existing name is refused.
 */
export async function addWorker(db: Queryable, name: string, options: { rotate?: boolean } = {}): Promise<string> {
  if (!isWorkerName(name)) throw new WorkerNameError(name);
  const token = newToken();
  const hash = sha256(token);
  const row = await db.maybeOne(sql.unsafe`
    INSERT INTO judge_workers (name, token_sha256) VALUES (${name}, ${sql.binary(hash)})
    ON CONFLICT (name) DO ${
      options.rotate
        ? sql.fragment`UPDATE SET token_sha256 = excluded.token_sha256, revoked_at = NULL, created_at = now()`
        : sql.fragment`NOTHING`
    }
    RETURNING name`);
  if (!row) throw new Error(`judge worker "${name}" already exists (revoke it, or add it again with --rotate for a new token)`);
  return token;
}

/** The built-in worker of `npm start`: a fresh token at every start, so none outlives the process that uses it. */
export function rotateLocalWorkerToken(db: Queryable): Promise<string> {
  return addWorker(db, LOCAL_WORKER, { rotate: true });
}

/** Returns false when there is no active worker of that name. */
export async function revokeWorker(db: Queryable, name: string): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    UPDATE judge_workers SET revoked_at = now() WHERE name = ${name} AND revoked_at IS NULL`);
  return result.rowCount === 1;
}

export async function listWorkers(db: Queryable): Promise<WorkerInfo[]> {
  const rows = (await db.any(sql.unsafe`
    SELECT name, created_at, revoked_at FROM judge_workers ORDER BY name`)) as ReadonlyArray<{
    name: string;
    created_at: string;
    revoked_at: string | null;
  }>;
  return rows.map((row) => ({
    name: row.name,
    state: row.revoked_at === null ? 'active' : 'revoked',
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }));
}

/**
 * The active worker a bearer token belongs to, or null. The presented token's hash is compared with every
 * active worker's in constant time, without stopping at a match (worker counts are small).
 */
export async function authenticateWorker(db: Queryable, token: string): Promise<string | null> {
  if (!TOKEN_FORMAT.test(token)) return null;
  const presented = sha256(token);
  const rows = (await db.any(sql.unsafe`
    SELECT name, token_sha256 FROM judge_workers WHERE revoked_at IS NULL`)) as ReadonlyArray<{ name: string; token_sha256: Buffer }>;
  let found: string | null = null;
  for (const row of rows) {
    if (row.token_sha256.length === presented.length && timingSafeEqual(row.token_sha256, presented)) found = row.name;
  }
  return found;
}
