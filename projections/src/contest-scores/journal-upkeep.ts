/**
 * A contest journal kept as a read-model table (one row per contest submission with the result of its
 * current judging), for every projection that scores contests from it: the contest scores and the ratings.
 * Each keeps its own table (a projection never reads another's mid-fold); the statements are the same.
 */
import { z } from 'zod';
import { sql, type DatabaseTransactionConnection, type Queryable } from '@otog/platform/db/pool';
import type { SlotTables } from '@otog/platform/runner/projection';
import type { EventDataOf, SubmissionCreated, SubmissionJudged } from '@otog/schemas/events';
import type { JournalEntry } from './rules/journal.ts';

type Tx = DatabaseTransactionConnection;
type Table = SlotTables[string];
type Fragment = ReturnType<typeof sql.fragment>;

export const CellKeySchema = z.object({ contestId: z.number().int(), userId: z.number().int(), problemId: z.number().int() });
export type CellKey = z.infer<typeof CellKeySchema>;

export async function createJournalTable(tx: Tx, entries: Table): Promise<void> {
  await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${entries} (
    submission_id  integer     PRIMARY KEY,
    contest_id     integer     NOT NULL,
    user_id        integer     NOT NULL,
    problem_id     integer     NOT NULL,
    submitted_at   timestamptz NOT NULL,
    judging        integer     NOT NULL,
    status         text        NOT NULL,
    score          integer,
    subtasks       jsonb)`);
  const name = (suffix: string) => sql.identifier([`${entries.names[0]}_${suffix}`]);
  await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${name('cell')} ON ${entries} (contest_id, user_id, problem_id)`);
  await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${name('problem')} ON ${entries} (problem_id)`);
}

/** A new contest submission, waiting, if `contests` (any table keyed by contest_id) holds its contest. */
export async function journalSubmission(
  tx: Tx,
  tables: { entries: Table; contests: Table },
  data: EventDataOf<typeof SubmissionCreated>,
  at: string,
  streamPosition: number,
): Promise<void> {
  if (data.contestId === null) return;
  await tx.query(sql.unsafe`
    INSERT INTO ${tables.entries} (submission_id, contest_id, user_id, problem_id, submitted_at, judging, status)
    SELECT ${data.submissionId}, ${data.contestId}, ${data.userId}, ${data.problemId}, ${at}::timestamptz, ${streamPosition}, 'waiting'
    WHERE EXISTS (SELECT 1 FROM ${tables.contests} WHERE contest_id = ${data.contestId})
    ON CONFLICT (submission_id) DO NOTHING`);
}

/** A rejudge request newer than the judging on record: the entry waits again. The cell it belongs to, if it changed. */
export async function journalRejudge(tx: Tx, entries: Table, submissionId: number, streamPosition: number): Promise<CellKey | null> {
  return tx.maybeOne(sql.type(CellKeySchema)`
    UPDATE ${entries} SET judging = ${streamPosition}, status = 'waiting', score = NULL, subtasks = NULL
    WHERE submission_id = ${submissionId} AND judging < ${streamPosition}
    RETURNING contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId"`);
}

/** A verdict of the current judging (an older judging's changes nothing). The cell it belongs to, if it changed. */
export async function journalVerdict(tx: Tx, entries: Table, data: EventDataOf<typeof SubmissionJudged>): Promise<CellKey | null> {
  const subtasks = data.subtaskResults.map(({ score, fullScore }) => ({ score, fullScore }));
  return tx.maybeOne(sql.type(CellKeySchema)`
    UPDATE ${entries} SET status = ${data.status}, score = ${data.score}, subtasks = ${sql.jsonb(subtasks)}
    WHERE submission_id = ${data.submissionId} AND judging = ${data.judging}
    RETURNING contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId"`);
}

const JournalRowSchema = z.object({
  submissionId: z.number().int(),
  userId: z.number().int(),
  problemId: z.number().int(),
  submittedAt: z.number(),
  status: z.enum(['accept', 'reject']),
  score: z.number().int(),
  subtasks: z.array(z.object({ score: z.number(), fullScore: z.number() })),
});

/** The judged (accept/reject) entries matching `where`, in submission order: what the scoring rules read. */
export async function readJudgedEntries(tx: Queryable, entries: Table, where: Fragment): Promise<JournalEntry[]> {
  return [
    ...(await tx.any(sql.type(JournalRowSchema)`
      SELECT submission_id AS "submissionId", user_id AS "userId", problem_id AS "problemId",
        extract(epoch FROM submitted_at)::float8 * 1000 AS "submittedAt", status, score, COALESCE(subtasks, '[]'::jsonb) AS subtasks
      FROM ${entries} WHERE ${where} AND status IN ('accept', 'reject') ORDER BY submission_id`)),
  ];
}
