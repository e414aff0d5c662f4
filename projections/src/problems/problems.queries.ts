/**
 * Reads of the problems read model (and, for the table's passed counts and latest submissions, the
 * submissions read model; for the solvers' names, the accounts). Every list is one query, whatever the
 * number of problems. Rows are parsed with the shapes the API serves.
 */
import { z } from 'zod';
import { sql, type DatabasePool, type Queryable } from '@otog/platform/db/pool';
import { readModel, readModelSlots } from '@otog/platform/runner/read-model';
import { ratingsProjection } from '../ratings/ratings.projection.ts';
import { ratingOf } from '../ratings/ratings.queries.ts';
import { SubmissionStatusSchema, type SubmissionStatus } from '@otog/schemas/common/judging';
import {
  PassedUserSchema,
  ProblemSchema,
  ProblemSearchItemSchema,
  ProblemTableRowSchema,
  type PassedUser,
  type Problem,
  type SubmissionSummary,
} from '@otog/schemas/api/problem';
import { submissionsProjection } from '../submissions/submissions.projection.ts';
import { problemsProjection } from './problems.projection.ts';
import { idOrTextSearch } from '../search.ts';

/** A problem row with the command side's file references (never sent to clients as such). */
const ProblemRecordSchema = ProblemSchema.extend({
  statementHash: z.string().nullable(),
  attachmentHash: z.string().nullable(),
  testdataHash: z.string().nullable(),
});
export type ProblemRecord = z.infer<typeof ProblemRecordSchema>;

const TableRow = ProblemTableRowSchema.omit({ latestSubmission: true });
export type SharedTableRow = z.infer<typeof TableRow>;
const TableVersion = z.object({ problems: z.bigint(), passed: z.bigint(), live: z.string(), mine: z.bigint().nullable() });
/** A user's latest submission on a problem, as latestSubmissions reads it (json_build_array of the columns). */
type LatestEntry = [problemId: number, id: number, status: SubmissionStatus, isPublic: boolean];
const Latest = z.object({ latest: z.string() });
const PassedRow = PassedUserSchema.omit({ passedSubmission: true }).extend({
  submissionId: z.number().int(),
  status: SubmissionStatusSchema,
  public: z.boolean(),
});
const Count = z.object({ count: z.number().int() });
const Exists = z.object({ exists: z.boolean() });

const PROBLEM_COLUMNS = sql.fragment`p.id, p.name, p.sname, p.score, p.time_limit AS "timeLimit", p.memory_limit AS "memoryLimit", p.show,
  p.recent_show_time AS "recentShowTime", p."case", p.rating`;

const RECORD_COLUMNS = sql.fragment`${PROBLEM_COLUMNS}, p.examples, p.attachment_metadata AS "attachmentMetadata",
  p.statement_hash AS "statementHash", p.attachment_hash AS "attachmentHash", p.testdata_hash AS "testdataHash"`;

/** The public shape of a record (drops the file references). */
export function toProblem(record: ProblemRecord): Problem {
  return {
    id: record.id,
    name: record.name,
    sname: record.sname,
    score: record.score,
    timeLimit: record.timeLimit,
    memoryLimit: record.memoryLimit,
    show: record.show,
    recentShowTime: record.recentShowTime,
    case: record.case,
    rating: record.rating,
    examples: record.examples,
    attachmentMetadata: record.attachmentMetadata,
  };
}

/** OTOG's admin search: an exact id, or name/sname containing the text in any case. */
const searchCondition = (search: string | undefined) =>
  idOrTextSearch(search, sql.identifier(['p', 'id']), [sql.identifier(['p', 'name']), sql.identifier(['p', 'sname'])]);

const live = readModel({ p: problemsProjection, s: submissionsProjection, r: ratingsProjection });

export type ProblemQueries = ReturnType<typeof createProblemQueries>;

/**
 * The code versions that made the tables the cached problem table reads: problems' `version` (2) and
 * submissions' `solvers`, `roles`, `passed_version` (3) and `user_version` (4). During a deploy, the older code's slots
 * stay live (without those tables) until the new ones, rebuilt from the log, are cut over.
 */
const TABLE_CODE = { problems: 2, submissions: 4 } as const;
const tableSlots = readModelSlots({ p: problemsProjection, s: submissionsProjection });

const slotKey = (projection: string, slot: { generation: number; codeVersion: number }) => `${projection}:${slot.generation}:${slot.codeVersion}`;

/**
 * The live slots' tables when both have the tables of the kept counts, else null (an older code's slot is
 * live); with `live`, which slots they are, as liveKeyNow reads it.
 */
async function keptTables(db: Queryable) {
  const { p, s } = await tableSlots(db);
  if (p.codeVersion < TABLE_CODE.problems || s.codeVersion < TABLE_CODE.submissions) return null;
  return { p: p.tables, s: s.tables, live: [slotKey(problemsProjection.name, p), slotKey(submissionsProjection.name, s)].sort().join(',') };
}
type KeptTables = NonNullable<Awaited<ReturnType<typeof keptTables>>>;

/** The live slots of both projections now, in keptTables' `live` form. */
const liveKeyNow = sql.fragment`(
  SELECT coalesce(string_agg(projection || ':' || version || ':' || code_version, ',' ORDER BY projection), '')
  FROM projection_slots WHERE state = 'live' AND projection IN (${problemsProjection.name}, ${submissionsProjection.name}))`;

/** What a GET /problem needs to know before its answer: the shared table's version and the caller's. */
export interface TableState {
  /** Null while an older code's slot is live: the table is then counted per request. */
  readonly version: string | null;
  /**
   * For a signed-in caller while the table is kept: the log position of the last change to their submissions
   * (`user_version`; 0 when they never submitted), the version of their latest submissions. Null for an
   * anonymous caller, or while an older code's slot is live.
   */
  readonly mine: bigint | null;
}

/**
 * The kept tables' version and, in the same statement (so the same snapshot), which slots are live now
 * and, for a user, the version of their submissions (a primary-key read).
 */
async function versionOf(db: Queryable, kept: KeptTables, userId: number | null = null): Promise<TableState & { live: string }> {
  const { p, s } = kept;
  const mine = userId === null ? sql.fragment`NULL` : sql.fragment`coalesce((SELECT position FROM ${s.user_version} WHERE user_id = ${userId}), 0)`;
  const at = await db.one(sql.type(TableVersion)`
    SELECT (SELECT position FROM ${p.version}) AS problems, (SELECT position FROM ${s.passed_version}) AS passed,
      ${liveKeyNow} AS live, ${mine} AS mine`);
  return {
    version: `${p.version.names.join('.')}@${at.problems}/${s.passed_version.names.join('.')}@${at.passed}`,
    live: at.live,
    mine: at.mine,
  };
}

/** The given problems that exist, by id (on a pool, or in a transaction that reads other models beside them). */
export async function findProblems(db: Queryable, problemIds: readonly number[]): Promise<ProblemRecord[]> {
  const { p } = await live(db);
  return [
    ...(await db.any(sql.type(ProblemRecordSchema)`
      SELECT ${RECORD_COLUMNS} FROM ${p.problems} p WHERE p.id = ANY(${sql.array([...problemIds], 'int4')}) ORDER BY p.id`)),
  ];
}

export function createProblemQueries(pool: DatabasePool) {
  /**
   * The kept tables last found live, so that the version asked for by every GET /problem is one statement:
   * it reads them and which slots are live in the same snapshot, and is used only when those are still the
   * ones (after a cutover it is not, and the slots are looked up again; a retired slot's tables, once
   * dropped, fail the statement, with the same outcome). So the version never comes from a retired slot.
   */
  let lastKept: KeptTables | null = null;

  return {
    /**
     * The user's latest submission on each problem they submitted to, by problem id: read as one JSON array of
     * arrays of the typed columns this projection's code wrote (one JSON.parse for the ~2,000 a busy user has,
     * not a row and a schema check each).
     */
    async latestSubmissions(userId: number): Promise<Map<number, SubmissionSummary>> {
      const { s } = await live(pool);
      const { latest } = await pool.one(sql.type(Latest)`
        SELECT coalesce(json_agg(json_build_array(x.problem_id, x.id, x.status, x.public)), '[]')::text AS latest
        FROM (SELECT DISTINCT ON (problem_id) problem_id, id, status, public FROM ${s.submissions} WHERE user_id = ${userId}
              ORDER BY problem_id, id DESC) x`);
      return new Map(
        (JSON.parse(latest) as LatestEntry[]).map(([problemId, id, status, isPublic]) => [problemId, { id, status, userId, public: isPublic }]),
      );
    },

    async find(problemId: number): Promise<ProblemRecord | null> {
      const { p } = await live(pool);
      return pool.maybeOne(sql.type(ProblemRecordSchema)`SELECT ${RECORD_COLUMNS} FROM ${p.problems} p WHERE p.id = ${problemId}`);
    },

    /** The given problems that exist, by id. */
    findMany: (problemIds: readonly number[]) => findProblems(pool, problemIds),

    async isEmpty(): Promise<boolean> {
      const { p } = await live(pool);
      return !(await pool.oneFirst(sql.type(Exists)`SELECT EXISTS (SELECT 1 FROM ${p.problems})`));
    },

    /**
     * In one statement when the slots are the ones last found live: the version of the problem table's shared
     * part (problems and passed counts), i.e. the live slots and the log positions of their last changes (it
     * moves whenever a row of the table changes, and only then), and the version of the caller's submissions.
     * Both are null while an older code's slot is live (a deploy's rebuild): the table is then counted, and
     * the caller's latest submissions read, per request, not cached.
     */
    async tableState(userId: number | null): Promise<TableState> {
      const known = lastKept;
      if (known) {
        const at = await versionOf(pool, known, userId).catch(() => null);
        if (at?.live === known.live) return at;
      }
      const kept = await keptTables(pool);
      lastKept = kept;
      if (kept) return versionOf(pool, kept, userId);
      return { version: null, mine: null };
    },

    /**
     * The problem table's part that is the same for every caller who sees the same problems: shown ones (all
     * for admins), newest first, each with its passed count (its solvers of role `user` as the submissions
     * projection keeps them: one grouped pass, made once per version by the cache); read in
     * one snapshot with the version it is at (null, and the counts made per request as before they were kept,
     * while an older code's slot is live).
     */
    async table(options: { includeHidden: boolean }): Promise<{ version: string | null; rows: SharedTableRow[] }> {
      return pool.transaction(async (tx) => {
        await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
        const kept = await keptTables(tx);
        if (!kept) {
          // The old code's slots have the problems and the submissions, not the kept counts: one grouped pass
          // over the accepted submissions, counting solvers of role `user` (the query before counts were kept).
          const { p, s } = await live(tx);
          const rows = await tx.any(sql.type(TableRow)`
            SELECT ${PROBLEM_COLUMNS}, coalesce(passed.count, 0) AS "passedCount"
            FROM ${p.problems} p
            LEFT JOIN (
              SELECT accepted.problem_id, count(*)::int AS count
              FROM (SELECT DISTINCT problem_id, user_id FROM ${s.submissions} WHERE status = 'accept') accepted
              JOIN accounts a ON a.id = accepted.user_id AND a.role = 'user'
              GROUP BY accepted.problem_id
            ) passed ON passed.problem_id = p.id
            WHERE ${options.includeHidden ? sql.fragment`TRUE` : sql.fragment`p.show`}
            ORDER BY p.id DESC`);
          return { version: null, rows: [...rows] };
        }
        const { version } = await versionOf(tx, kept);
        const { p, s } = kept;
        const rows = await tx.any(sql.type(TableRow)`
          SELECT ${PROBLEM_COLUMNS}, coalesce(c.count, 0) AS "passedCount"
          FROM ${p.problems} p
          LEFT JOIN (
            SELECT v.problem_id, count(*)::int AS count
            FROM ${s.solvers} v JOIN ${s.roles} r ON r.user_id = v.user_id AND r.role = 'user'
            GROUP BY v.problem_id
          ) c ON c.problem_id = p.id
          WHERE ${options.includeHidden ? sql.fragment`TRUE` : sql.fragment`p.show`}
          ORDER BY p.id DESC`);
        return { version, rows: [...rows] };
      });
    },

    async search(options: { search?: string | undefined; limit: number; skip: number }): Promise<Array<Pick<Problem, 'id' | 'name' | 'sname'>>> {
      const { p } = await live(pool);
      return [
        ...(await pool.any(sql.type(ProblemSearchItemSchema)`
          SELECT p.id, p.name, p.sname FROM ${p.problems} p WHERE ${searchCondition(options.search)}
          ORDER BY p.id DESC LIMIT ${options.limit} OFFSET ${options.skip}`)),
      ];
    },

    async adminList(options: { search?: string | undefined; limit: number; skip: number }): Promise<{ total: number; data: Problem[] }> {
      const { p } = await live(pool);
      const where = searchCondition(options.search);
      const total = await pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS count FROM ${p.problems} p WHERE ${where}`);
      const data = await pool.any(sql.type(ProblemRecordSchema)`
        SELECT ${RECORD_COLUMNS} FROM ${p.problems} p WHERE ${where}
        ORDER BY p.id DESC LIMIT ${options.limit} OFFSET ${options.skip}`);
      return { total, data: data.map(toProblem) };
    },

    /** Role-`user` users with an accepted submission on the problem, newest user first, with their latest accepted one. */
    async passedUsers(problemId: number): Promise<PassedUser[]> {
      const { s, r } = await live(pool);
      const rows = await pool.any(sql.type(PassedRow)`
        SELECT DISTINCT ON (s.user_id) a.id, a.role, a.username, a.show_name AS "showName", ${ratingOf(r.ratings, 'a')} AS rating,
          s.id AS "submissionId", s.status, s.public
        FROM ${s.submissions} s JOIN accounts a ON a.id = s.user_id AND a.role = 'user'
        WHERE s.problem_id = ${problemId} AND s.status = 'accept'
        ORDER BY s.user_id DESC, s.id DESC`);
      return rows.map((row) => ({
        id: row.id,
        role: row.role,
        username: row.username,
        showName: row.showName,
        rating: row.rating,
        passedSubmission: { id: row.submissionId, status: row.status, userId: row.id, public: row.public },
      }));
    },
  };
}
