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

type Tables = SlotTables<'submissions' | 'roles' | 'solvers' | 'passed_version' | 'user_version'>;

/** The submission a verdict or a rejudge changed: whose, on which problem, and its status until then. */
const Changed = z.object({ userId: z.number().int(), problemId: z.number().int(), before: z.string() });
const Pair = Changed.pick({ userId: true, problemId: true });
type Pair = z.infer<typeof Pair>;

/** "submission N changed", with its owner so the owner's sockets can be told; nothing when no row changed. */
function changed(context: FoldContext, submissionId: number, owner: unknown): void {
  if (owner !== null) context.notify({ topic: 'submission', key: String(submissionId), data: { userId: Number(owner) } });
}

/**
 * The INSERT (to end a WITH) that records `gpos` as the version of the submissions of every user in
 * `changed` (a WITH query with a `user_id` column); never moved back by a redelivered event.
 */
function moveUserVersion(t: Tables, gpos: bigint, changed: string) {
  return sql.fragment`INSERT INTO ${t.user_version} AS u (user_id, position)
    SELECT DISTINCT user_id, ${gpos.toString()}::bigint FROM ${sql.identifier([changed])}
    ON CONFLICT (user_id) DO UPDATE SET position = excluded.position WHERE u.position < excluded.position`;
}

/** A user's role; when it changed and they solved anything, the passed counts they are part of changed. */
async function setRole(tx: DatabaseTransactionConnection, t: Tables, user: { userId: number; role: string }, at: Position): Promise<void> {
  await tx.query(sql.unsafe`
    WITH changed AS (
      INSERT INTO ${t.roles} AS r (user_id, role) VALUES (${user.userId}, ${user.role})
      ON CONFLICT (user_id) DO UPDATE SET role = excluded.role WHERE r.role IS DISTINCT FROM excluded.role
      RETURNING user_id),
    counted AS (SELECT 1 FROM ${t.solvers} v JOIN changed c ON c.user_id = v.user_id)
    ${moveVersion(t.passed_version, at.gpos, sql.identifier(['counted']))}`);
}

/**
 * Takes out of `solvers` the pairs among `pairs` left without an accepted submission (their accept was taken
 * back or deleted; the user may have another), in one statement.
 */
async function dropSolvers(tx: DatabaseTransactionConnection, t: Tables, pairs: readonly Pair[], at: Position): Promise<void> {
  if (pairs.length === 0) return;
  await tx.query(sql.unsafe`
    WITH removed AS (
      DELETE FROM ${t.solvers} v
      USING unnest(${sql.array(pairs.map((pair) => pair.problemId), 'int4')}, ${sql.array(pairs.map((pair) => pair.userId), 'int4')}) AS p(problem_id, user_id)
      WHERE v.problem_id = p.problem_id AND v.user_id = p.user_id
        AND NOT EXISTS (SELECT 1 FROM ${t.submissions} s WHERE s.problem_id = v.problem_id AND s.user_id = v.user_id AND s.status = 'accept')
      RETURNING 1)
    ${moveVersion(t.passed_version, at.gpos, sql.identifier(['removed']))}`);
}

/**
 * Submissions with their current result, one row per submission, for every /submission route (and the
 * problem table's passed counts and latest submissions). Other modules query these columns by name: add
 * columns, never rename them (or bump the version).
 *
 * Announces "submission N changed" (with its owner) whenever its row changes.
 *
 * What the problem table's passed counts (GET /problem) are made of is kept here, where verdicts are folded,
 * instead of being found among all submissions per request: `solvers` holds the (problem, user) pairs with an
 * accepted submission (any: contest ones too, on shown or hidden problems), `roles` each user's role (only
 * role `user` counts), and `passed_version` the log position of the last change of either that can change a
 * count (the table's cache key). The counts themselves are a grouped read of `solvers`, made once per version.
 * Kept light on purpose: verdicts are most of this fold, and an accept costs one statement like any verdict.
 *
 * `user_version` holds, per user, the log position of the last change to any of their submission rows that
 * can change their latest submission per problem (a new one, a status, a verdict, sharing, a rejudge, a
 * deletion): GET /problem keys a caller's personal table by it instead of reading their latest submissions
 * per request. It is moved in the statement that makes the change (no round trip of its own). A user
 * with no row never had a submission.
 *
 * `judging` is the stream position of the request being judged (SubmissionCreated = 1, then each
 * RejudgeRequested). Reports carry the judging they belong to; one for an older judging is stale (a
 * rejudge overtook it) and changes nothing. Every write is an upsert or is guarded by `judging`, so a
 * redelivered event leaves the row as it was.
 */
export const submissionsProjection = defineProjection({
  name: 'submissions',
  version: 4,
  tables: ['submissions', 'roles', 'solvers', 'passed_version', 'user_version'],
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
    // One row: 0 until solvers or roles first change.
    await setUpVersionTable(tx, t.passed_version);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.user_version} (user_id integer PRIMARY KEY, position bigint NOT NULL)`);
  },
  on: {
    async [SubmissionCreated.type](tx, { data, occurredAt: at, streamPosition, gpos }, t, context) {
      const created = await tx.maybeOneFirst(sql.unsafe`
        WITH created AS (
          INSERT INTO ${t.submissions} (id, user_id, problem_id, contest_id, language, file_name, source_code, status, judging,
            creation_date, update_date)
          VALUES (${data.submissionId}, ${data.userId}, ${data.problemId}, ${data.contestId}, ${data.language}, ${data.fileName},
            ${data.sourceCode}, 'waiting', ${streamPosition}, ${at}, ${at})
          ON CONFLICT (id) DO NOTHING
          RETURNING user_id),
        moved AS (${moveUserVersion(t, gpos, 'created')})
        SELECT user_id FROM created`);
      changed(context, data.submissionId, created);
    },
    async [RejudgeRequested.type](tx, event, t, context) {
      const { data, occurredAt: at, streamPosition } = event;
      // OTOG deletes the result and sets the status back to waiting; the row keeps the rest.
      const row = await tx.maybeOne(sql.type(Changed)`
        WITH sent AS (
          UPDATE ${t.submissions} s
          SET judging = ${streamPosition}, status = 'waiting', update_date = ${at}, result = NULL, score = NULL,
            time_used = NULL, mem_used = NULL, errmsg = NULL, subtask_results = NULL
          FROM (SELECT id, status FROM ${t.submissions} WHERE id = ${data.submissionId}) before
          WHERE s.id = before.id AND s.judging < ${streamPosition}
          RETURNING s.user_id, s.problem_id, before.status),
        moved AS (${moveUserVersion(t, event.gpos, 'sent')})
        SELECT user_id AS "userId", problem_id AS "problemId", status AS "before" FROM sent`);
      changed(context, data.submissionId, row?.userId ?? null);
      // An accepted submission sent back to waiting may have been its user's only accept on the problem.
      if (row?.before === 'accept') await dropSolvers(tx, t, [row], event);
    },
    async [TestcaseJudged.type](tx, { data, occurredAt: at, gpos }, t, context) {
      // The first report of the current judging moves waiting → grading (the only one that moves the user's
      // version); a late report of a judging that already finished (a retried lease) must not reopen it. Every
      // report of the current judging is announced: it is progress the submitter watches.
      const owner = await tx.maybeOneFirst(sql.unsafe`
        WITH reported AS (
          UPDATE ${t.submissions} s SET status = 'grading', update_date = ${at}
          FROM (SELECT id, status FROM ${t.submissions} WHERE id = ${data.submissionId}) before
          WHERE s.id = before.id AND s.judging = ${data.judging} AND s.status IN ('waiting', 'grading')
          RETURNING s.user_id, before.status),
        started AS (SELECT user_id FROM reported WHERE status = 'waiting'),
        moved AS (${moveUserVersion(t, gpos, 'started')})
        SELECT user_id FROM reported`);
      changed(context, data.submissionId, owner);
    },
    async [SubmissionJudged.type](tx, event, t, context) {
      const { data, occurredAt: at } = event;
      const set = sql.fragment`status = ${data.status}, result = ${data.result}, score = ${data.score}, time_used = ${data.timeUsed},
        mem_used = ${data.memUsed}, errmsg = ${data.errmsg}, subtask_results = ${sql.jsonb(data.subtaskResults)}, update_date = ${at}`;
      if (data.status === 'accept') {
        // An accept makes its user a solver of the problem, in the same statement (one round trip, as for any
        // verdict); the version moves only when the pair is new. A repeated verdict finds the pair: no change.
        const owner = await tx.maybeOneFirst(sql.unsafe`
          WITH judged AS (
            UPDATE ${t.submissions} SET ${set} WHERE id = ${data.submissionId} AND judging = ${data.judging}
            RETURNING user_id, problem_id),
          added AS (
            INSERT INTO ${t.solvers} (problem_id, user_id) SELECT problem_id, user_id FROM judged
            ON CONFLICT DO NOTHING RETURNING 1),
          moved AS (${moveVersion(t.passed_version, event.gpos, sql.identifier(['added']))}),
          mine AS (${moveUserVersion(t, event.gpos, 'judged')})
          SELECT user_id FROM judged`);
        changed(context, data.submissionId, owner);
        return;
      }
      // Any other verdict leaves the solvers as they are: a judging has one verdict (the judge queue appends it
      // under an event id made of the submission and the judging), so the row it finds is waiting or grading,
      // never accepted; an accept is taken back by a rejudge (a new judging) or a deletion.
      const owner = await tx.maybeOneFirst(sql.unsafe`
        WITH judged AS (
          UPDATE ${t.submissions} SET ${set} WHERE id = ${data.submissionId} AND judging = ${data.judging}
          RETURNING user_id),
        moved AS (${moveUserVersion(t, event.gpos, 'judged')})
        SELECT user_id FROM judged`);
      changed(context, data.submissionId, owner);
    },
    async [SubmissionShared.type](tx, { data, occurredAt: at, gpos }, t, context) {
      const owner = await tx.maybeOneFirst(sql.unsafe`
        WITH shared AS (
          UPDATE ${t.submissions} SET public = ${data.public}, update_date = ${at} WHERE id = ${data.submissionId}
          RETURNING user_id),
        moved AS (${moveUserVersion(t, gpos, 'shared')})
        SELECT user_id FROM shared`);
      changed(context, data.submissionId, owner);
    },
    async [ProblemDeleted.type](tx, { data, gpos }, t) {
      // OTOG cascades a problem's deletion to its submissions.
      await tx.query(sql.unsafe`
        WITH deleted AS (DELETE FROM ${t.submissions} WHERE problem_id = ${data.problemId} RETURNING user_id)
        ${moveUserVersion(t, gpos, 'deleted')}`);
      await tx.query(sql.unsafe`
        WITH removed AS (DELETE FROM ${t.solvers} WHERE problem_id = ${data.problemId} RETURNING 1)
        ${moveVersion(t.passed_version, gpos, sql.identifier(['removed']))}`);
    },
    async [ContestDeleted.type](tx, event, t) {
      // OTOG cascades a contest's deletion to its submissions: the accepted ones may have been a user's only ones.
      const accepted = await tx.any(sql.type(Pair)`
        WITH deleted AS (DELETE FROM ${t.submissions} WHERE contest_id = ${event.data.contestId} RETURNING user_id, problem_id, status),
        moved AS (${moveUserVersion(t, event.gpos, 'deleted')})
        SELECT DISTINCT user_id AS "userId", problem_id AS "problemId" FROM deleted WHERE status = 'accept'`);
      await dropSolvers(tx, t, accepted, event);
    },
    async [UserRegistered.type](tx, event, t) {
      await setRole(tx, t, event.data, event);
    },
    async [UserUpdated.type](tx, event, t) {
      await setRole(tx, t, event.data, event);
    },
  },
});
