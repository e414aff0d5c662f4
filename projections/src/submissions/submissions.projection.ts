import { sql } from '@otog/platform/db/pool';
import { defineProjection } from '@otog/platform/runner/projection';

/** Submissions with their latest result, for every /submission route. TODO(issue 4). */
export const submissionsProjection = defineProjection({
  name: 'submissions',
  version: 1,
  handles: ['SubmissionCreated'],
  tables: ['submissions'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.submissions} (id integer PRIMARY KEY)`);
  },
  async apply() {},
});
