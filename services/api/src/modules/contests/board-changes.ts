/**
 * What a kept board changed between two of its columns answers, so a live update reads a few rows and not
 * the whole board: which users' rows changed (ranks aside: a move shifts the ranks of everyone it passes, so
 * every rank is sent anyway), and a log of those changes across the answers made for one view.
 */
import type { BoardChanges, ScoreboardColumns } from '@otog/schemas/api/contest';

const sameProblems = (before: ScoreboardColumns, after: ScoreboardColumns) =>
  before.problems.length === after.problems.length &&
  before.problems.every((problem, index) => {
    const other = after.problems[index]!;
    return problem.id === other.id && problem.name === other.name && problem.score === other.score;
  });

/**
 * The users whose rows differ from `before` to `after` in anything but the rank (name, total, time, a cell,
 * a pending count), and those new to the board; null when the boards are not of one view with the same
 * problems (their changes would not say what a reader of `before` must redraw).
 */
export function changedUsers(before: ScoreboardColumns, after: ScoreboardColumns): Set<number> | null {
  if (before.frozenAt !== after.frozenAt || !sameProblems(before, after)) return null;
  const width = after.problems.length;
  const indexBefore = new Map(before.userId.map((userId, index) => [userId, index]));
  const changed = new Set<number>();
  after.userId.forEach((userId, index) => {
    const old = indexBefore.get(userId);
    const same =
      old !== undefined &&
      before.showName[old] === after.showName[index] &&
      before.totalScore[old] === after.totalScore[index] &&
      before.maxPenalty[old] === after.maxPenalty[index] &&
      sameCells(before, old, after, index, width);
    if (!same) changed.add(userId);
  });
  return changed;
}

function sameCells(before: ScoreboardColumns, old: number, after: ScoreboardColumns, index: number, width: number): boolean {
  for (let column = 0; column < width; column++) {
    if (before.score[old * width + column] !== after.score[index * width + column]) return false;
    if ((before.pending?.[old * width + column] ?? 0) !== (after.pending?.[index * width + column] ?? 0)) return false;
  }
  return true;
}

/** The changes answer that brings a reader to `board`: every row's user and rank, and the rows of `users` whole. */
export function boardChanges(board: ScoreboardColumns, users: ReadonlySet<number>): BoardChanges {
  const width = board.problems.length;
  const changed: BoardChanges['changed'] = { userId: [], showName: [], totalScore: [], maxPenalty: [], score: [], ...(board.pending ? { pending: [] } : {}) };
  board.userId.forEach((userId, index) => {
    if (!users.has(userId)) return;
    changed.userId.push(userId);
    changed.showName.push(board.showName[index]!);
    changed.totalScore.push(board.totalScore[index]!);
    changed.maxPenalty.push(board.maxPenalty[index]!);
    changed.score.push(...board.score.slice(index * width, (index + 1) * width));
    changed.pending?.push(...board.pending!.slice(index * width, (index + 1) * width));
  });
  return { contest: board.contest, frozenAt: board.frozenAt, userId: board.userId, rank: board.rank, changed };
}

/** The columns answers made last for one view, each with the users whose rows changed from the one before. */
export function createChangeLog(maxSteps: number) {
  let last: { etag: string; columns: ScoreboardColumns } | null = null;
  let steps: Array<{ etag: string; changed: ReadonlySet<number> }> = [];
  return {
    /** A columns answer made for the view (the same ETag again is the same board). */
    record(etag: string, columns: ScoreboardColumns): void {
      if (last?.etag === etag) return;
      const changed = last ? changedUsers(last.columns, columns) : null;
      // A board whose changes cannot be told starts the log again.
      if (changed === null) steps = [];
      steps.push({ etag, changed: changed ?? new Set() });
      if (steps.length > maxSteps) steps.shift();
      last = { etag, columns };
    },
    /** The users whose rows changed from the answer named `since` to the one named `etag`; null when the log cannot tell. */
    changedBetween(since: string, etag: string): Set<number> | null {
      const to = steps.findLastIndex((step) => step.etag === etag);
      const from = steps.findLastIndex((step, index) => index < to && step.etag === since);
      if (from < 0) return null;
      const users = new Set<number>();
      for (const step of steps.slice(from + 1, to + 1)) for (const userId of step.changed) users.add(userId);
      return users;
    },
  };
}
export type ChangeLog = ReturnType<typeof createChangeLog>;
