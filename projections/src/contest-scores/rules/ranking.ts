/**
 * The scoreboard: each contestant's total and penalty from their per-problem cells, the order, and the
 * ranks. The caller has already restricted the contestants to the contest's participants and the cells
 * to the contest's problems. Pure.
 *
 * Non-acm modes: the total is the sum of the cell scores and the penalty is the LARGEST cell penalty
 * (the time of the last score-deciding submission), ordered by total descending, then penalty ascending.
 * acm: the total and penalty sum over the solved cells only, ordered by total descending, penalty sum
 * ascending, then the earlier last accept first. Rows equal in every ordering key share a rank
 * (competition ranking: 1, 1, 3) and are listed by userId ascending, so the order is deterministic.
 */
import type { GradingMode } from '@otog/schemas/common/contest';

export interface ContestantCells {
  readonly userId: number;
  readonly cells: readonly { readonly problemId: number; readonly score: number; readonly penalty: number; readonly solvedAt: number | null }[];
}

export interface RankedContestant {
  readonly userId: number;
  readonly rank: number;
  readonly totalScore: number;
  readonly maxPenalty: number;
  /** acm: latest solvedAt over solved problems (ms) or null */
  readonly lastSolvedAt: number | null;
}

type Totals = Omit<RankedContestant, 'rank'>;

export function rankContestants(mode: GradingMode, contestants: readonly ContestantCells[]): RankedContestant[] {
  const totals = contestants.map((contestant) => (mode === 'acm' ? acmTotals(contestant) : pointTotals(contestant)));
  const sorted = totals.sort((a, b) => compareStanding(a, b) || a.userId - b.userId);
  const ranked: RankedContestant[] = [];
  sorted.forEach((row, index) => {
    const previous = ranked[index - 1];
    const rank = previous && compareStanding(previous, row) === 0 ? previous.rank : index + 1;
    ranked.push({ ...row, rank });
  });
  return ranked;
}

function pointTotals(contestant: ContestantCells): Totals {
  return {
    userId: contestant.userId,
    totalScore: contestant.cells.reduce((total, cell) => total + cell.score, 0),
    maxPenalty: contestant.cells.reduce((max, cell) => Math.max(max, cell.penalty), 0),
    lastSolvedAt: null,
  };
}

function acmTotals(contestant: ContestantCells): Totals {
  const solved = contestant.cells.flatMap((cell) => (cell.solvedAt === null ? [] : [{ ...cell, solvedAt: cell.solvedAt }]));
  return {
    userId: contestant.userId,
    totalScore: solved.reduce((total, cell) => total + cell.score, 0),
    maxPenalty: solved.reduce((total, cell) => total + cell.penalty, 0),
    lastSolvedAt: solved.length === 0 ? null : solved.reduce((latest, cell) => Math.max(latest, cell.solvedAt), -Infinity),
  };
}

/**
 * Better standing first. The last-accept key only ever differs in acm (other modes carry null); null,
 * possible only with nothing solved, counts as earliest.
 */
function compareStanding(a: Totals, b: Totals): number {
  return b.totalScore - a.totalScore || a.maxPenalty - b.maxPenalty || compareLastSolved(a.lastSolvedAt, b.lastSolvedAt);
}

function compareLastSolved(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a - b;
}
