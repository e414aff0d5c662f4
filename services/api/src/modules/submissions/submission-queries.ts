/**
 * Reads of the submissions read model, joined with the problems read model (name, limits, full score) and
 * the command-side accounts (the user as they are now, not as when they submitted).
 */
import { problemsProjection, submissionsProjection } from '@otog/projections';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { Language, SubmissionStatus, SubtaskResult } from '@otog/schemas/common/judging';
import { readModel } from '../../http/read-models.ts';
import type { ListFilter, SubmissionFacts } from './rules.ts';

export interface SubmissionRow {
  readonly id: number;
  readonly status: SubmissionStatus;
  readonly contestId: number | null;
  readonly language: Language;
  readonly creationDate: string;
  readonly public: boolean;
  readonly userId: number;
  readonly problemId: number;
  readonly problemName: string;
  /** Whether the problem is shown: who may see the submission (rules.ts canSeeItsProblem). */
  readonly problemShow: boolean;
  readonly timeLimit: number;
  readonly memoryLimit: number;
  readonly problemScore: number;
  readonly username: string;
  readonly showName: string;
  readonly role: 'user' | 'admin';
  readonly rating: number | null;
  /** null until judged (and again after a rejudge is requested). */
  readonly result: string | null;
  readonly score: number | null;
  readonly timeUsed: number | null;
  readonly memUsed: number | null;
  readonly errmsg: string | null;
}

export interface SubmissionDetailRow extends SubmissionRow {
  readonly sourceCode: string;
  readonly subtaskResults: readonly SubtaskResult[] | null;
}

export interface ProblemFacts {
  readonly id: number;
  readonly name: string;
  readonly show: boolean;
  readonly timeLimit: number;
  readonly memoryLimit: number;
  readonly score: number;
}

export interface Page {
  readonly offset?: number | undefined;
  readonly limit: number;
}

/** Characters that are literal in a LIKE pattern only when escaped. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function createSubmissionQueries(pool: DatabasePool) {
  const submissionTables = readModel(pool, submissionsProjection);
  const problemTables = readModel(pool, problemsProjection);

  async function select(where: ReturnType<typeof sql.fragment>[], options: { detail: boolean; limit: number }) {
    const [{ submissions }, { problems }] = await Promise.all([submissionTables(), problemTables()]);
    const condition = where.length ? sql.join(where, sql.fragment` AND `) : sql.fragment`true`;
    const detail = options.detail ? sql.fragment`, s.source_code AS "sourceCode", s.subtask_results AS "subtaskResults"` : sql.fragment``;
    return pool.any(sql.unsafe`
      SELECT s.id, s.status, s.contest_id AS "contestId", s.language, s.creation_date AS "creationDate", s.public,
        s.user_id AS "userId", p.id AS "problemId", p.name AS "problemName", p.show AS "problemShow", p.time_limit AS "timeLimit",
        p.memory_limit AS "memoryLimit", p.score AS "problemScore", a.username, a.show_name AS "showName", a.role, a.rating,
        s.result, s.score, s.time_used AS "timeUsed", s.mem_used AS "memUsed", s.errmsg ${detail}
      FROM ${submissions} s
      JOIN ${problems} p ON p.id = s.problem_id
      JOIN accounts a ON a.id = s.user_id
      WHERE ${condition}
      ORDER BY s.id DESC
      LIMIT ${options.limit}`);
  }

  function conditions(filter: ListFilter, page?: Page) {
    const where = [];
    if (page?.offset !== undefined) where.push(sql.fragment`s.id < ${page.offset}`);
    if (filter.userId !== undefined) where.push(sql.fragment`s.user_id = ${filter.userId}`);
    if (filter.problemId !== undefined) where.push(sql.fragment`s.problem_id = ${filter.problemId}`);
    if (filter.contestId !== undefined) where.push(sql.fragment`s.contest_id = ${filter.contestId}`);
    if (filter.nonContest) where.push(sql.fragment`s.contest_id IS NULL`);
    if (filter.ofUsersOnly) where.push(sql.fragment`a.role = 'user'`);
    if (filter.problemSearch) where.push(sql.fragment`p.name ILIKE ${likeContains(filter.problemSearch)}`);
    if (filter.userSearch) where.push(sql.fragment`a.show_name ILIKE ${likeContains(filter.userSearch)}`);
    if (filter.visibleProblems) where.push(sql.fragment`(p.show OR p.id = ANY(${sql.array(filter.visibleProblems.hiddenAllowed, 'int4')}))`);
    return where;
  }

  return {
    /** One page, newest first: ids below `offset` (the last id of the previous page). */
    async list(filter: ListFilter, page: Page): Promise<SubmissionRow[]> {
      return (await select(conditions(filter, page), { detail: false, limit: page.limit })) as unknown as SubmissionRow[];
    },

    async byId(id: number): Promise<SubmissionDetailRow | null> {
      const [row] = await select([sql.fragment`s.id = ${id}`], { detail: true, limit: 1 });
      return (row as unknown as SubmissionDetailRow | undefined) ?? null;
    },

    /** The newest submission the filter allows (a user's, of one problem when given), contest ones included. */
    async latest(filter: ListFilter): Promise<SubmissionDetailRow | null> {
      const [row] = await select(conditions(filter), { detail: true, limit: 1 });
      return (row as unknown as SubmissionDetailRow | undefined) ?? null;
    },

    async problem(problemId: number): Promise<ProblemFacts | null> {
      const { problems } = await problemTables();
      return (await pool.maybeOne(sql.unsafe`
        SELECT id, name, show, time_limit AS "timeLimit", memory_limit AS "memoryLimit", score FROM ${problems} WHERE id = ${problemId}`)) as ProblemFacts | null;
    },

    /** Every submission of a problem (contest ones included), oldest first: what a problem rejudge covers. */
    async ofProblem(problemId: number): Promise<Array<{ id: number; userId: number; contestId: number | null }>> {
      const { submissions } = await submissionTables();
      return (await pool.any(sql.unsafe`
        SELECT id, user_id AS "userId", contest_id AS "contestId" FROM ${submissions} WHERE problem_id = ${problemId} ORDER BY id`)) as unknown as Array<{
        id: number;
        userId: number;
        contestId: number | null;
      }>;
    },

    /** The facts the access rules need, without the user's join (commands on a submission). */
    async facts(id: number): Promise<(SubmissionFacts & { id: number }) | null> {
      const [{ submissions }, { problems }] = await Promise.all([submissionTables(), problemTables()]);
      return (await pool.maybeOne(sql.unsafe`
        SELECT s.id, s.user_id AS "userId", s.problem_id AS "problemId", p.show AS "problemShow", s.contest_id AS "contestId", s.public
        FROM ${submissions} s JOIN ${problems} p ON p.id = s.problem_id WHERE s.id = ${id}`)) as (SubmissionFacts & { id: number }) | null;
    },
  };
}

export type SubmissionQueries = ReturnType<typeof createSubmissionQueries>;
