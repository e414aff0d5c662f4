/**
 * Contest prizes: first blood (each problem's earliest accepted submission, ties in time broken by
 * submissionId) and one-man solve (a problem with exactly one solver: that solver's earliest accepted
 * submission), both ordered by problemId, whatever the input order and however often an entry repeats.
 */
import { describe, expect, it } from 'vitest';
import { awardPrizes, type AcceptedContestSubmission, type PrizeWinner } from '@otog/projections/contest-scores/rules/prizes';

/** Contest start. */
const T0 = Date.UTC(2024, 0, 1, 9, 0, 0);
const minute = (minutes: number, seconds = 0) => T0 + minutes * 60_000 + seconds * 1000;

const accepted = (submissionId: number, problemId: number, userId: number, submittedAt: number): AcceptedContestSubmission => ({
  submissionId,
  problemId,
  userId,
  submittedAt,
});
const winner = (submissionId: number, problemId: number, userId: number): PrizeWinner => ({ submissionId, problemId, userId });

interface Case {
  readonly name: string;
  readonly accepted: readonly AcceptedContestSubmission[];
  readonly firstBlood: readonly PrizeWinner[];
  readonly oneManSolve: readonly PrizeWinner[];
}

const cases: readonly Case[] = [
  { name: 'nothing accepted', accepted: [], firstBlood: [], oneManSolve: [] },
  {
    name: 'a single accepted submission wins both',
    accepted: [accepted(10, 3, 7, minute(12))],
    firstBlood: [winner(10, 3, 7)],
    oneManSolve: [winner(10, 3, 7)],
  },
  {
    name: 'two solvers: the earlier wins first blood, nobody wins one-man solve',
    accepted: [accepted(20, 1, 2, minute(30)), accepted(15, 1, 3, minute(25))],
    firstBlood: [winner(15, 1, 3)],
    oneManSolve: [],
  },
  {
    name: 'the same submission time: the smaller submissionId wins',
    accepted: [accepted(7, 1, 2, minute(5, 10)), accepted(5, 1, 3, minute(5, 10))],
    firstBlood: [winner(5, 1, 3)],
    oneManSolve: [],
  },
  {
    name: 'time comes before submissionId',
    accepted: [accepted(4, 1, 2, minute(9)), accepted(6, 1, 3, minute(8))],
    firstBlood: [winner(6, 1, 3)],
    oneManSolve: [],
  },
  {
    name: 'one solver with several accepts: the earliest wins both',
    accepted: [accepted(31, 2, 9, minute(50)), accepted(22, 2, 9, minute(20)), accepted(27, 2, 9, minute(35))],
    firstBlood: [winner(22, 2, 9)],
    oneManSolve: [winner(22, 2, 9)],
  },
  {
    name: 'one solver, a tie in time: the smaller submissionId',
    accepted: [accepted(41, 2, 9, minute(50)), accepted(40, 2, 9, minute(50))],
    firstBlood: [winner(40, 2, 9)],
    oneManSolve: [winner(40, 2, 9)],
  },
  {
    name: 'several problems, listed by problemId; duplicates change nothing',
    accepted: [
      accepted(50, 30, 1, minute(100)),
      accepted(12, 10, 1, minute(10)),
      accepted(14, 10, 2, minute(11)),
      accepted(33, 20, 3, minute(40)),
      accepted(12, 10, 1, minute(10)),
      accepted(34, 20, 3, minute(41)),
      accepted(50, 30, 1, minute(100)),
      accepted(60, 30, 4, minute(120)),
      accepted(33, 20, 3, minute(40)),
    ],
    firstBlood: [winner(12, 10, 1), winner(33, 20, 3), winner(50, 30, 1)],
    oneManSolve: [winner(33, 20, 3)],
  },
];

describe('first blood and one-man solve', () => {
  it.each(cases)('$name', ({ accepted: input, firstBlood, oneManSolve }) => {
    expect(awardPrizes(input)).toEqual({ firstBlood, oneManSolve });
    // The input order never matters.
    expect(awardPrizes([...input].reverse())).toEqual({ firstBlood, oneManSolve });
  });
});
