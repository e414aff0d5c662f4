import { sql } from '@otog/platform/db/pool';
import { defineProjection } from '@otog/platform/runner/projection';
import { ProblemJudgingConfigured, ProblemTestdataUploaded } from '@otog/schemas/events';

/** The first code version whose table has `stream_version`; a live slot of an older one has none. Never changes. */
export const JUDGE_PROBLEMS_STREAM_VERSION = 2;

/**
 * The problem events the judge depends on; every handler below advances `stream_version`. The judge-task
 * reactor reads the newest of them in the log, so a type added here must be folded by the live slot's code.
 */
export const JUDGE_PROBLEM_EVENTS = [ProblemJudgingConfigured.type, ProblemTestdataUploaded.type] as const;

/**
 * What the judge needs of each problem, one row per problem: the full score and limits
 * (ProblemJudgingConfigured) and the current test-data package (ProblemTestdataUploaded). Columns stay
 * null until their event arrives; the internal judge API leases only problems that have both.
 * `stream_version` is the problem stream's position of the last event folded: a judge task records the one
 * it needs (the judge-task reactor reads it from the log) and is leased only once the row has reached it.
 */
export const judgeProblemsProjection = defineProjection({
  name: 'judge_problems',
  version: 2,
  tables: ['problems'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.problems} (
      problem_id     integer     PRIMARY KEY,
      score          integer,
      time_limit     integer,
      memory_limit   integer,
      testcase       text,
      testdata_hash  text,
      stream_version integer     NOT NULL,
      updated_at     timestamptz NOT NULL)`);
  },
  on: {
    async [ProblemJudgingConfigured.type](tx, { data, occurredAt, streamPosition }, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.problems} (problem_id, score, time_limit, memory_limit, stream_version, updated_at)
        VALUES (${data.problemId}, ${data.score}, ${data.timeLimit}, ${data.memoryLimit}, ${streamPosition}, ${occurredAt})
        ON CONFLICT (problem_id) DO UPDATE SET score = excluded.score, time_limit = excluded.time_limit,
          memory_limit = excluded.memory_limit, stream_version = GREATEST(${t.problems}.stream_version, excluded.stream_version),
          updated_at = excluded.updated_at`);
    },
    async [ProblemTestdataUploaded.type](tx, { data, occurredAt, streamPosition }, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.problems} (problem_id, testcase, testdata_hash, stream_version, updated_at)
        VALUES (${data.problemId}, ${data.case}, ${data.testdataHash}, ${streamPosition}, ${occurredAt})
        ON CONFLICT (problem_id) DO UPDATE SET testcase = excluded.testcase, testdata_hash = excluded.testdata_hash,
          stream_version = GREATEST(${t.problems}.stream_version, excluded.stream_version), updated_at = excluded.updated_at`);
    },
  },
});
