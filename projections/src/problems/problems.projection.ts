import { sql } from '@otog/platform/db/pool';
import { defineProjection } from '@otog/platform/runner/projection';

/** Problems as the public API serves them (GET /problem, /problem/{id}, admin lists). TODO(issue 4). */
export const problemsProjection = defineProjection({
  name: 'problems',
  version: 1,
  handles: ['ProblemDetailsSet'],
  tables: ['problems'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.problems} (id integer PRIMARY KEY)`);
  },
  async apply() {},
});
