import { sql } from '@otog/platform/db/pool';
import type { FoldContext } from '@otog/platform/notices/notice';
import { defineProjection } from '@otog/platform/runner/projection';
import { ContestDeleted, ProblemDeleted, RejudgeRequested, SubmissionCreated, SubmissionJudged, SubmissionShared, TestcaseJudged } from '@otog/schemas/events';

/** "submission N changed", with its owner so the owner's sockets can be told; nothing when no row changed. */
function changed(context: FoldContext, submissionId: number, owner: unknown): void {
  if (owner !== null) context.notify({ topic: 'submission', key: String(submissionId), data: { userId: Number(owner) } });
}

/**
 * Submissions with their current result, one row per submission, for every /submission route (and the
 * problem table's passed counts and latest submissions). Other modules query these columns by name: add
 * columns, never rename them (or bump the version).
 *
 * Announces "submission N changed" (with its owner) whenever its row changes.
 *
 * `judging` is the stream position of the request being judged (SubmissionCreated = 1, then each
 * RejudgeRequested). Reports carry the judging they belong to; one for an older judging is stale (a
 * rejudge overtook it) and changes nothing. Every write is an upsert or is guarded by `judging`, so a
 * redelivered event leaves the row as it was.
 */
export const submissionsProjection = defineProjection({
  name: 'submissions',
  version: 2,
  tables: ['submissions'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.submissions} (
      id               integer     PRIMARY KEY,
      user_id          integer     NOT NULL,
      problem_id       integer     NOT NULL,
      contest_id       integer,
      language         text        NOT NULL,
      file_name        text,
      source_code      text        NOT NULL,
      status           text        NOT NULL,
      public           boolean     NOT NULL DEFAULT false,
      judging          integer     NOT NULL,
      creation_date    timestamptz NOT NULL,
      update_date      timestamptz NOT NULL,
      result           text,
      score            integer,
      time_used        integer,
      mem_used         integer,
      errmsg           text,
      subtask_results  jsonb)`);
    const [table] = t.submissions.names;
    const index = (suffix: string) => sql.identifier([`${table}_${suffix}`]);
    // The cursor lists: a user's, a problem's, a contest's (id < offset ORDER BY id DESC), and accepted
    // submissions per problem (passed counts).
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('user')} ON ${t.submissions} (user_id, id DESC)`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('problem')} ON ${t.submissions} (problem_id, id DESC)`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('accepted')} ON ${t.submissions} (problem_id) WHERE status = 'accept'`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('contest')} ON ${t.submissions} (contest_id, id DESC)`);
  },
  on: {
    async [SubmissionCreated.type](tx, { data, occurredAt: at, streamPosition }, t, context) {
      const created = await tx.maybeOneFirst(sql.unsafe`
        INSERT INTO ${t.submissions} (id, user_id, problem_id, contest_id, language, file_name, source_code, status, judging,
          creation_date, update_date)
        VALUES (${data.submissionId}, ${data.userId}, ${data.problemId}, ${data.contestId}, ${data.language}, ${data.fileName},
          ${data.sourceCode}, 'waiting', ${streamPosition}, ${at}, ${at})
        ON CONFLICT (id) DO NOTHING
        RETURNING user_id`);
      changed(context, data.submissionId, created);
    },
    async [RejudgeRequested.type](tx, { data, occurredAt: at, streamPosition }, t, context) {
      // OTOG deletes the result and sets the status back to waiting; the row keeps the rest.
      const owner = await tx.maybeOneFirst(sql.unsafe`
        UPDATE ${t.submissions}
        SET judging = ${streamPosition}, status = 'waiting', update_date = ${at}, result = NULL, score = NULL,
          time_used = NULL, mem_used = NULL, errmsg = NULL, subtask_results = NULL
        WHERE id = ${data.submissionId} AND judging < ${streamPosition}
        RETURNING user_id`);
      changed(context, data.submissionId, owner);
    },
    async [TestcaseJudged.type](tx, { data, occurredAt: at }, t, context) {
      // The first report of the current judging moves waiting → grading; a late report of a judging that
      // already finished (a retried lease) must not reopen it. Every report of the current judging is
      // announced: it is progress the submitter watches.
      const owner = await tx.maybeOneFirst(sql.unsafe`
        UPDATE ${t.submissions} SET status = 'grading', update_date = ${at}
        WHERE id = ${data.submissionId} AND judging = ${data.judging} AND status IN ('waiting', 'grading')
        RETURNING user_id`);
      changed(context, data.submissionId, owner);
    },
    async [SubmissionJudged.type](tx, { data, occurredAt: at }, t, context) {
      const owner = await tx.maybeOneFirst(sql.unsafe`
        UPDATE ${t.submissions}
        SET status = ${data.status}, result = ${data.result}, score = ${data.score}, time_used = ${data.timeUsed},
          mem_used = ${data.memUsed}, errmsg = ${data.errmsg}, subtask_results = ${sql.jsonb(data.subtaskResults)},
          update_date = ${at}
        WHERE id = ${data.submissionId} AND judging = ${data.judging}
        RETURNING user_id`);
      changed(context, data.submissionId, owner);
    },
    async [SubmissionShared.type](tx, { data, occurredAt: at }, t, context) {
      const owner = await tx.maybeOneFirst(sql.unsafe`
        UPDATE ${t.submissions} SET public = ${data.public}, update_date = ${at} WHERE id = ${data.submissionId}
        RETURNING user_id`);
      changed(context, data.submissionId, owner);
    },
    async [ProblemDeleted.type](tx, { data }, t) {
      // OTOG cascades a problem's deletion to its submissions.
      await tx.query(sql.unsafe`DELETE FROM ${t.submissions} WHERE problem_id = ${data.problemId}`);
    },
    async [ContestDeleted.type](tx, { data }, t) {
      // OTOG cascades a contest's deletion to its submissions.
      await tx.query(sql.unsafe`DELETE FROM ${t.submissions} WHERE contest_id = ${data.contestId}`);
    },
  },
});
