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
    const shown: BoardCell[] = own.map(({ problemId, score, penalty }) => ({ problemId, score, penalty }));
    // A live board has nothing pending: no lookups per cell and problem then.
    if (pending.size > 0) addPending(row.userId, shown, problemIds, pending);
    // Cells read in problem order need no sort (most boards).
    if (shown.some((cell, index) => index > 0 && shown[index - 1]!.problemId > cell.problemId)) shown.sort((a, b) => a.problemId - b.problemId);
    return { userId: row.userId, rank: row.rank, totalScore: row.totalScore, maxPenalty: row.maxPenalty, cells: shown };
  });
}

/** A user's pending counts on their cells, and as cells of their own on problems they have no score on. */
function addPending(userId: number, shown: BoardCell[], problemIds: ReadonlySet<number>, pending: ReadonlyMap<string, number>): void {
  shown.forEach((cell, index) => {
    const count = pending.get(`${userId}:${cell.problemId}`);
    if (count) shown[index] = { ...cell, pending: count };
  });
  const scored = new Set(shown.map((cell) => cell.problemId));
  for (const problemId of problemIds) {
    const count = pending.get(`${userId}:${problemId}`);
    if (count && !scored.has(problemId)) shown.push({ problemId, score: 0, penalty: 0, pending: count });
  }
}

interface ColumnRow {
  readonly user: { readonly id: number; readonly showName: string };
  readonly rank: number | null;
  readonly totalScore: number;
  readonly maxPenalty: number;
  readonly contestScores: readonly BoardCell[];
}

/** Board rows in columns (GET /contest/:id/scoreboard/columns): per-problem arrays hold rows × problems in id order. */
export function boardColumns(rows: readonly ColumnRow[], problems: readonly { id: number; name: string; score: number }[]) {
  const ordered = [...problems].sort((a, b) => a.id - b.id);
  const column = new Map(ordered.map((problem, index) => [problem.id, index]));
  const score: Array<number | null> = new Array(rows.length * ordered.length).fill(null);
  const pending: number[] = new Array(rows.length * ordered.length).fill(0);
  let anyPending = false;
  rows.forEach((row, index) => {
    for (const cell of row.contestScores) {
      const at = column.get(cell.problemId);
      if (at === undefined) continue;
      score[index * ordered.length + at] = cell.score;
      if (cell.pending) {
        pending[index * ordered.length + at] = cell.pending;
        anyPending = true;
      }
    }
  });
  return {
    problems: ordered.map(({ id, name, score: full }) => ({ id, name, score: full })),
    userId: rows.map((row) => row.user.id),
    showName: rows.map((row) => row.user.showName),
    rank: rows.map((row, index) => row.rank ?? index + 1),
    totalScore: rows.map((row) => row.totalScore),
    maxPenalty: rows.map((row) => row.maxPenalty),
    score,
    ...(anyPending ? { pending } : {}),
  };
}
