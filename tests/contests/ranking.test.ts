/**
 * The scoreboard order: non-acm modes by total score, then the largest cell penalty; acm by total over
 * solved problems, then the penalty sum, then the earlier last accept. Equal rows share a competition
 * rank (1, 1, 3) and are listed by userId.
 */
import { describe, expect, it } from 'vitest';
import type { GradingMode } from '@otog/schemas/common/contest';
import { rankContestants, type ContestantCells, type RankedContestant } from '@otog/projections/contest-scores/rules/ranking';

/** Contest start. */
const T0 = Date.UTC(2024, 0, 1, 9, 0, 0);
const minute = (minutes: number, seconds = 0) => T0 + minutes * 60_000 + seconds * 1000;

/** A non-acm cell: [problemId, score, penalty]. */
const point = (problemId: number, score: number, penalty: number) => ({ problemId, score, penalty, solvedAt: null });
/** An acm cell, solved at `solvedAt` (null: unsolved, score 0, penalty 0). */
const acm = (problemId: number, solvedAt: number | null, penaltyMinutes = 0, score = 100) =>
  solvedAt === null ? { problemId, score: 0, penalty: 0, solvedAt: null } : { problemId, score, penalty: penaltyMinutes * 60, solvedAt };

const contestant = (userId: number, ...cells: ContestantCells['cells']): ContestantCells => ({ userId, cells });
const row = (userId: number, rank: number, totalScore: number, maxPenalty: number, lastSolvedAt: number | null = null): RankedContestant => ({
  userId,
  rank,
  totalScore,
  maxPenalty,
  lastSolvedAt,
});

interface Case {
  readonly name: string;
  readonly contestants: readonly ContestantCells[];
  readonly expected: readonly RankedContestant[];
}

function runCases(modes: readonly GradingMode[], cases: readonly Case[]) {
  for (const mode of modes) {
    describe(mode, () => {
      it.each(cases)('$name', ({ contestants, expected }) => {
        expect(rankContestants(mode, contestants)).toEqual(expected);
        // The input order never matters.
        expect(rankContestants(mode, [...contestants].reverse())).toEqual(expected);
      });
    });
  }
}

describe('non-acm modes: total desc, then the LARGEST cell penalty asc', () => {
  runCases(
    ['classic', 'bestSubmission', 'bestSubtask'],
    [
      { name: 'no contestants', contestants: [], expected: [] },
      {
        name: 'the penalty is the largest cell penalty, not the sum',
        contestants: [contestant(7, point(1, 100, 300), point(2, 50, 1200), point(3, 0, 0))],
        expected: [row(7, 1, 150, 1200)],
      },
      {
        name: 'a contestant without cells has 0 and 0',
        contestants: [contestant(4), contestant(2, point(1, 10, 60))],
        expected: [row(2, 1, 10, 60), row(4, 2, 0, 0)],
      },
      {
        name: 'a higher total beats a smaller penalty',
        contestants: [contestant(1, point(1, 100, 10)), contestant(2, point(1, 60, 5), point(2, 41, 9000))],
        expected: [row(2, 1, 101, 9000), row(1, 2, 100, 10)],
      },
      {
        name: 'equal totals: the smaller largest penalty first (even with a larger penalty sum)',
        contestants: [contestant(1, point(1, 100, 3000)), contestant(2, point(1, 50, 2000), point(2, 50, 2000))],
        expected: [row(2, 1, 100, 2000), row(1, 2, 100, 3000)],
      },
      {
        name: 'ties share a rank (1, 1, 3) and are listed by userId',
        contestants: [
          contestant(5, point(1, 100, 1200), point(2, 50, 600)),
          contestant(1, point(1, 100, 0)),
          contestant(3, point(1, 50, 1200), point(2, 100, 300)),
          contestant(9, point(1, 150, 1300)),
        ],
        expected: [row(3, 1, 150, 1200), row(5, 1, 150, 1200), row(9, 3, 150, 1300), row(1, 4, 100, 0)],
      },
      {
        name: 'everyone tied',
        contestants: [contestant(3), contestant(1), contestant(2)],
        expected: [row(1, 1, 0, 0), row(2, 1, 0, 0), row(3, 1, 0, 0)],
      },
    ],
  );
});

describe('acm: total over solved desc, penalty sum asc, earlier last accept first', () => {
  runCases(
    ['acm'],
    [
      { name: 'no contestants', contestants: [], expected: [] },
      {
        // Problems A, B, C of the worked example: A solved at 41:59 with one reject (61 min), B at 95:00
        // with one reject (115 min), C never solved.
        name: 'worked example: 2 solved, 200 points, penalty 176 min = 10560 s, last accept at minute 95',
        contestants: [contestant(1, acm(1, minute(41, 59), 61), acm(2, minute(95), 115), acm(3, null))],
        expected: [row(1, 1, 200, 10560, minute(95))],
      },
      {
        name: 'the penalty is the sum over solved problems only',
        contestants: [contestant(1, acm(1, minute(10), 10), acm(2, minute(30), 50), { problemId: 3, score: 0, penalty: 999, solvedAt: null })],
        expected: [row(1, 1, 200, 3600, minute(30))],
      },
      {
        name: 'nothing solved: 0, 0, null',
        contestants: [contestant(1, acm(1, null), acm(2, null)), contestant(2)],
        expected: [row(1, 1, 0, 0, null), row(2, 1, 0, 0, null)],
      },
      {
        name: 'more solved beats a smaller penalty',
        contestants: [contestant(1, acm(1, minute(5), 5)), contestant(2, acm(1, minute(100), 140), acm(2, minute(200), 200))],
        expected: [row(2, 1, 200, 20400, minute(200)), row(1, 2, 100, 300, minute(5))],
      },
      {
        name: 'equal totals and penalties: the earlier last accept first',
        contestants: [
          contestant(1, acm(1, minute(20), 40), acm(2, minute(90), 90)),
          contestant(2, acm(1, minute(60), 60), acm(2, minute(70), 70)),
        ],
        expected: [row(2, 1, 200, 7800, minute(70)), row(1, 2, 200, 7800, minute(90))],
      },
      {
        name: 'a smaller penalty beats an earlier last accept',
        contestants: [contestant(1, acm(1, minute(30), 100)), contestant(2, acm(1, minute(90), 90))],
        expected: [row(2, 1, 100, 5400, minute(90)), row(1, 2, 100, 6000, minute(30))],
      },
      {
        name: 'full ties share a rank (1, 1, 3), listed by userId; the last accept splits the third',
        contestants: [
          contestant(8, acm(1, minute(41, 59), 61), acm(2, minute(95), 115)),
          contestant(2, acm(1, minute(95), 115), acm(2, minute(41, 59), 61)),
          contestant(5, acm(1, minute(61), 61), acm(2, minute(96), 115)),
          contestant(1, acm(1, null)),
        ],
        expected: [
          row(2, 1, 200, 10560, minute(95)),
          row(8, 1, 200, 10560, minute(95)),
          row(5, 3, 200, 10560, minute(96)),
          row(1, 4, 0, 0, null),
        ],
      },
      {
        name: 'null last accept counts as earliest (a 0-point problem solved in minute 0 ties on total and penalty)',
        contestants: [contestant(1, acm(1, minute(0, 30), 0, 0)), contestant(2, acm(1, null))],
        expected: [row(2, 1, 0, 0, null), row(1, 2, 0, 0, minute(0, 30))],
      },
    ],
  );
});
