/** The scoreboard's pure rules as tables: the score-history series, shared ranks, cell tones, problem ranks, ids, the policy's message. */
import { describe, expect, it } from 'vitest';
import type { ProblemScoreHistory } from '@otog/schemas/api/contest';
import { boardRowsOf, cellTone, parseContestId, policyMessage, problemRank, replayMoment, replayStepAtOrBefore } from '../../web/src/features/contests/scoreboard/board.ts';
import { historyEvents, quarterTicks, scoreSeries, stepAfterPath } from '../../web/src/features/contests/scoreboard/score-series.ts';

const START = Date.parse('2026-01-01T00:00:00Z');
const END = START + 3 * 3600_000;
const at = (seconds: number) => new Date(START + seconds * 1000).toISOString();

function problem(problemId: number, entries: Array<[submissionId: number, seconds: number, score: number]>): ProblemScoreHistory {
  return {
    id: problemId,
    contestId: 1,
    userId: 7,
    problemId,
    score: entries.at(-1)?.[2] ?? 0,
    latestSubmission: null,
    contestScoreHistory: entries.map(([submissionId, seconds, score]) => ({
      contestScoreId: problemId,
      submissionId,
      score,
      submission: { creationDate: at(seconds), submissionResult: null },
    })),
  };
}

describe('scoreSeries', () => {
  const histories = [problem(1, [[10, 600, 40], [12, 1800, 100]]), problem(2, [[11, 900, 30], [13, 2400, 20]])];
  const events = historyEvents(histories);
  it.each([
    ['no history: (0,0) and (end,0)', [], undefined, [{ x: 0, y: 0 }, { x: 10_800, y: 0 }]],
    [
      'the total replays every problem in time order, each replacing its previous value',
      events,
      undefined,
      [{ x: 0, y: 0 }, { x: 600, y: 40 }, { x: 900, y: 70 }, { x: 1800, y: 130 }, { x: 2400, y: 120 }, { x: 10_800, y: 120 }],
    ],
    ['one problem', events, 2, [{ x: 0, y: 0 }, { x: 900, y: 30 }, { x: 2400, y: 20 }, { x: 10_800, y: 20 }]],
  ] as const)('%s', (_name, input, problemId, expected) => {
    expect(scoreSeries(input, START, END, problemId)).toEqual(expected);
  });

  it('clamps moments to [0, duration]', () => {
    const outside = historyEvents([problem(1, [[1, -60, 10], [2, 20_000, 50]])]);
    expect(scoreSeries(outside, START, END)).toEqual([{ x: 0, y: 0 }, { x: 0, y: 10 }, { x: 10_800, y: 50 }, { x: 10_800, y: 50 }]);
  });

  it('orders equal moments by submission', () => {
    const tied = historyEvents([problem(1, [[5, 60, 30]]), problem(2, [[4, 60, 10]])]);
    expect(tied.map((event) => event.problemId)).toEqual([2, 1]);
  });
});

describe('chart helpers', () => {
  it.each([
    [10_800, [2700, 5400, 8100, 10_800]],
    [7, [2, 4, 5, 7]],
    [0, [0, 0, 0, 0]],
  ])('quarter ticks of %i s', (duration, ticks) => expect(quarterTicks(duration)).toEqual(ticks));

  it('draws a step-after line: horizontal first, then vertical', () => {
    const path = stepAfterPath([{ x: 0, y: 0 }, { x: 2, y: 5 }, { x: 4, y: 5 }], (x) => x * 10, (y) => 100 - y);
    expect(path).toBe('M0,100H20V95H40V95');
  });
});

describe('board rules', () => {
  const contest = { id: 1, name: 'c', mode: 'unrated', gradingMode: 'classic', scoreboardPolicy: 'DURING_CONTEST', timeStart: '2026-01-01T00:00:00.000Z', timeEnd: '2026-01-01T03:00:00.000Z', announce: null, freezeAt: null } as const;
  const problems = [{ id: 3, name: 'a', score: 100 }, { id: 8, name: 'b', score: 50 }];
  const columns = {
    contest,
    problems,
    frozenAt: null,
    userId: [7, 5, 9],
    showName: ['เจ็ด', 'ห้า', 'เก้า'],
    rank: [1, 2, 2],
    totalScore: [150, 60, 60],
    maxPenalty: [30, 20, 20],
    score: [100, 50, 60, null, null, 60],
  };
  it('rows from columns: row by row, problems in order, no pending when the board is not frozen', () => {
    expect(boardRowsOf(columns)).toEqual([
      { userId: 7, showName: 'เจ็ด', rank: 1, totalScore: 150, maxPenalty: 30, scores: [100, 50], pending: [0, 0] },
      { userId: 5, showName: 'ห้า', rank: 2, totalScore: 60, maxPenalty: 20, scores: [60, null], pending: [0, 0] },
      { userId: 9, showName: 'เก้า', rank: 2, totalScore: 60, maxPenalty: 20, scores: [null, 60], pending: [0, 0] },
    ]);
  });
  it('rows from columns: a frozen board\'s pending counts per cell', () => {
    const rows = boardRowsOf({ ...columns, frozenAt: '2026-01-01T02:00:00.000Z', pending: [0, 2, 0, 0, 1, 0] });
    expect(rows.map((entry) => entry.pending)).toEqual([[0, 2], [0, 0], [1, 0]]);
  });
  it('rows from columns: an empty board', () => expect(boardRowsOf({ ...columns, userId: [], showName: [], rank: [], totalScore: [], maxPenalty: [], score: [] })).toEqual([]));

  it.each([
    [null, 100, 'none'],
    [0, 100, 'zero'],
    [40, 100, 'partial'],
    [100, 100, 'full'],
    [120, 100, 'full'],
  ] as const)('cell tone of %s / %i is %s', (score, full, tone) => expect(cellTone(score, full)).toBe(tone));

  it.each([
    [100, [100, 100, 50], 1],
    [50, [100, 100, 50], 3],
    [0, [100, 0, 0], 2],
  ])('problem rank of %i among %j is %i', (score, everyone, rank) => expect(problemRank(score, everyone)).toBe(rank));

  it.each([
    ['12', 12],
    ['1', 1],
    ['0', null],
    ['012', null],
    ['-3', null],
    ['1e3', null],
    ['12abc', null],
    ['99999999999999999', null],
    [undefined, null],
  ] as const)('contest id %s → %s', (value, id) => expect(parseContestId(value)).toBe(id));

  it.each([
    ['NOT_VISIBLE', 'RUNNING', 'การแข่งขันนี้ไม่เปิดเผยตารางคะแนน'],
    ['AFTER_CONTEST', 'RUNNING', 'ตารางคะแนนจะแสดงหลังการแข่งขันจบ'],
    ['AFTER_CONTEST', 'PENDING', 'ตารางคะแนนจะแสดงหลังการแข่งขันจบ'],
    ['DURING_CONTEST', 'PENDING', 'ตารางคะแนนจะแสดงเมื่อการแข่งขันเริ่มแล้ว'],
  ] as const)('policy %s while %s', (policy, phase, message) => expect(policyMessage(policy, phase)).toBe(message));

  it.each([
    [0, START],
    [30, START + 1.5 * 3600_000],
    [60, END],
    [99, END],
    [-1, START],
  ])('replay step %i', (step, moment) => expect(replayMoment(START, END, step)).toBe(moment));

  it.each([
    [START, 0],
    [START + 1.5 * 3600_000, 30],
    [START + 1.5 * 3600_000 + 1, 30],
    [START + 1.5 * 3600_000 - 1, 29],
    [END + 60_000, 60],
    [START - 1, 0],
  ])('replay step at or before %i', (moment, step) => expect(replayStepAtOrBefore(START, END, moment)).toBe(step));
});
