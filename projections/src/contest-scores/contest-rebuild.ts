/**
 * Rebuilds one contest's rows of the live contest-scores slot from the log while the projector goes on
 * with every other contest: the operator's repair for one board, and much faster than the projection's
 * event-by-event fold because the contest's journal is folded in memory and written in bulk.
 *
 * It holds the slot's checkpoint rows for its transaction, so the projector folds nothing of this slot
 * meanwhile (pglog skips a held checkpoint, Kafka queues behind it). It may fold events the projector has
 * not reached yet; the projector then delivers them again, which the projection's handlers already treat
 * as the redelivery they are.
 */
import { z } from 'zod';
import { sql, type DatabasePool, type DatabaseTransactionConnection } from '@otog/platform/db/pool';
import type { EventStore, StoredEvent } from '@otog/platform/eventstore/event-store';
import { isEvent } from '@otog/platform/eventstore/command';
import { LOG_START } from '@otog/platform/eventstore/position';
import { holdCheckpointsForRepair } from '@otog/platform/runner/checkpoints';
import { slotConsumerName, slotTables, type SlotTables } from '@otog/platform/runner/projection';
import { listSlots } from '@otog/platform/runner/projection-slots';
import { ContestCreated, ContestDeleted, ContestEdited, ProblemDeleted, type ContestSettings } from '@otog/schemas/events';
import { contestScoresProjection } from './contest-scores.projection.ts';
import { readJournal } from './journal-log.ts';
import { JOURNAL_EVENT_TYPES, judgedEntries, scoreCells, type JournalRecord } from './rules/journal.ts';

const PAGE = 5_000;
const SETTINGS_TYPES = new Set([ContestCreated.type, ContestEdited.type, ContestDeleted.type]);
const CONTEST_TYPES = new Set([...SETTINGS_TYPES, ...JOURNAL_EVENT_TYPES]);

export interface ContestRebuild {
  /** The contest's events read from the log. */
  readonly events: number;
  readonly submissions: number;
  readonly cells: number;
}

export async function rebuildContestScores(
  pool: DatabasePool,
  store: EventStore,
  contestId: number,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<ContestRebuild> {
  const live = (await listSlots(pool, contestScoresProjection.name)).find((slot) => slot.state === 'live');
  if (!live) throw new Error(`${contestScoresProjection.name} has no live slot yet (start the projector first)`);
  const t = slotTables(contestScoresProjection, live.generation);
  const scope = `contest:${contestId}`;

  return pool.transaction(async (tx) => {
    await holdCheckpointsForRepair(tx, slotConsumerName(contestScoresProjection.name, live.generation));
    const total = await store.countScope(tx, scope, CONTEST_TYPES);
    let settings: ContestSettings | null = null;
    let read = 0;
    for (let after = LOG_START; ; ) {
      const page: StoredEvent[] = await store.readScope(tx, scope, SETTINGS_TYPES, { after, limit: PAGE });
      for (const event of page) {
        if (isEvent(event, ContestCreated) || isEvent(event, ContestEdited)) settings = event.data.settings;
        else if (isEvent(event, ContestDeleted)) settings = null;
      }
      read += page.length;
      if (page.length < PAGE) break;
      after = page[page.length - 1]!;
    }
    const journal = await readJournal(store, tx, scope, {
      onPage: (events) => {
        read += events;
        onProgress(read, Math.max(total, read));
      },
    });

    for (const table of [t.settings, t.entries, t.cells, t.history]) {
      await tx.query(sql.unsafe`DELETE FROM ${table} WHERE contest_id = ${contestId}`);
    }
    if (settings === null) return { events: read, submissions: 0, cells: 0 };

    // A deleted problem takes its contest submissions with it, as in the projection.
    const problemIds = [...new Set([...journal.values()].map((record) => record.problemId))];
    const deleted = new Set<number>();
    for (const problemId of problemIds) {
      if ((await store.countScope(tx, `problem:${problemId}`, new Set([ProblemDeleted.type]))) > 0) deleted.add(problemId);
    }
    const records = [...journal.values()].filter((record) => !deleted.has(record.problemId));
    const contestStart = Date.parse(settings.timeStart);
    const problemScores = await scoresOf(tx, t.problem_scores, problemIds);
    const cells = scoreCells(judgedEntries(records), { gradingMode: settings.gradingMode, contestStart, problemScores });

    await tx.query(sql.unsafe`
      INSERT INTO ${t.settings} (contest_id, grading_mode, time_start) VALUES (${contestId}, ${settings.gradingMode}, ${settings.timeStart}::timestamptz)`);
    for (let i = 0; i < records.length; i += PAGE) await insertEntries(tx, t.entries, contestId, records.slice(i, i + PAGE));
    for (let i = 0; i < cells.length; i += PAGE) {
      const chunk = cells.slice(i, i + PAGE);
      await tx.query(sql.unsafe`
        INSERT INTO ${t.cells} (contest_id, user_id, problem_id, id, score, penalty, solved_at, deciding_submission, latest_submission)
        SELECT ${contestId}, * FROM unnest(
          ${sql.array(chunk.map((c) => c.userId), 'int4')}::integer[], ${sql.array(chunk.map((c) => c.problemId), 'int4')}::integer[],
          ${sql.array(chunk.map((c) => c.id), 'int4')}::integer[], ${sql.array(chunk.map((c) => c.score), 'int4')}::integer[],
          ${sql.array(chunk.map((c) => c.penalty), 'int4')}::integer[],
          ${sql.array(chunk.map((c) => (c.solvedAt === null ? null : new Date(c.solvedAt).toISOString())), 'timestamptz')}::timestamptz[],
          ${sql.array(chunk.map((c) => c.deciding?.submissionId ?? null), 'int4')}::integer[],
          ${sql.array(chunk.map((c) => c.latestSubmission), 'timestamptz')}::timestamptz[])`);
    }
    const history = cells.flatMap((cell) => cell.history.map((row) => ({ ...row, userId: cell.userId, problemId: cell.problemId })));
    for (let i = 0; i < history.length; i += PAGE) {
      const chunk = history.slice(i, i + PAGE);
      await tx.query(sql.unsafe`
        INSERT INTO ${t.history} (submission_id, contest_id, user_id, problem_id, score)
        SELECT id, ${contestId}, user_id, problem_id, score FROM unnest(
          ${sql.array(chunk.map((h) => h.submissionId), 'int4')}::integer[], ${sql.array(chunk.map((h) => h.userId), 'int4')}::integer[],
          ${sql.array(chunk.map((h) => h.problemId), 'int4')}::integer[], ${sql.array(chunk.map((h) => h.score), 'int4')}::integer[])
          AS r(id, user_id, problem_id, score)`);
    }
    return { events: read, submissions: records.length, cells: cells.length };
  });
}

async function scoresOf(tx: DatabaseTransactionConnection, table: SlotTables[string], problemIds: readonly number[]): Promise<Map<number, number>> {
  const rows = await tx.any(sql.type(z.object({ problemId: z.number().int(), score: z.number().int() }))`
    SELECT problem_id AS "problemId", score FROM ${table} WHERE problem_id = ANY(${sql.array([...problemIds], 'int4')})`);
  return new Map(rows.map((row) => [row.problemId, row.score]));
}

async function insertEntries(tx: DatabaseTransactionConnection, table: SlotTables[string], contestId: number, records: readonly JournalRecord[]): Promise<void> {
  await tx.query(sql.unsafe`
    INSERT INTO ${table} (submission_id, contest_id, user_id, problem_id, submitted_at, judging, status, score, subtasks)
    SELECT id, ${contestId}, user_id, problem_id, submitted_at, judging, status, score, subtasks FROM unnest(
      ${sql.array(records.map((r) => r.submissionId), 'int4')}::integer[], ${sql.array(records.map((r) => r.userId), 'int4')}::integer[],
      ${sql.array(records.map((r) => r.problemId), 'int4')}::integer[],
      ${sql.array(records.map((r) => new Date(r.submittedAt).toISOString()), 'timestamptz')}::timestamptz[],
      ${sql.array(records.map((r) => r.judging), 'int4')}::integer[], ${sql.array(records.map((r) => r.status), 'text')}::text[],
      ${sql.array(records.map((r) => r.score), 'int4')}::integer[],
      ${sql.array(records.map((r) => (r.subtasks === null ? null : JSON.stringify(r.subtasks))), 'jsonb')}::jsonb[])
      AS r(id, user_id, problem_id, submitted_at, judging, status, score, subtasks)`);
}
