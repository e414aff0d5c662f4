/**
 * Reads of the contests read model: contests, their problems (joined with the problems read model) and
 * their participants. Rows are parsed with zod; times are ISO strings.
 */
import { z } from 'zod';
import { sql, type Queryable } from '@otog/platform/db/pool';
import { readModel } from '@otog/platform/runner/read-model';
import { ContestModeSchema, GradingModeSchema, ScoreboardPolicySchema } from '@otog/schemas/common/contest';
import { problemsProjection } from '../problems/problems.projection.ts';
import { contestsProjection } from './contests.projection.ts';
import { idOrTextSearch } from '../search.ts';

const id = z.number().int();

export const ContestRecordSchema = z.object({
  id,
  name: z.string(),
  mode: ContestModeSchema,
  gradingMode: GradingModeSchema,
  scoreboardPolicy: ScoreboardPolicySchema,
  timeStart: z.string(),
  timeEnd: z.string(),
  announce: z.string().nullable(),
  freezeAt: z.string().nullable(),
  /** An admin lifted the current freeze (a reveal of the freeze at this very moment). */
  revealed: z.boolean(),
});
export type ContestRecord = z.infer<typeof ContestRecordSchema>;

const COLUMNS = sql.fragment`c.id, c.name, c.mode, c.grading_mode AS "gradingMode", c.scoreboard_policy AS "scoreboardPolicy",
  c.time_start AS "timeStart", c.time_end AS "timeEnd", c.announce, c.freeze_at AS "freezeAt",
  COALESCE(c.revealed_freeze_at = c.freeze_at, false) AS revealed`;

const ContestProblemRowSchema = z.object({ id, name: z.string(), score: id, show: z.boolean() });
export type ContestProblemRow = z.infer<typeof ContestProblemRowSchema>;

const Count = z.object({ count: id });
const Exists = z.object({ exists: z.boolean() });

/** An exact id, or the name containing the text in any case. */
const searchCondition = (search: string | undefined) => idOrTextSearch(search, sql.identifier(['c', 'id']), [sql.identifier(['c', 'name'])]);

const live = readModel({ c: contestsProjection, p: problemsProjection });

export type ContestQueries = ReturnType<typeof createContestQueries>;

export function createContestQueries(pool: Queryable) {
  return {
    async find(contestId: number): Promise<ContestRecord | null> {
      const { c } = await live(pool);
      return pool.maybeOne(sql.type(ContestRecordSchema)`SELECT ${COLUMNS} FROM ${c.contests} c WHERE c.id = ${contestId}`);
    },

    /** Newest first; `search` matches an id or part of the name. */
    async list(options: { search?: string | undefined; limit: number; skip: number }): Promise<{ total: number; data: ContestRecord[] }> {
      const { c } = await live(pool);
      const where = searchCondition(options.search);
      const total = await pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS count FROM ${c.contests} c WHERE ${where}`);
      const data = await pool.any(sql.type(ContestRecordSchema)`
        SELECT ${COLUMNS} FROM ${c.contests} c WHERE ${where} ORDER BY c.id DESC LIMIT ${options.limit} OFFSET ${options.skip}`);
      return { total, data: [...data] };
    },

    /** Contests not yet over at `now` (running and upcoming), the soonest first. */
    async current(now: Date): Promise<ContestRecord[]> {
      const { c } = await live(pool);
      return [
        ...(await pool.any(sql.type(ContestRecordSchema)`
          SELECT ${COLUMNS} FROM ${c.contests} c WHERE c.time_end >= ${now.toISOString()}::timestamptz ORDER BY c.time_start, c.id`)),
      ];
    },

    /** The contest's problems that still exist, by problem id. */
    async problems(contestId: number): Promise<ContestProblemRow[]> {
      const { c, p } = await live(pool);
      return [
        ...(await pool.any(sql.type(ContestProblemRowSchema)`
          SELECT p.id, p.name, p.score, p.show FROM ${c.problems} cp JOIN ${p.problems} p ON p.id = cp.problem_id
          WHERE cp.contest_id = ${contestId} ORDER BY p.id`)),
      ];
    },

    async hasProblem(contestId: number, problemId: number): Promise<boolean> {
      const { c } = await live(pool);
      return pool.oneFirst(sql.type(Exists)`
        SELECT EXISTS (SELECT 1 FROM ${c.problems} WHERE contest_id = ${contestId} AND problem_id = ${problemId})`);
    },

    async isParticipant(contestId: number, userId: number): Promise<boolean> {
      const { c } = await live(pool);
      return pool.oneFirst(sql.type(Exists)`
        SELECT EXISTS (SELECT 1 FROM ${c.participants} WHERE contest_id = ${contestId} AND user_id = ${userId})`);
    },

    /**
     * The participants' user ids: role-`user` accounts only when `usersOnly` (admins are never ranked), only
     * those who had joined by `joinedBy` when given (a replay).
     */
    async participants(contestId: number, options: { usersOnly: boolean; joinedBy?: Date }): Promise<number[]> {
      const { c } = await live(pool);
      const role = options.usersOnly ? sql.fragment`JOIN accounts a ON a.id = u.user_id AND a.role = 'user'` : sql.fragment``;
      const joined = options.joinedBy ? sql.fragment`u.joined_at <= ${options.joinedBy.toISOString()}::timestamptz` : sql.fragment`TRUE`;
      return [
        ...(await pool.anyFirst(sql.type(z.object({ userId: id }))`
          SELECT u.user_id AS "userId" FROM ${c.participants} u ${role} WHERE u.contest_id = ${contestId} AND ${joined} ORDER BY u.user_id`)),
      ];
    },

    /**
     * Hidden problems the user may open now: those of contests running at `now` that the user takes part
     * in (a contestant reads a hidden contest problem only during the contest).
     */
    async problemsOpenTo(userId: number, now: Date): Promise<number[]> {
      const { c } = await live(pool);
      const at = now.toISOString();
      return [
        ...(await pool.anyFirst(sql.type(z.object({ problemId: id }))`
          SELECT DISTINCT cp.problem_id AS "problemId"
          FROM ${c.participants} u
          JOIN ${c.contests} c ON c.id = u.contest_id AND c.time_start <= ${at}::timestamptz AND c.time_end > ${at}::timestamptz
          JOIN ${c.problems} cp ON cp.contest_id = c.id
          WHERE u.user_id = ${userId}
          ORDER BY 1`)),
      ];
    },
  };
}
