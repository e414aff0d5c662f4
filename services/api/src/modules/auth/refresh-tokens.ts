/**
 * Refresh tokens: random, single-use, rotated on every refresh within a "family" (one sign-in). Presenting a
 * token that was already used (past a few seconds' grace for racing tabs) means two parties hold it (one of
 * them stole it): the whole family is revoked, so the thief's newer token dies too. Only the sha256 of a
 * token is stored: a leaked table signs no one in.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql, type DatabasePool, type Queryable } from '@otog/platform/db/pool';
import { announceSessionChange } from './session-guard.ts';

export interface IssuedRefreshToken {
  /** The secret the client holds (the RID cookie). */
  readonly token: string;
  readonly familyId: string;
  readonly expiresAt: Date;
}

export type RevokeReason = 'logout' | 'reuse' | 'password-changed';

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** 256 random bits, URL-safe: guessing is hopeless, so the hash needs no salt. */
const newToken = () => randomBytes(32).toString('base64url');

/** A token of session `familyId` bound to the access token `jwtId`. */
export async function issueRefreshToken(
  db: Queryable,
  input: { userId: number; jwtId: string; ttlSeconds: number; familyId: string },
): Promise<IssuedRefreshToken> {
  const token = newToken();
  const { familyId } = input;
  const expiresAt = new Date(Date.now() + input.ttlSeconds * 1000);
  await db.query(sql.unsafe`
    INSERT INTO refresh_tokens (id, token_hash, family_id, user_id, jwt_id, expires_at)
    VALUES (${randomUUID()}, ${hashOf(token)}, ${familyId}, ${input.userId}, ${input.jwtId}, ${expiresAt.toISOString()})`);
  return { token, familyId, expiresAt };
}

/** Why a refresh token cannot be used. */
export type RefreshRefusal = 'unknown' | 'expired' | 'revoked' | 'reused' | 'mismatch';

export type RotationResult =
  | { readonly ok: true; readonly userId: number; readonly familyId: string }
  | { readonly ok: false; readonly refusal: RefreshRefusal };

interface TokenRow {
  readonly id: string;
  readonly familyId: string;
  readonly userId: number;
  readonly jwtId: string;
  readonly usedAt: string | null;
  /** Used less than REUSE_GRACE_SECONDS ago: a second tab or request racing the first, not a thief. */
  readonly usedJustNow: boolean;
  readonly revokedAt: string | null;
  readonly expired: boolean;
}

/**
 * Two tabs (or two requests of one page) refreshing at once present the same token. Within this many
 * seconds of its first use a token is honoured again, continuing the same session, instead of being taken
 * for a stolen one and ending the session for everyone; after it, a second use revokes the family.
 */
export const REUSE_GRACE_SECONDS = 10;

/**
 * The rule, apart from storage. Reuse is checked before everything else: a used token must revoke its family
 * whatever else is wrong with the request. A mismatching access token does not consume the refresh token.
 */
export function judgeRefresh(row: TokenRow | null, presentedJti: string | null): RefreshRefusal | null {
  if (!row) return 'unknown';
  if (row.usedAt !== null && !row.usedJustNow) return 'reused';
  if (row.revokedAt !== null) return 'revoked';
  if (row.expired) return 'expired';
  if (presentedJti !== null && presentedJti !== row.jwtId) return 'mismatch';
  return null;
}

/**
 * Marks the token used (the row is locked, so two concurrent refreshes with one token cannot both win) and
 * calls `issue` in the same transaction to create its successor; on reuse revokes the family instead.
 */
export async function consumeRefreshToken<T>(
  pool: DatabasePool,
  token: string,
  presentedJti: string | null,
  issue: (db: Queryable, consumed: { userId: number; familyId: string }) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; refusal: RefreshRefusal }> {
  return pool.transaction(async (tx) => {
    const row = (await tx.maybeOne(sql.unsafe`
      SELECT id, family_id AS "familyId", user_id AS "userId", jwt_id AS "jwtId", used_at AS "usedAt",
             used_at > now() - make_interval(secs => ${REUSE_GRACE_SECONDS}) AS "usedJustNow",
             revoked_at AS "revokedAt", expires_at <= now() AS expired
      FROM refresh_tokens WHERE token_hash = ${hashOf(token)} FOR UPDATE`)) as TokenRow | null;
    const refusal = judgeRefresh(row, presentedJti);
    if (refusal === 'reused') await revokeFamily(tx, row!.familyId, 'reuse');
    if (refusal !== null || !row) return { ok: false as const, refusal: refusal ?? 'unknown' };
    // A racing second use keeps the first use's time: the grace does not stretch.
    await tx.query(sql.unsafe`UPDATE refresh_tokens SET used_at = coalesce(used_at, now()) WHERE id = ${row.id}`);
    return { ok: true as const, value: await issue(tx, { userId: row.userId, familyId: row.familyId }) };
  });
}

/** Ends a session: its refresh tokens, and (announced to every API node) its access tokens. */
export async function revokeFamily(db: Queryable, familyId: string, reason: RevokeReason): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE refresh_tokens SET revoked_at = now(), revoked_reason = ${reason}
    WHERE family_id = ${familyId} AND revoked_at IS NULL`);
  await announceSessionChange(db, { familyId });
}

/** Logout: the session of the presented refresh token (whoever presents it could have used it anyway). */
export async function familyOf(db: Queryable, token: string): Promise<string | null> {
  return (await db.maybeOneFirst(sql.unsafe`SELECT family_id FROM refresh_tokens WHERE token_hash = ${hashOf(token)}`)) as string | null;
}

/** Every session of a user (their password changed: whoever knew the old one is signed out). */
export async function revokeAllOfUser(db: Queryable, userId: number, reason: RevokeReason): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE refresh_tokens SET revoked_at = now(), revoked_reason = ${reason}
    WHERE user_id = ${userId} AND revoked_at IS NULL`);
  await announceSessionChange(db, { userId });
}

/**
 * Forgets a user's families whose every token has expired (the table would otherwise grow forever, as
 * OTOG's does). Whole families only: a used token of a living family must stay to be recognised if replayed.
 */
export async function pruneExpiredFamilies(db: Queryable, userId: number): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM refresh_tokens WHERE user_id = ${userId} AND family_id IN (
      SELECT family_id FROM refresh_tokens WHERE user_id = ${userId} GROUP BY family_id HAVING max(expires_at) < now())`);
}
