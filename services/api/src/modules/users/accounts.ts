/**
 * Accounts: the command-side identity rows (credentials never enter the log), each change appended as a
 * User* event in the same transaction so consumers of the log see every user.
 */
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import type { Role } from '@otog/schemas/api/contract';
import { conflict, isUniqueViolation } from '../../http/errors.ts';
import { hashPassword } from '../auth/passwords.ts';

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

export const ACCOUNT_COLUMNS = sql.fragment`id, username, show_name AS "showName", role, rating, password_hash AS "passwordHash",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** OTOG's 409 messages for a taken name. */
export function nameTaken(error: unknown): never {
  if (isUniqueViolation(error, 'accounts_username')) throw conflict('username was taken.');
  if (isUniqueViolation(error, 'accounts_show_name')) throw conflict('showName was taken.');
  throw error;
}

export async function createAccount(
  deps: { pool: DatabasePool; store: EventStore },
  input: { username: string; showName: string; password: string; role: Role },
): Promise<AccountRow> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await deps.pool.transaction(async (tx) => {
      const row = (await tx.one(sql.unsafe`
        INSERT INTO accounts (username, show_name, password_hash, role)
        VALUES (${input.username}, ${input.showName}, ${passwordHash}, ${input.role})
        RETURNING ${ACCOUNT_COLUMNS}`)) as AccountRow;
      await deps.store.appendInTransaction(
        tx,
        `user-${row.id}`,
        [{ type: 'UserRegistered', scope: `user:${row.id}`, data: { userId: row.id, username: row.username, showName: row.showName, role: row.role } }],
        { expectedVersion: 'none' },
      );
      return row;
    });
  } catch (error) {
    return nameTaken(error);
  }
}

export async function findAccount(pool: DatabasePool, by: { id: number } | { username: string }): Promise<AccountRow | null> {
  const where = 'id' in by ? sql.fragment`id = ${by.id}` : sql.fragment`username = ${by.username}`;
  return (await pool.maybeOne(sql.unsafe`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE ${where}`)) as AccountRow | null;
}

export async function countAccounts(pool: DatabasePool): Promise<number> {
  return Number(await pool.oneFirst(sql.unsafe`SELECT count(*) FROM accounts`));
}
