/**
 * The scoreboard's columns (GET /contest/:id/scoreboard/columns): the server's pure conversion from ranked
 * rows, and the web's one-pass check, which must accept and refuse exactly what the route's zod schema does.
 */
import { describe, expect, it } from 'vitest';
import { parseScoreboardColumns, ScoreboardColumnsSchema } from '@otog/schemas/api/contest';
import { boardColumns } from '../../services/api/src/modules/contests/scoreboard.ts';

const contest = { id: 4, name: 'รอบสัปดาห์', mode: 'unrated', gradingMode: 'classic', scoreboardPolicy: 'DURING_CONTEST', timeStart: '2026-01-01T00:00:00.000Z', timeEnd: '2026-01-01T03:00:00.000Z', announce: null, freezeAt: null } as const;
const valid = {
  contest,
  problems: [{ id: 2, name: 'a', score: 100 }, { id: 9, name: 'b', score: 50 }],
  frozenAt: null,
  userId: [7, 5],
  showName: ['เจ็ด', 'ห้า'],
  rank: [1, 2],
  totalScore: [150, 60],
  maxPenalty: [30, 20],
  score: [100, 50, 60, null],
};

describe('boardColumns', () => {
  const row = (id: number, rank: number, totalScore: number, contestScores: Array<{ problemId: number; score: number; penalty: number; pending?: number }>) => ({
    user: { id, showName: `u${id}` },
    rank,
    totalScore,
    maxPenalty: 10 * id,
    contestScores,
  });
  it('lays the rows out by problem id, null where a user has no cell, without pending when none is', () => {
    const columns = boardColumns([row(7, 1, 150, [{ problemId: 9, score: 50, penalty: 3 }, { problemId: 2, score: 100, penalty: 1 }]), row(5, 2, 60, [{ problemId: 2, score: 60, penalty: 2 }])], [
      { id: 9, name: 'b', score: 50 },
      { id: 2, name: 'a', score: 100 },
    ]);
    expect(columns).toEqual({ problems: valid.problems, userId: [7, 5], showName: ['u7', 'u5'], rank: [1, 2], totalScore: [150, 60], maxPenalty: [70, 50], score: [100, 50, 60, null] });
  });
  it('carries pending counts on a frozen board, and ignores cells of problems no longer in the contest', () => {
    const columns = boardColumns([row(3, 1, 0, [{ problemId: 2, score: 0, penalty: 0, pending: 2 }, { problemId: 77, score: 100, penalty: 1 }])], [{ id: 2, name: 'a', score: 100 }]);
    expect(columns.score).toEqual([0]);
    expect(columns.pending).toEqual([2]);
  });
});

describe('parseScoreboardColumns agrees with ScoreboardColumnsSchema', () => {
  it.each([
    ['a valid board', valid],
    ['a frozen board with pending', { ...valid, frozenAt: '2026-01-01T02:00:00.000Z', pending: [0, 1, 0, 0] }],
    ['an empty board', { ...valid, userId: [], showName: [], rank: [], totalScore: [], maxPenalty: [], score: [] }],
    ['no problems', { ...valid, problems: [], score: [] }],
    ['a score column one short', { ...valid, score: [100, 50, 60] }],
    ['a name column one short', { ...valid, showName: ['เจ็ด'] }],
    ['a pending column of the wrong length', { ...valid, pending: [0] }],
    ['a negative pending count', { ...valid, pending: [0, -1, 0, 0] }],
    ['a fractional score', { ...valid, score: [100, 50.5, 60, null] }],
    ['a score as text', { ...valid, score: [100, '50', 60, null] }],
    ['a null rank', { ...valid, rank: [1, null] }],
    ['a number as a name', { ...valid, showName: ['เจ็ด', 5] }],
    ['an unsafe integer', { ...valid, totalScore: [2 ** 60, 60] }],
    ['a column that is not an array', { ...valid, userId: '7,5' }],
    ['a missing column', { ...valid, maxPenalty: undefined }],
    ['a bad contest', { ...valid, contest: { ...contest, mode: 'weird' } }],
    ['a bad frozenAt', { ...valid, frozenAt: 'yesterday' }],
    ['not an object', null],
  ])('%s', (_name, body) => {
    const fromZod = ScoreboardColumnsSchema.safeParse(body);
    const fast = parseScoreboardColumns(body);
    expect(fast !== null).toBe(fromZod.success);
    if (fromZod.success) expect(fast).toEqual(fromZod.data);
  });

  it('leaves out keys the schema does not know, as zod does', () => {
    expect(parseScoreboardColumns({ ...valid, extra: 1 })).toEqual(valid);
  });
});
