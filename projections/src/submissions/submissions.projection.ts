import { z } from 'zod';
import { sql, type DatabaseTransactionConnection } from '@otog/platform/db/pool';
import type { Position } from '@otog/platform/eventstore/position';
import type { FoldContext } from '@otog/platform/notices/notice';
import { defineProjection, type SlotTables } from '@otog/platform/runner/projection';
import {
  ContestDeleted,
  ProblemDeleted,
  RejudgeRequested,
  SubmissionCreated,
  SubmissionJudged,
  SubmissionShared,
  TestcaseJudged,
  UserRegistered,
  UserUpdated,
} from '@otog/schemas/events';
import { moveVersion, setUpVersionTable } from '../version-row.ts';

type Tables = SlotTables<'submissions' | 'roles' | 'solvers' | 'passed' | 'passed_version'>;

/** The submission a verdict or a rejudge changed: whose, on which problem. */
const Changed = z.object({ userId: z.number().int(), problemId: z.number().int() });
type Changed = z.infer<typeof Changed>;
const Judged = Changed.extend({ before: z.string() });
const ProblemIdRow = z.object({ problem_id: z.number().int() });

/** "submission N changed", with its owner so the owner's sockets can be told; nothing when no row changed. */
function changed(context: FoldContext, submissionId: number, owner: unknown): void {
  if (owner !== null) context.notify({ topic: 'submission', key: String(submissionId), data: { userId: Number(owner) } });
}

/**
 * Recounts the problems' passed counts from their solvers of role `user`; where a count changed, records
 * the event's log position in passed_version (the problem table's cache key: it moves only when a count does).
 */
async function recountPassed(tx: DatabaseTransactionConnection, t: Tables, problemIds: readonly number[], at: Position): Promise<void> {
  if (problemIds.length === 0) return;
  // One statement: the recount, and the version moved when a count changed.
  await tx.query(sql.unsafe`
    WITH recounted AS (
      INSERT INTO ${t.passed} AS c (problem_id, count)
      SELECT p.id, count(r.user_id)::int
      FROM unnest(${sql.array([...problemIds], 'int4')}) AS p(id)
      LEFT JOIN ${t.solvers} v ON v.problem_id = p.id
      LEFT JOIN ${t.roles} r ON r.user_id = v.user_id AND r.role = 'user'
      GROUP BY p.id
      ON CONFLICT (problem_id) DO UPDATE SET count = excluded.count WHERE c.count <> excluded.count
      RETURNING problem_id)
    ${moveVersion(t.passed_version, at.gpos, sql.identifier(['recounted']))}`);
}

/** A user's role; when it changed, the problems they solved are recounted (an admin's solutions do not count). */
async function setRole(tx: DatabaseTransactionConnection, t: Tables, user: { userId: number; role: string }, at: Position): Promise<void> {
  const changedRole = await tx.maybeOneFirst(sql.unsafe`
    INSERT INTO ${t.roles} AS r (user_id, role) VALUES (${user.userId}, ${user.role})
    ON CONFLICT (user_id) DO UPDATE SET role = excluded.role WHERE r.role IS DISTINCT FROM excluded.role
    RETURNING user_id`);
  if (changedRole === null) return;
  const solved = await tx.anyFirst(sql.type(ProblemIdRow)`
    SELECT problem_id FROM ${t.solvers} WHERE user_id = ${user.userId}`);
  await recountPassed(tx, t, solved, at);
}

/**
 * Makes `solvers` hold each (problem, user) pair exactly when the user has an accepted submission on the
 * problem (any submission: contest ones too, on shown or hidden problems), then recounts the problems
 * whose solvers changed. Called after a submission's status changed or submissions were deleted.
 *
 * One statement (a verdict costs one round trip more than before the counts were kept, not three). A
 * statement does not see its own writes: a count is the problem's solvers of role `user` as the statement
 * found them, plus those it added, minus those it removed, i.e. the recount after its changes (never the
 * stored count incremented), so a repeated event changes nothing and a rebuild gives the same numbers.
 */
async function refreshSolvers(tx: DatabaseTransactionConnection, t: Tables, pairs: readonly Changed[], at: Position): Promise<void> {
  if (pairs.length === 0) return;
  await tx.query(sql.unsafe`
    WITH pair AS (
      SELECT DISTINCT problem_id, user_id,
        EXISTS (SELECT 1 FROM ${t.submissions} s WHERE s.problem_id = p.problem_id AND s.user_id = p.user_id AND s.status = 'accept') AS solved
      FROM unnest(${sql.array(pairs.map((pair) => pair.problemId), 'int4')}, ${sql.array(pairs.map((pair) => pair.userId), 'int4')}) AS p(problem_id, user_id)),
    added AS (
      INSERT INTO ${t.solvers} (problem_id, user_id) SELECT problem_id, user_id FROM pair WHERE solved
      ON CONFLICT DO NOTHING RETURNING problem_id, user_id),
    removed AS (
      DELETE FROM ${t.solvers} v USING pair WHERE NOT pair.solved AND v.problem_id = pair.problem_id AND v.user_id = pair.user_id
      RETURNING v.problem_id, v.user_id),
    change AS (
      SELECT problem_id, user_id, 1 AS sign FROM added UNION ALL SELECT problem_id, user_id, -1 AS sign FROM removed),
    recounted AS (
      INSERT INTO ${t.passed} AS c (problem_id, count)
      SELECT x.problem_id,
        (SELECT count(*) FROM ${t.solvers} v JOIN ${t.roles} r ON r.user_id = v.user_id AND r.role = 'user' WHERE v.problem_id = x.problem_id)::int
        + (SELECT coalesce(sum(ch.sign), 0) FROM change ch JOIN ${t.roles} r ON r.user_id = ch.user_id AND r.role = 'user' WHERE ch.problem_id = x.problem_id)::int
      FROM (SELECT DISTINCT problem_id FROM change) x
      ON CONFLICT (problem_id) DO UPDATE SET count = excluded.count WHERE c.count <> excluded.count
      RETURNING problem_id)
    ${moveVersion(t.passed_version, at.gpos, sql.identifier(['recounted']))}`);
}

/**
 * Submissions with their current result, one row per submission, for every /submission route (and the
 * problem table's passed counts and latest submissions). Other modules query these columns by name: add
 * columns, never rename them (or bump the version).
 *
 * Announces "submission N changed" (with its owner) whenever its row changes.
 *
 * Passed counts (GET /problem) are kept here, where verdicts are folded, instead of being counted per
 * request: `solvers` holds the (problem, user) pairs with an accepted submission, `roles` each user's role
 * (only role `user` counts), `passed` the count per problem, and `passed_version` the log position of the
 * last change of any count. Each is recomputed from the rows, never incremented, so a repeated event
 * changes nothing and a rebuild gives the same numbers.
 *
 * `judging` is the stream position of the request being judged (SubmissionCreated = 1, then each
 * RejudgeRequested). Reports carry the judging they belong to; one for an older judging is stale (a
 * rejudge overtook it) and changes nothing. Every write is an upsert or is guarded by `judging`, so a
 * redelivered event leaves the row as it was.
 */
export const submissionsProjection = defineProjection({
  name: 'submissions',
  version: 3,
  tables: ['submissions', 'roles', 'solvers', 'passed', 'passed_version'],
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
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('accepted')} ON ${t.submissions} (problem_id, user_id) WHERE status = 'accept'`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('contest')} ON ${t.submissions} (contest_id, id DESC)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.roles} (user_id integer PRIMARY KEY, role text NOT NULL)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.solvers} (
      problem_id integer NOT NULL,
      user_id    integer NOT NULL,
      PRIMARY KEY (problem_id, user_id))`);
    const [solvers] = t.solvers.names;
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${sql.identifier([`${solvers}_user`])} ON ${t.solvers} (user_id)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.passed} (problem_id integer PRIMARY KEY, count integer NOT NULL)`);
    // One row: 0 until a count first changes.
    await setUpVersionTable(tx, t.passed_version);
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
    async [RejudgeRequested.type](tx, event, t, context) {
      const { data, occurredAt: at, streamPosition } = event;
      // OTOG deletes the result and sets the status back to waiting; the row keeps the rest.
      const row = await tx.maybeOne(sql.type(Changed)`
        UPDATE ${t.submissions}
        SET judging = ${streamPosition}, status = 'waiting', update_date = ${at}, result = NULL, score = NULL,
          time_used = NULL, mem_used = NULL, errmsg = NULL, subtask_results = NULL
        WHERE id = ${data.submissionId} AND judging < ${streamPosition}
        RETURNING user_id AS "userId", problem_id AS "problemId"`);
      changed(context, data.submissionId, row?.userId ?? null);
      // An accepted submission sent back to waiting may no longer count.
      if (row) await refreshSolvers(tx, t, [row], event);
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
    async [SubmissionJudged.type](tx, event, t, context) {
      const { data, occurredAt: at } = event;
      // `before` (the FROM list sees the row as it was before this statement) is its status until now.
      const row = await tx.maybeOne(sql.type(Judged)`
        UPDATE ${t.submissions} s
        SET status = ${data.status}, result = ${data.result}, score = ${data.score}, time_used = ${data.timeUsed},
          mem_used = ${data.memUsed}, errmsg = ${data.errmsg}, subtask_results = ${sql.jsonb(data.subtaskResults)},
          update_date = ${at}
        FROM (SELECT id, status FROM ${t.submissions} WHERE id = ${data.submissionId}) before
        WHERE s.id = before.id AND s.judging = ${data.judging}
        RETURNING s.user_id AS "userId", s.problem_id AS "problemId", before.status AS "before"`);
      changed(context, data.submissionId, row?.userId ?? null);
      // Most verdicts neither give nor take an accept: solvers cannot change then.
      if (row && (data.status === 'accept' || row.before === 'accept')) await refreshSolvers(tx, t, [row], event);
    },
    async [SubmissionShared.type](tx, { data, occurredAt: at }, t, context) {
      const owner = await tx.maybeOneFirst(sql.unsafe`
        UPDATE ${t.submissions} SET public = ${data.public}, update_date = ${at} WHERE id = ${data.submissionId}
        RETURNING user_id`);
      changed(context, data.submissionId, owner);
    },
    async [ProblemDeleted.type](tx, { data, gpos }, t) {
      // OTOG cascades a problem's deletion to its submissions.
      await tx.query(sql.unsafe`DELETE FROM ${t.submissions} WHERE problem_id = ${data.problemId}`);
      await tx.query(sql.unsafe`DELETE FROM ${t.solvers} WHERE problem_id = ${data.problemId}`);
      await tx.query(sql.unsafe`
        WITH counted AS (DELETE FROM ${t.passed} WHERE problem_id = ${data.problemId} RETURNING problem_id)
        ${moveVersion(t.passed_version, gpos, sql.identifier(['counted']))}`);
    },
    async [ContestDeleted.type](tx, event, t) {
      // OTOG cascades a contest's deletion to its submissions: the accepted ones may have been a user's only ones.
      const accepted = await tx.any(sql.type(Changed)`
        WITH deleted AS (DELETE FROM ${t.submissions} WHERE contest_id = ${event.data.contestId} RETURNING user_id, problem_id, status)
        SELECT DISTINCT user_id AS "userId", problem_id AS "problemId" FROM deleted WHERE status = 'accept'`);
      await refreshSolvers(tx, t, accepted, event);
    },
    async [UserRegistered.type](tx, event, t) {
      await setRole(tx, t, event.data, event);
    },
    async [UserUpdated.type](tx, event, t) {
      await setRole(tx, t, event.data, event);
    },
  },
});
