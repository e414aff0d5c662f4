import { z } from 'zod';
import { sql, type DatabaseTransactionConnection } from '@otog/platform/db/pool';
import type { NoticeFeed } from '@otog/platform/notices/kafka-feed';
import type { FoldContext } from '@otog/platform/notices/notice';
import { defineProjection, type SlotTables } from '@otog/platform/runner/projection';
import { GradingModeSchema } from '@otog/schemas/common/contest';
import {
  ContestCreated,
  ContestDeleted,
  ContestEdited,
  ProblemDeleted,
  ProblemJudgingConfigured,
  RejudgeRequested,
  SubmissionCreated,
  SubmissionJudged,
} from '@otog/schemas/events';
import { CellKeySchema, createJournalTable, journalRejudge, journalSubmission, journalVerdict, readJudgedEntries, type CellKey } from './journal-upkeep.ts';
import { scoreCell } from './rules/journal.ts';

type Tables = SlotTables<'settings' | 'problem_scores' | 'deleted_problems' | 'entries' | 'cells' | 'history'>;
type Tx = DatabaseTransactionConnection;

/** "contest N's scoreboard changed": the board, score histories and prizes of that contest refetch. */
const boardChanged = (context: FoldContext, contestId: number) => context.notify({ topic: 'scoreboard', key: String(contestId) });

/** The notice of one changed (contest, user, problem) score. */
export const CONTEST_SCORE_NOTICE = 'contest-score';

/**
 * One (contest, user, problem) score changed, with its new score and penalty (null: the score is gone), so
 * followers of a board (live pushes, analytics) need not read the tables. Scaled, they go to Kafka as
 * ContestScoreChanged messages (contestScoreFeed).
 */
function scoreChanged(context: FoldContext, { contestId, userId, problemId }: CellKey, now: { score: number; penalty: number } | null): void {
  context.notify({
    topic: CONTEST_SCORE_NOTICE,
    key: `${contestId}:${userId}:${problemId}`,
    data: { contestId, userId, problemId, score: now?.score ?? null, penalty: now?.penalty ?? null },
  });
}

const ScoringSettingsSchema = z.object({ gradingMode: GradingModeSchema, contestStart: z.number() });

/**
 * Contest scores, folded from the contest's submissions and their verdicts by the pure scoring rules
 * (rules/): one journal entry per contest submission with its current result (`entries`), one cell per
 * (contest, user, problem) with its score, penalty and deciding submission (OTOG's contestScore), and one
 * history row per judged submission (OTOG's contestScoreHistory).
 *
 * Every change to a cell's journal (a submission, a verdict, a rejudge) or to what its rule reads (the
 * contest's grading mode or start, the problem's full score) recomputes the cell from its whole journal,
 * so a rejudge in any order gives what a fresh replay gives. The projection keeps its own copy of the
 * settings it scores by, so it never reads another projection's tables mid-fold.
 *
 * A cell exists while its journal holds a judged (accept/reject) submission; its id is the smallest
 * submission id in its journal, the same on every replay. Only the current judging of a submission counts:
 * a report of an older judging (overtaken by a rejudge) changes nothing, so redelivery is harmless.
 */
/** Every changed contest score as a ContestScoreChanged message on its own topic, keyed (and so ordered) per contest. */
export const contestScoreFeed: NoticeFeed = {
  noticeTopic: CONTEST_SCORE_NOTICE,
  kafkaTopic: 'otog.contest-scores.v1',
  messageType: 'ContestScoreChanged',
  key: (notice) => String(notice.data?.contestId),
};

export const contestScoresProjection = defineProjection({
  name: 'contest_scores',
  // 2: deleted problems are remembered, so the fold no longer depends on the order across scopes.
  version: 2,
  // A contest's events (its settings, submissions and verdicts) and the problems' scores and deletions, each
  // in its own order: scaled, it reads those Kafka topics.
  scopes: ['contest', 'problem'],
  tables: ['settings', 'problem_scores', 'deleted_problems', 'entries', 'cells', 'history'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.settings} (
      contest_id    integer     PRIMARY KEY,
      grading_mode  text        NOT NULL,
      time_start    timestamptz NOT NULL)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.problem_scores} (
      problem_id  integer PRIMARY KEY,
      score       integer NOT NULL)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.deleted_problems} (problem_id integer PRIMARY KEY)`);
    await createJournalTable(tx, t.entries);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.cells} (
      contest_id           integer     NOT NULL,
      user_id              integer     NOT NULL,
      problem_id           integer     NOT NULL,
      id                   integer     NOT NULL,
      score                integer     NOT NULL,
      penalty              integer     NOT NULL,
      solved_at            timestamptz,
      deciding_submission  integer,
      latest_submission    timestamptz,
      PRIMARY KEY (contest_id, user_id, problem_id))`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.history} (
      submission_id  integer NOT NULL PRIMARY KEY,
      contest_id     integer NOT NULL,
      user_id        integer NOT NULL,
      problem_id     integer NOT NULL,
      score          integer NOT NULL)`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${sql.identifier([`${t.history.names[0]}_cell`])} ON ${t.history} (contest_id, user_id, problem_id)`);
  },
  on: {
    async [ContestCreated.type](tx, { data }, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.settings} (contest_id, grading_mode, time_start)
        VALUES (${data.contestId}, ${data.settings.gradingMode}, ${data.settings.timeStart}::timestamptz)
        ON CONFLICT (contest_id) DO NOTHING`);
    },
    async [ContestEdited.type](tx, { data }, t, context) {
      const changed = await tx.maybeOneFirst(sql.unsafe`
        UPDATE ${t.settings} SET grading_mode = ${data.settings.gradingMode}, time_start = ${data.settings.timeStart}::timestamptz
        WHERE contest_id = ${data.contestId}
          AND (grading_mode, time_start) IS DISTINCT FROM (${data.settings.gradingMode}, ${data.settings.timeStart}::timestamptz)
        RETURNING contest_id`);
      if (changed === null) return;
      const cells = await tx.any(sql.type(CellKeySchema)`
        SELECT DISTINCT contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId" FROM ${t.entries}
        WHERE contest_id = ${data.contestId}`);
      for (const cell of cells) await rescore(tx, t, cell, context);
    },
    async [ContestDeleted.type](tx, { data }, t, context) {
      for (const table of [t.settings, t.entries, t.cells, t.history]) {
        await tx.query(sql.unsafe`DELETE FROM ${table} WHERE contest_id = ${data.contestId}`);
      }
      boardChanged(context, data.contestId);
    },
    async [ProblemJudgingConfigured.type](tx, { data }, t, context) {
      const previous = await tx.maybeOneFirst(sql.type(z.object({ score: z.number().int() }))`
        SELECT score FROM ${t.problem_scores} WHERE problem_id = ${data.problemId}`);
      if (previous === data.score) return;
      await tx.query(sql.unsafe`
        INSERT INTO ${t.problem_scores} (problem_id, score) VALUES (${data.problemId}, ${data.score})
        ON CONFLICT (problem_id) DO UPDATE SET score = excluded.score`);
      const cells = await tx.any(sql.type(CellKeySchema)`
        SELECT DISTINCT contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId" FROM ${t.entries}
        WHERE problem_id = ${data.problemId}`);
      for (const cell of cells) await rescore(tx, t, cell, context);
    },
    async [ProblemDeleted.type](tx, { data }, t, context) {
      await tx.query(sql.unsafe`INSERT INTO ${t.deleted_problems} (problem_id) VALUES (${data.problemId}) ON CONFLICT DO NOTHING`);
      await tx.query(sql.unsafe`DELETE FROM ${t.entries} WHERE problem_id = ${data.problemId}`);
      const removed = await tx.any(sql.type(CellKeySchema)`
        DELETE FROM ${t.cells} WHERE problem_id = ${data.problemId}
        RETURNING contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId"`);
      await tx.query(sql.unsafe`DELETE FROM ${t.history} WHERE problem_id = ${data.problemId}`);
      await tx.query(sql.unsafe`DELETE FROM ${t.problem_scores} WHERE problem_id = ${data.problemId}`);
      for (const cell of removed) {
        scoreChanged(context, cell, null);
        boardChanged(context, cell.contestId);
      }
    },
    async [SubmissionCreated.type](tx, { data, occurredAt: at, streamPosition }, t) {
      // Waiting submissions score nothing: the cell changes only when a verdict arrives. A deleted problem's
      // submission stays out even when it arrives after the deletion (Kafka interleaves scopes otherwise than the log).
      if (await tx.exists(sql.unsafe`SELECT 1 FROM ${t.deleted_problems} WHERE problem_id = ${data.problemId}`)) return;
      await journalSubmission(tx, { entries: t.entries, contests: t.settings }, data, at, streamPosition);
    },
    async [RejudgeRequested.type](tx, { data, streamPosition }, t, context) {
      const cell = await journalRejudge(tx, t.entries, data.submissionId, streamPosition);
      if (cell) await rescore(tx, t, cell, context);
    },
    async [SubmissionJudged.type](tx, { data }, t, context) {
      const cell = await journalVerdict(tx, t.entries, data);
      if (cell) await rescore(tx, t, cell, context);
    },
  },
});

/** Recomputes one cell and its history rows from its whole journal, and announces what a reader would see change. */
async function rescore(tx: Tx, t: Tables, cell: CellKey, context: FoldContext): Promise<void> {
  const { contestId, userId, problemId } = cell;
  const where = sql.fragment`contest_id = ${contestId} AND user_id = ${userId} AND problem_id = ${problemId}`;
  const settings = await tx.maybeOne(sql.type(ScoringSettingsSchema)`
    SELECT grading_mode AS "gradingMode", extract(epoch FROM time_start)::float8 * 1000 AS "contestStart"
    FROM ${t.settings} WHERE contest_id = ${contestId}`);
  if (!settings) return;
  const journal = await readJudgedEntries(tx, t.entries, where);
  if (journal.length === 0) {
    const removed = await tx.maybeOneFirst(sql.unsafe`DELETE FROM ${t.cells} WHERE ${where} RETURNING id`);
    await tx.query(sql.unsafe`DELETE FROM ${t.history} WHERE ${where}`);
    if (removed !== null) {
      scoreChanged(context, cell, null);
      boardChanged(context, contestId);
    }
    return;
  }
  const problemScore = await tx.maybeOneFirst(sql.type(z.object({ score: z.number().int() }))`
    SELECT score FROM ${t.problem_scores} WHERE problem_id = ${problemId}`);
  const problemScores = new Map(problemScore === null ? [] : [[problemId, problemScore]]);
  const outcome = scoreCell(journal, { ...settings, problemScores });
  const solvedAt = outcome.solvedAt === null ? null : new Date(outcome.solvedAt).toISOString();
  const cellChanged = await tx.maybeOneFirst(sql.unsafe`
    INSERT INTO ${t.cells} AS c (contest_id, user_id, problem_id, id, score, penalty, solved_at, deciding_submission, latest_submission)
    VALUES (${contestId}, ${userId}, ${problemId}, ${outcome.id}, ${outcome.score}, ${outcome.penalty}, ${solvedAt}::timestamptz,
      ${outcome.deciding?.submissionId ?? null}, ${outcome.latestSubmission}::timestamptz)
    ON CONFLICT (contest_id, user_id, problem_id) DO UPDATE SET id = excluded.id, score = excluded.score, penalty = excluded.penalty,
      solved_at = excluded.solved_at, deciding_submission = excluded.deciding_submission, latest_submission = excluded.latest_submission
    WHERE (c.id, c.score, c.penalty, c.solved_at, c.deciding_submission, c.latest_submission)
      IS DISTINCT FROM (excluded.id, excluded.score, excluded.penalty, excluded.solved_at, excluded.deciding_submission, excluded.latest_submission)
    RETURNING id`);
  const ids = outcome.history.map((row) => row.submissionId);
  const scores = outcome.history.map((row) => row.score);
  const historyRemoved = await tx.anyFirst(sql.unsafe`
    DELETE FROM ${t.history} WHERE ${where} AND NOT (submission_id = ANY(${sql.array(ids, 'int4')})) RETURNING submission_id`);
  const historyChanged = await tx.anyFirst(sql.unsafe`
    INSERT INTO ${t.history} AS h (submission_id, contest_id, user_id, problem_id, score)
    SELECT id, ${contestId}, ${userId}, ${problemId}, score FROM unnest(${sql.array(ids, 'int4')}::integer[], ${sql.array(scores, 'int4')}::integer[]) AS r(id, score)
    ON CONFLICT (submission_id) DO UPDATE SET score = excluded.score WHERE h.score IS DISTINCT FROM excluded.score
    RETURNING submission_id`);
  if (cellChanged !== null) scoreChanged(context, cell, outcome);
  if (cellChanged !== null || historyChanged.length > 0 || historyRemoved.length > 0) boardChanged(context, contestId);
}
