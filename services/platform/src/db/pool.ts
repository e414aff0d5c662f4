import { createPool, sql, type DatabasePool, type DatabaseTransactionConnection, type CommonQueryMethods } from 'slonik';
import { createPgDriverFactory } from '@slonik/pg-driver';

export { sql };
export type { DatabasePool, DatabaseTransactionConnection };
/** Anything queries can run on: the pool, a connection or a transaction. */
export type Queryable = CommonQueryMethods;

/**
 * int8 arrives as bigint (positions exceed 2^53 in theory and must compare exactly);
 * timestamptz as an ISO-8601 string (what the API returns, and JSON-safe).
 */
const typeParsers = [
  { name: 'int8', parse: (value: string) => BigInt(value) },
  { name: 'xid8', parse: (value: string) => BigInt(value) },
  { name: 'timestamptz', parse: (value: string) => new Date(value).toISOString() },
];

export async function createDbPool(
  connectionUri: string,
  options: { maximumPoolSize?: number; statementTimeoutMs?: number } = {},
): Promise<DatabasePool> {
  return createPool(connectionUri, {
    driverFactory: createPgDriverFactory(),
    typeParsers,
    maximumPoolSize: options.maximumPoolSize ?? 10,
    statementTimeout: options.statementTimeoutMs ?? 60_000,
    idleInTransactionSessionTimeout: 60_000,
    captureStackTrace: false,
    // slonik's default runs DISCARD ALL on every release (10-18 % of an append, docs/perf.md). Nothing here
    // keeps session state on pooled connections: no SET, LISTEN lives on its own client, locks are xact-scoped.
    resetConnection: async () => undefined,
  });
}
