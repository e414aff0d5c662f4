/**
 * Reads of the contest-scores read model: a contest's cells (OTOG's contestScore rows), a contestant's
 * score history, the accepted submissions prizes are awarded from, and the judged journal that frozen and
 * replayed boards are folded from.
 */
import { z } from 'zod';
import { sql, type Queryable } from '@otog/platform/db/pool';
import { readModel } from '@otog/platform/runner/read-model';
import { submissionsProjection } from '../submissions/submissions.projection.ts';
import { contestScoresProjection } from './contest-scores.projection.ts';

const id = z.number().int();
const millis = z.number();

const CellRowSchema = z.object({
  /** OTOG's contestScore.id. */
  id,
  userId: id,
  problemId: id,
  score: id,
  penalty: id,
  /** acm: the first accepted submission's time (ms). */
  solvedAt: millis.nullable(),
  /** The deciding submission's time (OTOG's latestSubmission). */
  latestSubmission: z.string().nullable(),
});
export type CellRow = z.infer<typeof CellRowSchema>;

const HistoryRowSchema = z.object({
  contestScoreId: id,
  problemId: id,
  submissionId: id,
  score: id,
  creationDate: z.string(),
  /** The submission's own current result, when it has one. */
  resultScore: id.nullable(),
  subtasks: z.array(z.object({ subtaskIndex: id, score: z.number(), fullScore: z.number() })).nullable(),
});
export type HistoryRow = z.infer<typeof HistoryRowSchema>;

const JudgedEntrySchema = z.object({
  submissionId: id,
  userId: id,
  problemId: id,
  submittedAt: millis,
  status: z.enum(['accept', 'reject']),
  score: id,
  subtasks: z.array(z.object({ score: z.number(), fullScore: z.number() })),
});
export type JudgedEntry = z.infer<typeof JudgedEntrySchema>;

const PendingCountSchema = z.object({ userId: id, problemId: id, count: id });
const ProblemScoreSchema = z.object({ problemId: id, score: id });

const CELL_COLUMNS = sql.fragment`c.id, c.user_id AS "userId", c.problem_id AS "problemId", c.score, c.penalty,
  extract(epoch FROM c.solved_at)::float8 * 1000 AS "solvedAt", c.latest_submission AS "latestSubmission"`;

const live = readModel({ cs: contestScoresProjection, s: submissionsProjection });

export type ContestScoreQueries = ReturnType<typeof createContestScoreQueries>;

export function createContestScoreQueries(pool: Queryable) {
  return {
    /** Every cell of the contest (one user's when `userId`), by user then problem. */
    async cells(contestId: number, userId?: number): Promise<CellRow[]> {
      const { cs } = await live(pool);
      const user = userId === undefined ? sql.fragment`TRUE` : sql.fragment`c.user_id = ${userId}`;
      return [
        ...(await pool.any(sql.type(CellRowSchema)`
          SELECT ${CELL_COLUMNS} FROM ${cs.cells} c WHERE c.contest_id = ${contestId} AND ${user} ORDER BY c.user_id, c.problem_id`)),
      ];
    },

    /** One contestant's history rows, oldest submission first, with each submission's own current result. */
    async history(contestId: number, userId: number): Promise<HistoryRow[]> {
      const { cs, s } = await live(pool);
      return [
        ...(await pool.any(sql.type(HistoryRowSchema)`
          SELECT c.id AS "contestScoreId", h.problem_id AS "problemId", h.submission_id AS "submissionId", h.score,
            e.submitted_at AS "creationDate", sub.score AS "resultScore",
            (SELECT jsonb_agg(jsonb_build_object('subtaskIndex', r->'subtaskIndex', 'score', r->'score', 'fullScore', r->'fullScore')
               ORDER BY (r->>'subtaskIndex')::int)
             FROM jsonb_array_elements(sub.subtask_results) r) AS subtasks
          FROM ${cs.history} h
          JOIN ${cs.cells} c USING (contest_id, user_id, problem_id)
          JOIN ${cs.entries} e ON e.submission_id = h.submission_id
          LEFT JOIN ${s.submissions} sub ON sub.id = h.submission_id
          WHERE h.contest_id = ${contestId} AND h.user_id = ${userId}
          ORDER BY h.problem_id, h.submission_id`)),
      ];
    },

    /**
     * The contest's judged (accept/reject) submissions with their current results, oldest first: those made
     * at or before `until` (ms) when given, one user's when `userId`. What prizes, frozen boards and replays
     * are folded from.
     */
    async judged(contestId: number, options: { until?: number; userId?: number; acceptedOnly?: boolean } = {}): Promise<JudgedEntry[]> {
      const { cs } = await live(pool);
      const until = options.until === undefined ? sql.fragment`TRUE` : sql.fragment`e.submitted_at <= to_timestamp(${options.until / 1000})`;
      const user = options.userId === undefined ? sql.fragment`TRUE` : sql.fragment`e.user_id = ${options.userId}`;
      const statuses = options.acceptedOnly ? sql.fragment`e.status = 'accept'` : sql.fragment`e.status IN ('accept', 'reject')`;
      return [
        ...(await pool.any(sql.type(JudgedEntrySchema)`
          SELECT e.submission_id AS "submissionId", e.user_id AS "userId", e.problem_id AS "problemId",
            extract(epoch FROM e.submitted_at)::float8 * 1000 AS "submittedAt", e.status, e.score,
            COALESCE(e.subtasks, '[]'::jsonb) AS subtasks
          FROM ${cs.entries} e WHERE e.contest_id = ${contestId} AND ${statuses} AND ${until} AND ${user}
          ORDER BY e.submission_id`)),
      ];
    },

    /** How many submissions (judged or not) each user made to each problem after `after` (ms): a frozen board's pending counts. */
    async madeAfter(contestId: number, after: number): Promise<Array<{ userId: number; problemId: number; count: number }>> {
      const { cs } = await live(pool);
      return [
        ...(await pool.any(sql.type(PendingCountSchema)`
          SELECT e.user_id AS "userId", e.problem_id AS "problemId", count(*)::int AS count
          FROM ${cs.entries} e WHERE e.contest_id = ${contestId} AND e.submitted_at > to_timestamp(${after / 1000})
          GROUP BY e.user_id, e.problem_id`)),
      ];
    },

    /** The full scores the projection scores the given problems by. */
    async problemScores(problemIds: readonly number[]): Promise<Map<number, number>> {
      const { cs } = await live(pool);
      const rows = await pool.any(sql.type(ProblemScoreSchema)`
        SELECT problem_id AS "problemId", score FROM ${cs.problem_scores} WHERE problem_id = ANY(${sql.array([...problemIds], 'int4')})`);
      return new Map(rows.map((row) => [row.problemId, row.score]));
    },
  };
}
