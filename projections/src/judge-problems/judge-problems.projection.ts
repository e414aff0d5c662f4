import { sql } from '@otog/platform/db/pool';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { defineProjection } from '@otog/platform/runner/projection';
import { ProblemJudgingConfigured, ProblemTestdataUploaded, type EventDataOf } from '@otog/schemas/events';

type Configured = EventDataOf<typeof ProblemJudgingConfigured>;
type Uploaded = EventDataOf<typeof ProblemTestdataUploaded>;

/**
 * What the judge needs of each problem, one row per problem: the full score and limits
 * (ProblemJudgingConfigured) and the current test-data package (ProblemTestdataUploaded). Columns stay
 * null until their event arrives; the internal judge API leases only problems that have both.
 */
export const judgeProblemsProjection = defineProjection({
  name: 'judge_problems',
  version: 1,
  handles: [ProblemJudgingConfigured.type, ProblemTestdataUploaded.type],
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
  async apply(tx, events: readonly StoredEvent[], t) {
    for (const event of events) {
      if (event.type === ProblemJudgingConfigured.type) {
        const data = event.data as Configured;
        await tx.query(sql.unsafe`
          INSERT INTO ${t.problems} (problem_id, score, time_limit, memory_limit, updated_at)
          VALUES (${data.problemId}, ${data.score}, ${data.timeLimit}, ${data.memoryLimit}, ${event.occurredAt})
          ON CONFLICT (problem_id) DO UPDATE SET score = excluded.score, time_limit = excluded.time_limit,
            memory_limit = excluded.memory_limit, updated_at = excluded.updated_at`);
      } else if (event.type === ProblemTestdataUploaded.type) {
        const data = event.data as Uploaded;
        await tx.query(sql.unsafe`
          INSERT INTO ${t.problems} (problem_id, testcase, testdata_hash, updated_at)
          VALUES (${data.problemId}, ${data.case}, ${data.testdataHash}, ${event.occurredAt})
          ON CONFLICT (problem_id) DO UPDATE SET testcase = excluded.testcase, testdata_hash = excluded.testdata_hash,
            updated_at = excluded.updated_at`);
      }
    }
  },
});
