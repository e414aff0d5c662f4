/**
 * One-row "version" tables: the log position of the last event that changed a read model, which a cache of
 * its reads is keyed by (GET /problem's table). Deterministic (a rebuild from the log, whatever its batches,
 * ends at the same position) and never moved back by a redelivered event.
 *
 * The version is moved in the same statement as the change (a data-modifying WITH), so keeping it costs no
 * round trip of its own. Measured: the same row rewritten by each change of a batch (up to 500 in one
 * transaction) costs no more than once per batch would at this size; the round trips were what cost.
 */
import type { FragmentSqlToken, IdentifierSqlToken } from 'slonik';
import { sql, type DatabaseTransactionConnection } from '@otog/platform/db/pool';

/** Creates the table with position 0 (setup; may run more than once). */
export async function setUpVersionTable(tx: DatabaseTransactionConnection, table: IdentifierSqlToken): Promise<void> {
  await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${table} (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    position bigint  NOT NULL)`);
  await tx.query(sql.unsafe`INSERT INTO ${table} (position) VALUES (0) ON CONFLICT DO NOTHING`);
}

/** The UPDATE (to end a WITH) that records `gpos` as the version when `changed` (a WITH query's name) has a row. */
export function moveVersion(table: IdentifierSqlToken, gpos: bigint, changed: IdentifierSqlToken): FragmentSqlToken {
  return sql.fragment`UPDATE ${table} SET position = ${gpos.toString()}::bigint
    WHERE position < ${gpos.toString()}::bigint AND EXISTS (SELECT 1 FROM ${changed})`;
}

/** One statement: `write` (an INSERT, UPDATE or DELETE with a RETURNING list), and the version moved when it returned a row. */
export async function writeAndMoveVersion(
  tx: DatabaseTransactionConnection,
  table: IdentifierSqlToken,
  gpos: bigint,
  write: FragmentSqlToken,
): Promise<void> {
  await tx.query(sql.unsafe`WITH changed AS (${write}) ${moveVersion(table, gpos, sql.identifier(['changed']))}`);
}
