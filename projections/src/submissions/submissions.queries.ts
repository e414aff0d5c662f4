/**
 * Reads of the submissions read model, joined with the problems read model (name, limits, full score) and
 * the command-side accounts (the user as they are now, not as when they submitted).
 */
import { z } from 'zod';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import { readModel } from '@otog/platform/runner/read-model';
import { ratingsProjection } from '../ratings/ratings.projection.ts';
import { ratingOf } from '../ratings/ratings.queries.ts';
import { RoleSchema } from '@otog/schemas/api/contract';
import { LanguageSchema, SubmissionStatusSchema, SubtaskResultSchema } from '@otog/schemas/common/judging';
import { problemsProjection } from '../problems/problems.projection.ts';
import { submissionsProjection } from './submissions.projection.ts';
import { likeContains } from '../search.ts';

/** What a list query may return; every field narrows it. */
export interface ListFilter {
  readonly userId?: number;
  readonly problemId?: number;
  readonly contestId?: number;
  /** Only submissions outside contests. */
  readonly nonContest?: boolean;
  /** Only submissions of role-`user` accounts (admins' test submissions stay out of public lists). */
  readonly ofUsersOnly?: boolean;
  /** Problem name contains (case-insensitive). */
  readonly problemSearch?: string;
  /** Show name contains (case-insensitive). */
  readonly userSearch?: string;
  /** Only submissions to shown problems, or to the hidden ones listed here (absent: every problem). */
  readonly visibleProblems?: { readonly hiddenAllowed: readonly number[] };
  /** A frozen contest: other users' submissions only when made at or before `until` (ISO); the viewer's own always. */
  readonly othersUntil?: { readonly viewer: number | null; readonly until: string };
}

const id = z.number().int();

/** The facts of a submission the access rules look at. */
const SubmissionFactsSchema = z.object({
  userId: id,
  problemId: id,
  problemShow: z.boolean(),
  contestId: id.nullable(),
  public: z.boolean(),
});
export type SubmissionFacts = z.infer<typeof SubmissionFactsSchema>;

const SubmissionRowSchema = z.object({
  id,
  status: SubmissionStatusSchema,
  contestId: id.nullable(),
  language: LanguageSchema,
  creationDate: z.string(),
  public: z.boolean(),
  userId: id,
  problemId: id,
  problemName: z.string(),
  /** Whether the problem is shown: who may see the submission (the API's canSeeItsProblem). */
  problemShow: z.boolean(),
  timeLimit: id,
  memoryLimit: id,
  problemScore: id,
  username: z.string(),
  showName: z.string(),
  role: RoleSchema,
  rating: id.nullable(),
  /** null until judged (and again after a rejudge is requested). */
  result: z.string().nullable(),
  score: id.nullable(),
  timeUsed: id.nullable(),
  memUsed: id.nullable(),
  errmsg: z.string().nullable(),
});
export type SubmissionRow = z.infer<typeof SubmissionRowSchema>;

const SubmissionDetailRowSchema = SubmissionRowSchema.extend({
  sourceCode: z.string(),
  subtaskResults: z.array(SubtaskResultSchema).nullable(),
});
export type SubmissionDetailRow = z.infer<typeof SubmissionDetailRowSchema>;

const ProblemFactsSchema = z.object({ id, name: z.string(), show: z.boolean(), timeLimit: id, memoryLimit: id, score: id });
export type ProblemFacts = z.infer<typeof ProblemFactsSchema>;

const AuthorSchema = z.object({ username: z.string(), showName: z.string(), role: RoleSchema, rating: id.nullable() });
const UploadFactsRow = ProblemFactsSchema.extend({ author: AuthorSchema.nullable() });
export type UploadFacts = { readonly problem: ProblemFacts; readonly author: z.infer<typeof AuthorSchema> | null };

const OfProblemRow = z.object({ id, userId: id, contestId: id.nullable() });

export interface Page {
  readonly offset?: number | undefined;
  readonly limit: number;
}

type Fragment = ReturnType<typeof sql.fragment>;

/** Characters that are literal in a LIKE pattern only when escaped. */

function conditions(filter: ListFilter, page?: Page): Fragment[] {
  const where = [];
  if (page?.offset !== undefined) where.push(sql.fragment`s.id < ${page.offset}`);
  if (filter.userId !== undefined) where.push(sql.fragment`s.user_id = ${filter.userId}`);
  if (filter.problemId !== undefined) where.push(sql.fragment`s.problem_id = ${filter.problemId}`);
  if (filter.contestId !== undefined) where.push(sql.fragment`s.contest_id = ${filter.contestId}`);
  if (filter.nonContest) where.push(sql.fragment`s.contest_id IS NULL`);
  if (filter.ofUsersOnly) where.push(sql.fragment`a.role = 'user'`);
  if (filter.problemSearch) where.push(sql.fragment`p.name ILIKE ${likeContains(filter.problemSearch)}`);
  if (filter.userSearch) where.push(sql.fragment`a.show_name ILIKE ${likeContains(filter.userSearch)}`);
  if (filter.othersUntil) {
    const { viewer, until } = filter.othersUntil;
    const own = viewer === null ? sql.fragment`FALSE` : sql.fragment`s.user_id = ${viewer}`;
    where.push(sql.fragment`(${own} OR s.creation_date <= ${until}::timestamptz)`);
  }
  if (filter.visibleProblems) where.push(sql.fragment`(p.show OR p.id = ANY(${sql.array(filter.visibleProblems.hiddenAllowed, 'int4')}))`);
  return where;
}

const DETAIL_COLUMNS = sql.fragment`, s.source_code AS "sourceCode", s.subtask_results AS "subtaskResults"`;

const live = readModel({ s: submissionsProjection, p: problemsProjection, r: ratingsProjection });

export function createSubmissionQueries(pool: DatabasePool) {
  /** `schema` is SubmissionRowSchema, or SubmissionDetailRowSchema with `detail` its extra columns. */
  async function select<T extends z.ZodType>(schema: T, detail: Fragment, where: readonly Fragment[], limit: number) {
    const { s, p, r } = await live(pool);
    const condition = where.length ? sql.join(where, sql.fragment` AND `) : sql.fragment`true`;
    return pool.any(sql.type(schema)`
      SELECT s.id, s.status, s.contest_id AS "contestId", s.language, s.creation_date AS "creationDate", s.public,
        s.user_id AS "userId", p.id AS "problemId", p.name AS "problemName", p.show AS "problemShow", p.time_limit AS "timeLimit",
        p.memory_limit AS "memoryLimit", p.score AS "problemScore", a.username, a.show_name AS "showName", a.role, ${ratingOf(r.ratings, 'a')} AS rating,
        s.result, s.score, s.time_used AS "timeUsed", s.mem_used AS "memUsed", s.errmsg ${detail}
      FROM ${s.submissions} s
      JOIN ${p.problems} p ON p.id = s.problem_id
      JOIN accounts a ON a.id = s.user_id
      WHERE ${condition}
      ORDER BY s.id DESC
      LIMIT ${limit}`);
  }

  return {
    /** One page, newest first: ids below `offset` (the last id of the previous page). */
    async list(filter: ListFilter, page: Page): Promise<SubmissionRow[]> {
      return [...(await select(SubmissionRowSchema, sql.fragment``, conditions(filter, page), page.limit))];
    },

    async byId(submissionId: number): Promise<SubmissionDetailRow | null> {
      const [row] = await select(SubmissionDetailRowSchema, DETAIL_COLUMNS, [sql.fragment`s.id = ${submissionId}`], 1);
      return row ?? null;
    },

    /** The newest submission the filter allows (a user's, of one problem when given), contest ones included. */
    async latest(filter: ListFilter): Promise<SubmissionDetailRow | null> {
      const [row] = await select(SubmissionDetailRowSchema, DETAIL_COLUMNS, conditions(filter), 1);
      return row ?? null;
    },

    async problem(problemId: number): Promise<ProblemFacts | null> {
      const { p } = await live(pool);
      return pool.maybeOne(sql.type(ProblemFactsSchema)`
        SELECT id, name, show, time_limit AS "timeLimit", memory_limit AS "memoryLimit", score FROM ${p.problems} WHERE id = ${problemId}`);
    },

    /**
     * What an upload needs besides its contest, in one statement: the problem (null when there is none) and the
     * author as a submission lists them (null when the account is gone).
     */
    async uploadFacts(problemId: number, userId: number): Promise<UploadFacts | null> {
      const { p, r } = await live(pool);
      const row = await pool.maybeOne(sql.type(UploadFactsRow)`
        SELECT p.id, p.name, p.show, p.time_limit AS "timeLimit", p.memory_limit AS "memoryLimit", p.score,
          (SELECT json_build_object('username', a.username, 'showName', a.show_name, 'role', a.role, 'rating', ${ratingOf(r.ratings, 'a')})
           FROM accounts a WHERE a.id = ${userId}) AS author
        FROM ${p.problems} p WHERE p.id = ${problemId}`);
      if (!row) return null;
      const { author, ...problem } = row;
      return { problem, author };
    },

    /** Every submission of a problem (contest ones included), oldest first: what a problem rejudge covers. */
    async ofProblem(problemId: number): Promise<Array<z.infer<typeof OfProblemRow>>> {
      const { s } = await live(pool);
      return [
        ...(await pool.any(sql.type(OfProblemRow)`
          SELECT id, user_id AS "userId", contest_id AS "contestId" FROM ${s.submissions} WHERE problem_id = ${problemId} ORDER BY id`)),
      ];
    },

    /** The facts the access rules need, without the user's join (commands on a submission). */
    async facts(submissionId: number): Promise<(SubmissionFacts & { id: number }) | null> {
      const { s, p } = await live(pool);
      return pool.maybeOne(sql.type(SubmissionFactsSchema.extend({ id }))`
        SELECT s.id, s.user_id AS "userId", s.problem_id AS "problemId", p.show AS "problemShow", s.contest_id AS "contestId", s.public
        FROM ${s.submissions} s JOIN ${p.problems} p ON p.id = s.problem_id WHERE s.id = ${submissionId}`);
    },
  };
}

export type SubmissionQueries = ReturnType<typeof createSubmissionQueries>;
