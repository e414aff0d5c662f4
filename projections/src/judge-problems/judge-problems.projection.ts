import { sql } from '@otog/platform/db/pool';
import { defineProjection } from '@otog/platform/runner/projection';
import { ProblemJudgingConfigured, ProblemTestdataUploaded } from '@otog/schemas/events';

/**
 * What the judge needs of each problem, one row per problem: the full score and limits
 * (ProblemJudgingConfigured) and the current test-data package (ProblemTestdataUploaded). Columns stay
 * null until their event arrives; the internal judge API leases only problems that have both.
 */
export const judgeProblemsProjection = defineProjection({
  name: 'judge_problems',
  version: 1,
  tables: ['problems'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.problems} (
      problem_id     integer     PRIMARY KEY,
      score          integer,
      time_limit     integer,
      memory_limit   integer,
      testcase       text,
      testdata_hash  text,
      updated_at     timestamptz NOT NULL)`);
  },
  on: {
    async [ProblemJudgingConfigured.type](tx, { data, occurredAt }, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.problems} (problem_id, score, time_limit, memory_limit, updated_at)
        VALUES (${data.problemId}, ${data.score}, ${data.timeLimit}, ${data.memoryLimit}, ${occurredAt})
        ON CONFLICT (problem_id) DO UPDATE SET score = excluded.score, time_limit = excluded.time_limit,
          memory_limit = excluded.memory_limit, updated_at = excluded.updated_at`);
    },
    async [ProblemTestdataUploaded.type](tx, { data, occurredAt }, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.problems} (problem_id, testcase, testdata_hash, updated_at)
        VALUES (${data.problemId}, ${data.case}, ${data.testdataHash}, ${occurredAt})
        ON CONFLICT (problem_id) DO UPDATE SET testcase = excluded.testcase, testdata_hash = excluded.testdata_hash,
          updated_at = excluded.updated_at`);
    },
  },
});
