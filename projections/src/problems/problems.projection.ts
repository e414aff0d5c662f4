import { sql } from '@otog/platform/db/pool';
import { defineProjection } from '@otog/platform/runner/projection';
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

/**
 * Problems as the public API serves them (GET /problem, /problem/{id}, the admin lists), one row per
 * problem. ProblemDetailsSet opens the stream and creates the row; the other events only update it, so an
 * event of a deleted problem (its row gone) changes nothing. Every write is an upsert or a plain
 * assignment from the event, so redelivery leaves the row as it was.
 */
export const problemsProjection = defineProjection({
  name: 'problems',
  version: 1,
  tables: ['problems'],
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
  },
  on: {
    async [ProblemDetailsSet.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.problems} (id, name, sname, "case", created_at, updated_at)
        VALUES (${data.problemId}, ${data.name}, ${data.sname}, ${data.case}, ${at}, ${at})
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, sname = excluded.sname, "case" = excluded."case",
          updated_at = excluded.updated_at`);
    },
    async [ProblemJudgingConfigured.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET score = ${data.score}, time_limit = ${data.timeLimit}, memory_limit = ${data.memoryLimit},
          updated_at = ${at}
        WHERE id = ${data.problemId}`);
    },
    async [ProblemTestdataUploaded.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET testdata_hash = ${data.testdataHash}, "case" = ${data.case}, updated_at = ${at}
        WHERE id = ${data.problemId}`);
    },
    async [ProblemStatementUploaded.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET statement_hash = ${data.pdfHash}, updated_at = ${at} WHERE id = ${data.problemId}`);
    },
    async [ProblemVisibilityChanged.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET show = ${data.show}, recent_show_time = ${at}, updated_at = ${at}
        WHERE id = ${data.problemId}`);
    },
    async [ProblemExamplesSet.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET examples = ${sql.jsonb(data.examples)}, updated_at = ${at} WHERE id = ${data.problemId}`);
    },
    async [ProblemAttachmentMetadataSet.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET attachment_metadata = ${sql.jsonb(data.metadata)}, updated_at = ${at}
        WHERE id = ${data.problemId}`);
    },
    async [ProblemAttachmentUploaded.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        UPDATE ${t.problems} SET attachment_hash = ${data.hash}, updated_at = ${at} WHERE id = ${data.problemId}`);
    },
    async [ProblemDeleted.type](tx, { data }, t) {
      await tx.query(sql.unsafe`DELETE FROM ${t.problems} WHERE id = ${data.problemId}`);
    },
  },
});
