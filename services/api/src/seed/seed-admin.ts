/**
 * The first admin of an empty database, so a fresh `npm start` can be signed in to. Idempotent: once any
 * account exists it does nothing, whatever the arguments.
 */
import { randomInt } from 'node:crypto';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import { hashPassword } from '../modules/auth/passwords.ts';
import { insertAccount } from '../modules/users/accounts.ts';

export type SeedAdminResult =
  | { readonly created: false }
  | { readonly created: true; readonly username: string; readonly password: string; readonly generated: boolean };

/** No look-alikes (0/O, 1/l/I): the generated password is read off a terminal and typed by hand. */
const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const GENERATED_LENGTH = 16;

export function generatePassword(length = GENERATED_LENGTH): string {
  return Array.from({ length }, () => ALPHABET.charAt(randomInt(ALPHABET.length))).join('');
}

/** Any fixed key: two processes starting on one empty database must not both create an admin. */
const SEED_LOCK_KEY = 0x07_06_0a_d1;

export async function seedAdmin(
  deps: { pool: DatabasePool; store: EventStore },
  options: { username: string; password?: string | undefined },
): Promise<SeedAdminResult> {
  const hasAccounts = sql.unsafe`SELECT 1 FROM accounts`;
  // Every start but the first ends here, without paying for a hash.
  if (await deps.pool.exists(hasAccounts)) return { created: false };
  const generated = options.password === undefined;
  const password = options.password ?? generatePassword();
  // Hashed outside the locked transaction: argon2id takes a while.
  const passwordHash = await hashPassword(password);
  const created = await deps.pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`);
    if (await tx.exists(hasAccounts)) return false;
    await insertAccount(deps, tx, { username: options.username, showName: options.username, passwordHash, role: 'admin' });
    return true;
  });
  return created ? { created: true, username: options.username, password, generated } : { created: false };
}
