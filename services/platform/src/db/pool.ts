import {
  createPool,
  SchemaValidationError,
  sql,
  type CommonQueryMethods,
  type DatabasePool,
  type DatabaseTransactionConnection,
  type Interceptor,
  type QueryResultRow,
} from 'slonik';
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

/** What `sql.unsafe` queries carry as their schema: nothing to check. */
const UNTYPED = sql.unsafe``.parser;

/**
 * Checks the rows of `sql.type(schema)` queries against their zod schema and returns the parsed rows:
 * slonik carries the schema but checks nothing without such an interceptor. Synchronous, unlike the
 * transformRowAsync of slonik's example: that one queues every row of every query (the event store reads
 * thousands per batch), and zod object schemas validate synchronously.
 */
const resultParser: Interceptor = {
  name: 'result-parser',
  transformRow(context, query, row) {
    const schema = context.resultParser;
    if (!schema || schema === UNTYPED) return row;
    const result = schema['~standard'].validate(row);
    if (result instanceof Promise) throw new TypeError('sql.type needs a schema that validates synchronously');
    if (result.issues) throw new SchemaValidationError(query, row, result.issues);
    // slonik types rows as raw column values; a schema's output is what the query's type promises instead.
    return result.value as QueryResultRow;
  },
};

export async function createDbPool(
  connectionUri: string,
  options: { maximumPoolSize?: number; statementTimeoutMs?: number } = {},
): Promise<DatabasePool> {
  return createPool(connectionUri, {
    driverFactory: createPgDriverFactory(),
    typeParsers,
    interceptors: [resultParser],
    maximumPoolSize: options.maximumPoolSize ?? 10,
    statementTimeout: options.statementTimeoutMs ?? 60_000,
    idleInTransactionSessionTimeout: 60_000,
    captureStackTrace: false,
    // slonik's default runs DISCARD ALL on every release (10-18 % of an append, docs/perf.md). Nothing here
    // keeps session state on pooled connections: no SET, LISTEN lives on its own client, locks are xact-scoped.
    resetConnection: async () => undefined,
  });
}
