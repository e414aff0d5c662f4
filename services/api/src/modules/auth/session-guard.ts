/**
 * Whether an access token's session still stands, checked on every request: the account exists with the
 * token's role, and the token's session (its refresh-token family) is not revoked. A signature alone would
 * keep a demoted admin an admin, and a logged-out or password-reset session alive, until the token expires.
 *
 * The answer is cached per session for a few seconds. Every change that can end a session announces itself
 * with a NOTIFY in its own transaction (delivered on commit to every API node); the node that made the
 * change also forgets at once after its commit. The TTL only bounds a notification lost with a connection.
 */
import { z } from 'zod';
import { RoleSchema, type Role } from '@otog/schemas/api/contract';
import type { NotificationListener } from '@otog/platform/db/listen';
import { sql, type Queryable } from '@otog/platform/db/pool';

export const SESSION_CHANNEL = 'otog_sessions';

/** All sessions of a user (role or password changed, account removed), or one session (logout, reuse). */
export type SessionChange = { readonly userId: number } | { readonly familyId: string };

const encode = (change: SessionChange) => ('userId' in change ? `user:${change.userId}` : `family:${change.familyId}`);

function decode(payload: string): SessionChange | null {
  const [kind, value = ''] = payload.split(':', 2);
  if (kind === 'user' && /^\d+$/.test(value)) return { userId: Number(value) };
  if (kind === 'family' && value) return { familyId: value };
  return null;
}

/** Tells every API node, when the caller's transaction commits, that these sessions changed. */
export async function announceSessionChange(db: Queryable, change: SessionChange): Promise<void> {
  await db.query(sql.unsafe`SELECT pg_notify(${SESSION_CHANNEL}, ${encode(change)})`);
}

/** What a token claims: who, with which role, in which session. */
export interface SessionClaims {
  readonly id: number;
  readonly role: Role;
  readonly sid: string;
}

export interface SessionGuard {
  isCurrent(claims: SessionClaims): Promise<boolean>;
  /** The sids of `claims` whose sessions still stand, in one query (long-lived connections checked in bulk). */
  standing(claims: readonly SessionClaims[]): Promise<Set<string>>;
  /** After a change committed on this node: drop what is cached about it now (others hear the NOTIFY). */
  forget(change: SessionChange): void;
  /** Calls `listener` with every change this node learns of (its own and other nodes'); returns the unsubscribe. */
  onChange(listener: (change: SessionChange) => void): () => void;
  close(): void;
}

interface SessionState {
  readonly userId: number;
  /** null: no such account any more. */
  readonly role: Role | null;
  readonly active: boolean;
  readonly fetchedAt: number;
}

const MAX_ENTRIES = 100_000;
/** A session family that stands, with its account's current role. */
const StandingRow = z.object({ sid: z.string(), id: z.number().int(), role: RoleSchema });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createSessionGuard(options: { pool: Queryable; listener: NotificationListener; ttlMs?: number }): SessionGuard {
  const ttlMs = options.ttlMs ?? 5_000;
  const cache = new Map<string, SessionState>();
  // Bumped by every forget: a lookup that started before a change must not cache what it read.
  let epoch = 0;
  const listeners = new Set<(change: SessionChange) => void>();

  const forget = (change: SessionChange) => {
    epoch += 1;
    if ('familyId' in change) cache.delete(change.familyId);
    else for (const [sid, state] of cache) if (state.userId === change.userId) cache.delete(sid);
    for (const listener of listeners) listener(change);
  };
  const unsubscribe = options.listener.on(SESSION_CHANNEL, (payload) => {
    const change = decode(payload);
    if (change) forget(change);
  });

  const load = async (claims: SessionClaims): Promise<SessionState> => {
    const row = (await options.pool.maybeOne(sql.unsafe`
      SELECT a.role,
             EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.family_id = ${claims.sid} AND t.user_id = a.id AND t.revoked_at IS NULL) AS active
      FROM accounts a WHERE a.id = ${claims.id}`)) as { role: Role; active: boolean } | null;
    return { userId: claims.id, role: row?.role ?? null, active: row?.active ?? false, fetchedAt: Date.now() };
  };

  return {
    async isCurrent(claims) {
      if (!UUID.test(claims.sid)) return false;
      let state = cache.get(claims.sid);
      if (!state || state.userId !== claims.id || Date.now() - state.fetchedAt > ttlMs) {
        const started = epoch;
        state = await load(claims);
        if (started === epoch) {
          if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
          cache.set(claims.sid, state);
        }
      }
      return state.active && state.role === claims.role;
    },
    async standing(claims) {
      const valid = claims.filter((claim) => UUID.test(claim.sid));
      if (valid.length === 0) return new Set();
      const rows = await options.pool.any(sql.type(StandingRow)`
        SELECT DISTINCT t.family_id::text AS sid, a.id, a.role
        FROM refresh_tokens t JOIN accounts a ON a.id = t.user_id
        WHERE t.family_id = ANY(${sql.array(valid.map((claim) => claim.sid), 'uuid')}) AND t.revoked_at IS NULL`);
      const active = new Map(rows.map((row) => [row.sid, row]));
      const stands = (claim: SessionClaims) => {
        const row = active.get(claim.sid.toLowerCase());
        return row?.id === claim.id && row.role === claim.role;
      };
      return new Set(valid.filter(stands).map((claim) => claim.sid));
    },
    forget,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: unsubscribe,
  };
}
