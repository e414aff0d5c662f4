import { sql } from '@otog/platform/db/pool';
import type { FragmentSqlToken } from 'slonik';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { defineProjection, type EventHandler, type SlotTables } from '@otog/platform/runner/projection';
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
import { setUpVersionTable, writeAndMoveVersion } from '../version-row.ts';

type TableName = 'problems' | 'version';

/**
 * A handler of one statement (a write RETURNING the problem's id) that also moves the read model's version
 * to the event's log position when it changed a row (in the same statement: version-row.ts). GET /problem's cached
 * table is keyed by it, so a problem hidden, shown, renamed or deleted leaves the cache at once.
 */
function versioned<T>(write: (event: StoredEvent<T>, t: SlotTables<TableName>) => FragmentSqlToken): EventHandler<T, TableName> {
  return async (tx, event, t) => {
    await writeAndMoveVersion(tx, t.version, event.gpos, write(event, t));
  };
}

/**
 * Problems as the public API serves them (GET /problem, /problem/{id}, the admin lists), one row per
 * problem. ProblemDetailsSet opens the stream and creates the row; the other events only update it, so an
 * event of a deleted problem (its row gone) changes nothing. Every write is an upsert or a plain
 * assignment from the event, so redelivery leaves the row as it was. Every event that changes a row also sets
 * `version` (one row) to its log position.
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
    await setUpVersionTable(tx, t.version);
  },
  on: {
    [ProblemDetailsSet.type]: versioned(({ data, occurredAt: at }, t) =>
      sql.fragment`
        INSERT INTO ${t.problems} (id, name, sname, "case", created_at, updated_at)
        VALUES (${data.problemId}, ${data.name}, ${data.sname}, ${data.case}, ${at}, ${at})
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, sname = excluded.sname, "case" = excluded."case",
          updated_at = excluded.updated_at RETURNING id`,
    ),
    [ProblemJudgingConfigured.type]: versioned(({ data, occurredAt: at }, t) =>
      sql.fragment`
        UPDATE ${t.problems} SET score = ${data.score}, time_limit = ${data.timeLimit}, memory_limit = ${data.memoryLimit},
          updated_at = ${at}
        WHERE id = ${data.problemId} RETURNING id`,
    ),
    [ProblemTestdataUploaded.type]: versioned(({ data, occurredAt: at }, t) =>
      sql.fragment`
        UPDATE ${t.problems} SET testdata_hash = ${data.testdataHash}, "case" = ${data.case}, updated_at = ${at}
        WHERE id = ${data.problemId} RETURNING id`,
    ),
    [ProblemStatementUploaded.type]: versioned(({ data, occurredAt: at }, t) =>
      sql.fragment`
        UPDATE ${t.problems} SET statement_hash = ${data.pdfHash}, updated_at = ${at} WHERE id = ${data.problemId} RETURNING id`,
    ),
    [ProblemVisibilityChanged.type]: versioned(({ data, occurredAt: at }, t) =>
      sql.fragment`
        UPDATE ${t.problems} SET show = ${data.show}, recent_show_time = ${at}, updated_at = ${at}
        WHERE id = ${data.problemId} RETURNING id`,
    ),
    [ProblemExamplesSet.type]: versioned(({ data, occurredAt: at }, t) =>
      sql.fragment`
        UPDATE ${t.problems} SET examples = ${sql.jsonb(data.examples)}, updated_at = ${at} WHERE id = ${data.problemId} RETURNING id`,
    ),
    [ProblemAttachmentMetadataSet.type]: versioned(({ data, occurredAt: at }, t) =>
      sql.fragment`
        UPDATE ${t.problems} SET attachment_metadata = ${sql.jsonb(data.metadata)}, updated_at = ${at}
        WHERE id = ${data.problemId} RETURNING id`,
    ),
    [ProblemAttachmentUploaded.type]: versioned(({ data, occurredAt: at }, t) =>
      sql.fragment`
        UPDATE ${t.problems} SET attachment_hash = ${data.hash}, updated_at = ${at} WHERE id = ${data.problemId} RETURNING id`,
    ),
    [ProblemDeleted.type]: versioned(({ data }, t) =>
      sql.fragment`DELETE FROM ${t.problems} WHERE id = ${data.problemId} RETURNING id`,
    ),
  },
});
