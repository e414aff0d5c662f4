import { sql } from '@otog/platform/db/pool';
import { defineProjection, type EventHandler } from '@otog/platform/runner/projection';
import {
  ProblemAttachmentMetadataSet,
  ProblemAttachmentUploaded,
  ProblemDeleted,
  ProblemDetailsSet,
  ProblemExamplesSet,
  ProblemJudgingConfigured,
  ProblemStatementUploaded,
  ProblemTestdataUploaded,
  ProblemVisibilityChanged,
} from '@otog/schemas/events';

type TableName = 'problems' | 'version';

/**
 * The handler, then the event's log position recorded as the read model's version: GET /problem's cached
 * table is keyed by it, so a problem hidden, shown, renamed or deleted leaves the cache at once.
 */
function versioned<T>(handler: EventHandler<T, TableName>): EventHandler<T, TableName> {
  return async (tx, event, t, context) => {
    await handler(tx, event, t, context);
    await tx.query(sql.unsafe`UPDATE ${t.version} SET position = ${event.gpos.toString()}::bigint`);
  };
}

/**
 * Problems as the public API serves them (GET /problem, /problem/{id}, the admin lists), one row per
 * problem. ProblemDetailsSet opens the stream and creates the row; the other events only update it, so an
 * event of a deleted problem (its row gone) changes nothing. Every write is an upsert or a plain
 * assignment from the event, so redelivery leaves the row as it was. Every event also sets `version` (one
 * row) to its own log position.
 */
export const problemsProjection = defineProjection({
  name: 'problems',
  version: 2,
  tables: ['problems', 'version'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.problems} (
      id                   integer     PRIMARY KEY,
      name                 text        NOT NULL,
      sname                text,
      score                integer     NOT NULL DEFAULT 100,
      time_limit           integer     NOT NULL DEFAULT 1000,
      memory_limit         integer     NOT NULL DEFAULT 256,
      show                 boolean     NOT NULL DEFAULT false,
      recent_show_time     timestamptz,
      "case"               text,
      rating               integer,
      examples             jsonb,
      attachment_metadata  jsonb,
      attachment_hash      text,
      statement_hash       text,
      testdata_hash        text,
      created_at           timestamptz NOT NULL,
      updated_at           timestamptz NOT NULL)`);
    // Prefix searches on the name (the admin search box); contains-searches scan, which 10k rows afford.
    const [table] = t.problems.names;
    await tx.query(
      sql.unsafe`CREATE INDEX IF NOT EXISTS ${sql.identifier([`${table}_lower_name`])} ON ${t.problems} (lower(name) text_pattern_ops)`,
    );
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.version} (
      one      boolean PRIMARY KEY DEFAULT true CHECK (one),
      position bigint  NOT NULL)`);
    await tx.query(sql.unsafe`INSERT INTO ${t.version} (position) VALUES (0) ON CONFLICT DO NOTHING`);
  },
  on: {
    [ProblemDetailsSet.type]: versioned(async (tx, { data, occurredAt: at }, t) => {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.problems} (id, name, sname, "case", created_at, updated_at)
        VALUES (${data.problemId}, ${data.name}, ${data.sname}, ${data.case}, ${at}, ${at})
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, sname = excluded.sname, "case" = excluded."case",
          updated_at = excluded.updated_at`);
    }),
    [ProblemJudgingConfigured.type]: versioned(async (tx, { data, occurredAt: at }, t) => {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET score = ${data.score}, time_limit = ${data.timeLimit}, memory_limit = ${data.memoryLimit},
          updated_at = ${at}
        WHERE id = ${data.problemId}`);
    }),
    [ProblemTestdataUploaded.type]: versioned(async (tx, { data, occurredAt: at }, t) => {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET testdata_hash = ${data.testdataHash}, "case" = ${data.case}, updated_at = ${at}
        WHERE id = ${data.problemId}`);
    }),
    [ProblemStatementUploaded.type]: versioned(async (tx, { data, occurredAt: at }, t) => {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET statement_hash = ${data.pdfHash}, updated_at = ${at} WHERE id = ${data.problemId}`);
    }),
    [ProblemVisibilityChanged.type]: versioned(async (tx, { data, occurredAt: at }, t) => {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET show = ${data.show}, recent_show_time = ${at}, updated_at = ${at}
        WHERE id = ${data.problemId}`);
    }),
    [ProblemExamplesSet.type]: versioned(async (tx, { data, occurredAt: at }, t) => {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET examples = ${sql.jsonb(data.examples)}, updated_at = ${at} WHERE id = ${data.problemId}`);
    }),
    [ProblemAttachmentMetadataSet.type]: versioned(async (tx, { data, occurredAt: at }, t) => {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET attachment_metadata = ${sql.jsonb(data.metadata)}, updated_at = ${at}
        WHERE id = ${data.problemId}`);
    }),
    [ProblemAttachmentUploaded.type]: versioned(async (tx, { data, occurredAt: at }, t) => {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET attachment_hash = ${data.hash}, updated_at = ${at} WHERE id = ${data.problemId}`);
    }),
    [ProblemDeleted.type]: versioned(async (tx, { data }, t) => {
      await tx.query(sql.unsafe`DELETE FROM ${t.problems} WHERE id = ${data.problemId}`);
    }),
  },
});
