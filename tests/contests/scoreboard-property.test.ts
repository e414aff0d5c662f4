/**
 * Property: for random contests (every grading mode, 1-30 users, 1-5 problems, random submission times,
 * verdicts, subtask points, rejudges that change results, stale reports of replaced judgings, grading-mode
 * and start changes, problem score changes), the contest-scores tables folded live with duplicated and
 * re-delivered events equal the tables of a fresh replay in another valid interleaving, and both equal a
 * direct computation by the pure rules. The API's on-demand folds (frozen boards, replays as judged then
 * or now) give the same cells.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contestScoresProjection } from '@otog/projections';
import { sql } from '@otog/platform/db/pool';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { noticeCollector } from '@otog/platform/notices/notice';
import { slotTableName, slotTables } from '@otog/platform/runner/projection';
import { createRebuildSlot, ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { judgedEntries, journalOf, scoreCells, type JournalEntry } from '@otog/projections/contest-scores/rules/journal';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { expected, generateContest, logOrder, random } from './support/random-contests.ts';

const int = z.number().int();
const CellRow = z.object({
  contestId: int,
  userId: int,
  problemId: int,
  id: int,
  score: int,
  penalty: int,
  solvedAt: z.number().nullable(),
  deciding: int.nullable(),
  latest: z.string().nullable(),
});
const HistoryRow = z.object({ contestId: int, userId: int, problemId: int, submissionId: int, score: int });

const RUNS = Number(process.env.CONTEST_PROPERTY_RUNS ?? 100);

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe(`contest scores on ${RUNS} random contests`, () => {
  it('live with duplicates and rewinds = a fresh replay in another interleaving = the pure rules = the API folds', async () => {
    const rng = random(20261126);
    const ids = { next: 1 };
    const contests = Array.from({ length: RUNS }, (_, run) => generateContest(run, rng, ids));
    const live = logOrder(rng, contests);
    const replay = logOrder(rng, contests);
    const projection = contestScoresProjection;

    const [liveSlot] = await ensureCodeSlot(db.pool, projection);
    const replaySlot = await createRebuildSlot(db.pool, projection);
    const deliver = (version: number, events: readonly StoredEvent[]) =>
      db.pool.transaction(async (tx) => {
        const tables = slotTables(projection, version);
        const notices = noticeCollector();
        for (const event of events) await projection.handlerOf(event.type)!(tx, event, tables, notices.contextAt(event));
      });
    // Live: each event possibly delivered twice, then suffixes delivered again (a rewind after a crash).
    await deliver(liveSlot!, live.flatMap((event) => (rng.chance(0.2) ? [event, event] : [event])));
    for (const rewind of [Math.floor(live.length / 2), live.length - 1]) await deliver(liveSlot!, live.slice(rewind));
    await deliver(replaySlot, replay);

    const dump = async (version: number) => {
      const table = (name: string) => sql.identifier([slotTableName(projection.name, version, name)]);
      const cells = await db.pool.any(sql.type(CellRow)`
        SELECT contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId", id, score, penalty,
          extract(epoch FROM solved_at)::float8 * 1000 AS "solvedAt", deciding_submission AS deciding, latest_submission AS latest
        FROM ${table('cells')} ORDER BY contest_id, user_id, problem_id`);
      const history = await db.pool.any(sql.type(HistoryRow)`
        SELECT contest_id AS "contestId", user_id AS "userId", problem_id AS "problemId", submission_id AS "submissionId", score
        FROM ${table('history')} ORDER BY submission_id`);
      return { cells, history };
    };
    const liveTables = await dump(liveSlot!);
    expect(liveTables).toEqual(await dump(replaySlot));

    let scoredCells = 0;
    for (const contest of contests) {
      const want = expected(contest);
      const cells = liveTables.cells.filter((row) => row.contestId === contest.contestId);
      const context = `contest ${contest.contestId} (${contest.mode})`;
      expect(cells.map(({ contestId: _, ...cell }) => cell), context).toEqual(want.map(({ history: _, ...cell }) => cell));
      const history = liveTables.history.filter((row) => row.contestId === contest.contestId);
      const wantHistory = want.flatMap((cell) => cell.history.map((row) => ({ ...row, userId: cell.userId, problemId: cell.problemId })));
      expect(history.map(({ contestId: _, ...row }) => row), context).toEqual(wantHistory.sort((a, b) => a.submissionId - b.submissionId));
      scoredCells += cells.length;

      // The API's folds: the final journal (judged now) and the journal replayed from the contest's own events (judged then).
      const settings = { gradingMode: contest.mode, contestStart: contest.start, problemScores: contest.problemScore };
      const fromEvents = judgedEntries(journalOf(live.filter((event) => event.scope === `contest:${contest.contestId}`)).values());
      const folded = (journal: JournalEntry[]) =>
        scoreCells(journal, settings)
          .map((cell) => ({ userId: cell.userId, problemId: cell.problemId, id: cell.id, score: cell.score, penalty: cell.penalty, solvedAt: cell.solvedAt }))
          .sort((a, b) => a.userId - b.userId || a.problemId - b.problemId);
      expect(folded(fromEvents), context).toEqual(want.map(({ userId, problemId, id, score, penalty, solvedAt }) => ({ userId, problemId, id, score, penalty, solvedAt })));
    }
    // The generator is not degenerate: most runs score something.
    expect(scoredCells).toBeGreaterThan(RUNS);
  }, 300_000);
});
