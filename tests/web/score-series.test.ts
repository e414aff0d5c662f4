/** The scoreboard's pure rules as tables: the score-history series, shared ranks, cell tones, problem ranks, ids, the policy's message. */
import { describe, expect, it } from 'vitest';
import type { ProblemScoreHistory } from '@otog/schemas/api/contest';
import { cellTone, parseContestId, policyMessage, problemRank, replayMoment, replayStepAtOrBefore, sharedRanks } from '../../web/src/features/contests/scoreboard/board.ts';
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
  const row = (totalScore: number, maxPenalty: number, rank: number | null = null) => ({ totalScore, maxPenalty, rank });
  it.each([
    ['distinct', [row(300, 10), row(200, 5), row(100, 1)], [1, 2, 3]],
    ['ties share a rank and the next skips', [row(300, 10), row(200, 5), row(200, 5), row(200, 6), row(0, 0)], [1, 2, 2, 4, 5]],
    ['same total, different penalty: no tie', [row(100, 5), row(100, 9)], [1, 2]],
    ['rated ranks win', [row(300, 10, 1), row(200, 5, 3)], [1, 3]],
    ['empty', [], []],
  ] as const)('shared ranks: %s', (_name, rows, ranks) => expect(sharedRanks(rows)).toEqual(ranks));

  it.each([
    [undefined, 100, 'none'],
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
