/**
 * The scoreboard's rows from cells, as a pure function: the live board ranks the contest-scores
 * projection's cells; a frozen board or a replay ranks the cells the same rules give for a journal cut at
 * a moment (rules/journal.ts), so every view of a contest agrees with a fresh replay of the log.
 */
import type { Cell } from '@otog/projections/contest-scores/rules/journal';
import { rankContestants } from '@otog/projections/contest-scores/rules/ranking';
import type { GradingMode } from '@otog/schemas/common/contest';

export interface BoardCell {
  readonly problemId: number;
  readonly score: number;
  readonly penalty: number;
  /** On a frozen board: the user's submissions to the problem made after the freeze. */
  readonly pending?: number;
}

export interface BoardRow {
  readonly userId: number;
  readonly rank: number;
  readonly totalScore: number;
  readonly maxPenalty: number;
  readonly cells: readonly BoardCell[];
}

/**
 * Ranks the participants on the contest's problems only (cells of problems no longer in the contest do
 * not count). `pending` maps `userId:problemId` to a count shown on a frozen board.
 */
export function rankBoard(
  mode: GradingMode,
  participants: readonly number[],
  cells: readonly Pick<Cell, 'userId' | 'problemId' | 'score' | 'penalty' | 'solvedAt'>[],
  problemIds: ReadonlySet<number>,
  pending: ReadonlyMap<string, number> = new Map(),
): BoardRow[] {
  const cellsOf = new Map<number, Array<(typeof cells)[number]>>(participants.map((userId) => [userId, []]));
  for (const cell of cells) if (problemIds.has(cell.problemId)) cellsOf.get(cell.userId)?.push(cell);
  const ranked = rankContestants(
    mode,
    [...cellsOf].map(([userId, own]) => ({ userId, cells: own })),
  );
  return ranked.map((row) => {
    const own = cellsOf.get(row.userId)!;
    const shown: BoardCell[] = own.map(({ problemId, score, penalty }) => withPending({ problemId, score, penalty }, pending.get(`${row.userId}:${problemId}`)));
    for (const problemId of problemIds) {
      const count = pending.get(`${row.userId}:${problemId}`);
      if (count && !own.some((cell) => cell.problemId === problemId)) shown.push({ problemId, score: 0, penalty: 0, pending: count });
    }
    shown.sort((a, b) => a.problemId - b.problemId);
    return { userId: row.userId, rank: row.rank, totalScore: row.totalScore, maxPenalty: row.maxPenalty, cells: shown };
  });
}

const withPending = (cell: BoardCell, count: number | undefined): BoardCell => (count ? { ...cell, pending: count } : cell);
