/**
 * Accounts: the command-side identity rows (credentials never enter the log), each change appended as a
 * User* event in the same transaction so consumers of the log see every user.
 */
import { sql, type DatabasePool, type DatabaseTransactionConnection, type Queryable } from '@otog/platform/db/pool';
import { runCommand } from '@otog/platform/eventstore/command';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import { ratingColumn } from '@otog/projections/ratings/ratings.queries';
import { likeContains } from '@otog/projections/search';
import type { Role, UserSummary } from '@otog/schemas/api/contract';
import { conflict, isUniqueViolation, notFound } from '../../http/errors.ts';
import { hashPassword } from '../auth/passwords.ts';
import { revokeAllOfUser } from '../auth/refresh-tokens.ts';
import { announceSessionChange, type SessionGuard } from '../auth/session-guard.ts';
import { userDecider, userStream, type UserCommand } from './user-decider.ts';

export interface AccountRow {
  readonly id: number;
  readonly username: string;
  readonly showName: string;
  readonly role: Role;
  readonly rating: number | null;
  readonly passwordHash: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

type Fragment = ReturnType<typeof sql.fragment>;

/** A user summary's columns; `rating` is the user's current rating from the ratings read model. */
const summaryColumns = (rating: Fragment) => sql.fragment`id, username, show_name AS "showName", role, ${rating} AS rating`;
const accountColumns = (rating: Fragment) =>
  sql.fragment`${summaryColumns(rating)}, password_hash AS "passwordHash", created_at AS "createdAt", updated_at AS "updatedAt"`;
const ratedAccountColumns = async (db: Queryable) => accountColumns(await ratingColumn(db, 'accounts'));

type AccountDeps = { readonly pool: DatabasePool; readonly store: EventStore };
/** Changes that can end sessions also drop this node's cached view of them once committed. */
type SessionEndingDeps = AccountDeps & { readonly sessions: Pick<SessionGuard, 'forget'> };

/** What other resources embed: never the hash. */
export function toSummary(row: Pick<AccountRow, 'id' | 'username' | 'showName' | 'role' | 'rating'>): UserSummary {
  return { id: row.id, username: row.username, showName: row.showName, role: row.role, rating: row.rating };
}

/** OTOG's 409 messages for a taken name. */
export function nameTaken(error: unknown): never {
  if (isUniqueViolation(error, 'accounts_username') || isUniqueViolation(error, 'accounts_username_any_case')) throw conflict('username was taken.');
  if (isUniqueViolation(error, 'accounts_show_name')) throw conflict('showName was taken.');
  throw error;
}

/**
 * Runs a user command through the decider; `write` changes the accounts row in the append's transaction
 * (it must find the row: a user stream without one is refused) and its result is returned.
 */
async function runUserCommand<T>(
  deps: AccountDeps,
  command: UserCommand,
  actor: number,
  write: (tx: DatabaseTransactionConnection) => Promise<T | null>,
): Promise<T> {
  let written: T | null = null;
  await runCommand(deps.store, userStream(command.userId), userDecider, command, {
    meta: { actor },
    withinTransaction: async (tx) => {
      written = await write(tx);
      if (written === null) throw notFound('Not Found');
    },
  });
  return written!;
}

/** The insert and its UserRegistered, inside a transaction the caller owns (seeding checks emptiness in it). */
export async function insertAccount(
  deps: Pick<AccountDeps, 'store'>,
  tx: DatabaseTransactionConnection,
  input: { username: string; showName: string; passwordHash: string; role: Role; actor?: number },
): Promise<AccountRow> {
  const row = (await tx.one(sql.unsafe`
    INSERT INTO accounts (username, show_name, password_hash, role)
    VALUES (${input.username}, ${input.showName}, ${input.passwordHash}, ${input.role})
    RETURNING ${accountColumns(sql.fragment`NULL::integer`)}`)) as AccountRow;
  // A new id from the sequence: nothing to load. Self-registration: the new user is the actor.
  const events = userDecider.decide({ kind: 'register', userId: row.id, username: row.username, showName: row.showName, role: row.role }, null);
  const meta = { actor: input.actor ?? row.id };
  await deps.store.appendInTransaction(tx, userStream(row.id), events.map((event) => ({ ...event, meta })), { expectedVersion: 'none' });
  return row;
}

export async function createAccount(
  deps: AccountDeps,
  input: { username: string; showName: string; password: string; role: Role; actor?: number },
): Promise<AccountRow> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await deps.pool.transaction((tx) => insertAccount(deps, tx, { ...input, passwordHash }));
  } catch (error) {
    return nameTaken(error);
  }
}

export async function findAccount(pool: Queryable, by: { id: number } | { username: string }): Promise<AccountRow | null> {
  const where = 'id' in by ? sql.fragment`id = ${by.id}` : sql.fragment`username = ${by.username}`;
  return (await pool.maybeOne(sql.unsafe`SELECT ${await ratedAccountColumns(pool)} FROM accounts WHERE ${where}`)) as AccountRow | null;
}

/** The summaries of the given users that exist (scoreboards and prizes name their users), by id. */
export async function summariesOf(pool: Queryable, userIds: readonly number[]): Promise<Map<number, UserSummary>> {
  const rows = (await pool.any(sql.unsafe`
    SELECT ${summaryColumns(await ratingColumn(pool, 'accounts'))} FROM accounts WHERE id = ANY(${sql.array([...userIds], 'int4')})`)) as readonly UserSummary[];
  return new Map(rows.map((row) => [row.id, toSummary(row)]));
}

export async function countAccounts(pool: Queryable): Promise<number> {
  return Number(await pool.oneFirst(sql.unsafe`SELECT count(*) FROM accounts`));
}

const INT4_MAX = 2_147_483_647;

/** The admin table: an all-digit search also matches that id exactly; names match as substrings, any case. */
export async function listAccounts(
  pool: Queryable,
  query: { limit: number; skip: number; search?: string | undefined },
): Promise<{ data: UserSummary[]; total: number }> {
  const search = query.search?.trim() ?? '';
  const conditions = [];
  if (search !== '') {
    const pattern = likeContains(search);
    conditions.push(sql.fragment`username ILIKE ${pattern}`, sql.fragment`show_name ILIKE ${pattern}`);
    if (/^\d{1,10}$/.test(search) && Number(search) <= INT4_MAX) conditions.push(sql.fragment`id = ${Number(search)}`);
  }
  const where = conditions.length ? sql.fragment`WHERE ${sql.join(conditions, sql.fragment` OR `)}` : sql.fragment``;
  const rows = (await pool.any(sql.unsafe`
    SELECT ${summaryColumns(await ratingColumn(pool, 'accounts'))}, count(*) OVER () AS total FROM accounts ${where}
    ORDER BY id DESC LIMIT ${query.limit} OFFSET ${query.skip}`)) as ReadonlyArray<UserSummary & { total: bigint }>;
  // A page past the end has no rows to carry the window count: count separately then.
  const total = rows[0] ? Number(rows[0].total) : Number(await pool.oneFirst(sql.unsafe`SELECT count(*) FROM accounts ${where}`));
  return { data: rows.map(toSummary), total };
}

/** The admin's field edit (PUT without a password); a 404 when there is no such user. A new role applies to the user's next request. */
export async function updateAccount(
  deps: SessionEndingDeps,
  userId: number,
  fields: { username: string; showName: string; role: Role },
  actor: number,
): Promise<AccountRow> {
  let row: AccountRow;
  try {
    row = await runUserCommand(deps, { kind: 'update', userId, ...fields }, actor, async (tx) => {
      await announceSessionChange(tx, { userId });
      return (await tx.maybeOne(sql.unsafe`
        UPDATE accounts SET username = ${fields.username}, show_name = ${fields.showName}, role = ${fields.role}, updated_at = now()
        WHERE id = ${userId} RETURNING ${await ratedAccountColumns(tx)}`)) as AccountRow | null;
    });
  } catch (error) {
    return nameTaken(error);
  }
  deps.sessions.forget({ userId });
  return row;
}

/** A new password set by an admin: every session of the user ends with the old password. */
export async function changePassword(deps: SessionEndingDeps, userId: number, password: string, actor: number): Promise<AccountRow> {
  const passwordHash = await hashPassword(password);
  const row = await runUserCommand(deps, { kind: 'changePassword', userId, changedBy: actor }, actor, async (tx) => {
    await revokeAllOfUser(tx, userId, 'password-changed');
    return (await tx.maybeOne(sql.unsafe`
      UPDATE accounts SET password_hash = ${passwordHash}, updated_at = now()
      WHERE id = ${userId} RETURNING ${await ratedAccountColumns(tx)}`)) as AccountRow | null;
  });
  deps.sessions.forget({ userId });
  return row;
}

export async function changeShowName(deps: AccountDeps, userId: number, showName: string, actor: number): Promise<AccountRow> {
  try {
    return await runUserCommand(deps, { kind: 'changeShowName', userId, showName }, actor, async (tx) =>
      (await tx.maybeOne(sql.unsafe`
        UPDATE accounts SET show_name = ${showName}, updated_at = now() WHERE id = ${userId} RETURNING ${await ratedAccountColumns(tx)}`)) as AccountRow | null,
    );
  } catch (error) {
    return nameTaken(error);
  }
}

export interface AvatarHashes {
  readonly large: string;
  readonly small: string;
}

/** Records the stored JPEGs of a user's avatar; a 404 when there is no such user. */
export async function setAvatar(deps: AccountDeps, userId: number, hashes: AvatarHashes, actor: number): Promise<void> {
  await runUserCommand(deps, { kind: 'setAvatar', userId, largeHash: hashes.large, smallHash: hashes.small }, actor, async (tx) =>
    tx.maybeOneFirst(sql.unsafe`
      UPDATE accounts SET avatar_large = ${hashes.large}, avatar_small = ${hashes.small}, updated_at = now() WHERE id = ${userId} RETURNING id`),
  );
}

/** Which of these stored files no account's avatar uses any more (files are shared by content). */
export async function unusedAvatarFiles(pool: Queryable, hashes: readonly string[]): Promise<string[]> {
  if (hashes.length === 0) return [];
  const used = (await pool.anyFirst(sql.unsafe`
    SELECT h FROM unnest(${sql.array([...hashes], 'text')}) AS h
    WHERE EXISTS (SELECT 1 FROM accounts WHERE avatar_large = h OR avatar_small = h)`)) as readonly string[];
  return hashes.filter((hash) => !used.includes(hash));
}

/** The stored avatar of a user, or null when the user has none (or does not exist). */
export async function findAvatar(pool: Queryable, userId: number): Promise<AvatarHashes | null> {
  const row = (await pool.maybeOne(sql.unsafe`
    SELECT avatar_large AS large, avatar_small AS small FROM accounts WHERE id = ${userId} AND avatar_large IS NOT NULL AND avatar_small IS NOT NULL`)) as AvatarHashes | null;
  return row;
}
