import { sql, type DatabaseTransactionConnection } from '@otog/platform/db/pool';
import type { FoldContext } from '@otog/platform/notices/notice';
import { defineProjection, type SlotTables } from '@otog/platform/runner/projection';
import {
  ContestCreated,
  ContestDeleted,
  ContestEdited,
  ContestProblemRemoved,
  ContestProblemsAdded,
  ContestScoreboardRevealed,
  ContestantSignedUp,
  ProblemDeleted,
  SubmissionCreated,
  type ContestSettings,
} from '@otog/schemas/events';

/** "contest N changed" (its settings, problems or participants): the contest pages refetch. */
const changed = (context: FoldContext, contestId: number) => context.notify({ topic: 'contest', key: String(contestId) });

const settingsColumns = (settings: ContestSettings) => sql.fragment`
  ${settings.name}, ${settings.mode}, ${settings.gradingMode}, ${settings.scoreboardPolicy}, ${settings.timeStart}::timestamptz,
  ${settings.timeEnd}::timestamptz, ${settings.announce}, ${settings.freezeAt}::timestamptz`;

/**
 * Contests as the contest routes serve them: the contests, their problems (OTOG's contestProblem) and their
 * participants (OTOG's userContest: a user joins when an admin signs them up or when they first submit to
 * the contest). ContestCreated makes the contest; the other contest events only change or remove it, so an
 * event of a deleted contest changes nothing. Every write is an upsert, an assignment from the event or a
 * delete, so a redelivered event leaves the tables as they were.
 */
export const contestsProjection = defineProjection({
  name: 'contests',
  version: 1,
  tables: ['contests', 'problems', 'participants'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.contests} (
      id                 integer     PRIMARY KEY,
      name               text        NOT NULL,
      mode               text        NOT NULL,
      grading_mode       text        NOT NULL,
      scoreboard_policy  text        NOT NULL,
      time_start         timestamptz NOT NULL,
      time_end           timestamptz NOT NULL,
      announce           text,
      freeze_at          timestamptz,
      -- The freeze moment an admin lifted: the board is revealed while it is the current freeze_at.
      revealed_freeze_at timestamptz,
      created_at         timestamptz NOT NULL,
      updated_at         timestamptz NOT NULL)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.problems} (
      contest_id  integer NOT NULL,
      problem_id  integer NOT NULL,
      PRIMARY KEY (contest_id, problem_id))`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.participants} (
      contest_id  integer     NOT NULL,
      user_id     integer     NOT NULL,
      joined_at   timestamptz NOT NULL,
      PRIMARY KEY (contest_id, user_id))`);
    // "Which contests is this problem in" (hidden problems open to contestants) and "this user's contests".
    const [problems] = t.problems.names;
    const [participants] = t.participants.names;
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${sql.identifier([`${problems}_problem`])} ON ${t.problems} (problem_id)`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${sql.identifier([`${participants}_user`])} ON ${t.participants} (user_id)`);
  },
  on: {
    async [ContestCreated.type](tx, { data, occurredAt: at }, t, context) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.contests} (id, name, mode, grading_mode, scoreboard_policy, time_start, time_end, announce, freeze_at,
          created_at, updated_at)
        VALUES (${data.contestId}, ${settingsColumns(data.settings)}, ${at}, ${at})
        ON CONFLICT (id) DO NOTHING`);
      changed(context, data.contestId);
    },
    async [ContestEdited.type](tx, { data, occurredAt: at }, t, context) {
      const s = data.settings;
      await tx.query(sql.unsafe`
        UPDATE ${t.contests} SET name = ${s.name}, mode = ${s.mode}, grading_mode = ${s.gradingMode},
          scoreboard_policy = ${s.scoreboardPolicy}, time_start = ${s.timeStart}::timestamptz, time_end = ${s.timeEnd}::timestamptz,
          announce = ${s.announce}, freeze_at = ${s.freezeAt}::timestamptz, updated_at = ${at}
        WHERE id = ${data.contestId}`);
      changed(context, data.contestId);
    },
    async [ContestDeleted.type](tx, { data }, t, context) {
      await tx.query(sql.unsafe`DELETE FROM ${t.contests} WHERE id = ${data.contestId}`);
      await tx.query(sql.unsafe`DELETE FROM ${t.problems} WHERE contest_id = ${data.contestId}`);
      await tx.query(sql.unsafe`DELETE FROM ${t.participants} WHERE contest_id = ${data.contestId}`);
      changed(context, data.contestId);
    },
    async [ContestProblemsAdded.type](tx, { data }, t, context) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.problems} (contest_id, problem_id)
        SELECT ${data.contestId}, problem_id FROM unnest(${sql.array(data.problemIds, 'int4')}::integer[]) AS p(problem_id)
        WHERE EXISTS (SELECT 1 FROM ${t.contests} WHERE id = ${data.contestId})
        ON CONFLICT DO NOTHING`);
      changed(context, data.contestId);
    },
    async [ContestProblemRemoved.type](tx, { data }, t, context) {
      await tx.query(sql.unsafe`DELETE FROM ${t.problems} WHERE contest_id = ${data.contestId} AND problem_id = ${data.problemId}`);
      changed(context, data.contestId);
    },
    async [ContestantSignedUp.type](tx, { data, occurredAt: at }, t, context) {
      await join(tx, t, data.contestId, data.userId, at);
      changed(context, data.contestId);
    },
    async [SubmissionCreated.type](tx, { data, occurredAt: at }, t, context) {
      // OTOG: submitting to a contest makes the user a participant (before the submission is judged).
      if (data.contestId === null) return;
      if (await join(tx, t, data.contestId, data.userId, at)) changed(context, data.contestId);
    },
    async [ContestScoreboardRevealed.type](tx, { data, occurredAt: at }, t, context) {
      await tx.query(sql.unsafe`
        UPDATE ${t.contests} SET revealed_freeze_at = ${data.freezeAt}::timestamptz, updated_at = ${at} WHERE id = ${data.contestId}`);
      changed(context, data.contestId);
    },
    async [ProblemDeleted.type](tx, { data }, t) {
      await tx.query(sql.unsafe`DELETE FROM ${t.problems} WHERE problem_id = ${data.problemId}`);
    },
  },
});

/** Adds a participant of an existing contest; true when the row is new. */
async function join(tx: DatabaseTransactionConnection, t: SlotTables<'contests' | 'participants'>, contestId: number, userId: number, at: string): Promise<boolean> {
  const inserted = await tx.maybeOneFirst(sql.unsafe`
    INSERT INTO ${t.participants} (contest_id, user_id, joined_at)
    SELECT ${contestId}, ${userId}, ${at}::timestamptz WHERE EXISTS (SELECT 1 FROM ${t.contests} WHERE id = ${contestId})
    ON CONFLICT DO NOTHING
    RETURNING user_id`);
  return inserted !== null;
}
