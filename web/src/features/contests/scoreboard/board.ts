/** The scoreboard's rules, pure so their tests are tables: rows from the API's columns, cell tones, the contest id in the URL, the policy's message. */
import type { BoardChanges, Contest, RowColumns, ScoreboardColumns } from '@otog/schemas/api/contest';
import type { ScoreboardPolicy } from '@otog/schemas/common/contest';

export interface BoardProblem {
  readonly id: number;
  readonly name: string;
  readonly score: number;
}

/** One contestant's row of the board; per-problem values are in the board's problem order (by id). */
export interface BoardRow {
  readonly userId: number;
  readonly showName: string;
  /** Shared by ties (1, 2, 2, 4), as the API ranks them. */
  readonly rank: number;
  readonly totalScore: number;
  readonly maxPenalty: number;
  /** null: no score on that problem. */
  readonly scores: ReadonlyArray<number | null>;
  /** On a frozen board: later submissions left out (0: none). */
  readonly pending: ReadonlyArray<number>;
}

/** A board as the page shows it. */
export interface ShownBoard {
  readonly contest: Contest;
  readonly problems: readonly BoardProblem[];
  readonly frozenAt: string | null;
  /** In rank order. */
  readonly rows: readonly BoardRow[];
  /** The ETag of the columns answer this board equals, what its changes are asked since; null: none known (a replay). */
  readonly etag: string | null;
}

/** The rows of row columns (a whole board's, or the changed rows of a changes answer), ranked by `rankOf`. */
function rowsOf(columns: RowColumns, width: number, rankOf: (index: number) => number): BoardRow[] {
  const none: number[] = new Array(width).fill(0);
  return columns.userId.map((userId, index) => ({
    userId,
    showName: columns.showName[index] ?? '',
    rank: rankOf(index),
    totalScore: columns.totalScore[index] ?? 0,
    maxPenalty: columns.maxPenalty[index] ?? 0,
    scores: columns.score.slice(index * width, (index + 1) * width),
    pending: columns.pending ? columns.pending.slice(index * width, (index + 1) * width) : none,
  }));
}

/** The rows of GET /contest/{id}/scoreboard/columns, in rank order. */
export const boardRowsOf = (board: ScoreboardColumns): BoardRow[] => rowsOf(board, board.problems.length, (index) => board.rank[index] ?? index + 1);

/** The board of a columns answer, which came with `etag`. */
export function shownBoardOf(board: ScoreboardColumns, etag: string | null): ShownBoard {
  return { contest: board.contest, problems: board.problems, frozenAt: board.frozenAt, rows: boardRowsOf(board), etag };
}

/**
 * `board` brought up to the board of a changes answer (named `etag`): the changed rows are new, the others
 * the same objects unless their rank moved, so the rows on screen that did not change are not drawn again.
 * null when the changes do not fit `board` (read the whole board).
 */
export function applyBoardChanges(board: ShownBoard, changes: BoardChanges, etag: string): ShownBoard | null {
  const width = board.problems.length;
  const { changed } = changes;
  if (changed.score.length !== changed.userId.length * width || (changed.pending !== undefined && changed.pending.length !== changed.score.length)) return null;
  const before = new Map(board.rows.map((row) => [row.userId, row]));
  const fresh = new Map(rowsOf(changed, width, () => 0).map((row) => [row.userId, row]));
  const rows: BoardRow[] = [];
  for (let index = 0; index < changes.userId.length; index++) {
    const userId = changes.userId[index]!;
    const rank = changes.rank[index]!;
    const row = fresh.get(userId) ?? before.get(userId);
    if (!row) return null;
    rows.push(row.rank === rank ? row : { ...row, rank });
  }
  return { contest: changes.contest, problems: board.problems, frozenAt: changes.frozenAt, rows, etag };
}

export type CellTone = 'full' | 'partial' | 'zero' | 'none';

/** How a cell is coloured: its score against the problem's full score; no score at all is "none". */
export function cellTone(score: number | null, fullScore: number): CellTone {
  if (score === null) return 'none';
  if (score <= 0) return 'zero';
  return score >= fullScore ? 'full' : 'partial';
}

/** The route's id when it is a canonical positive decimal ("12", not "012", "1e3" or "-1"); null otherwise. */
export function parseContestId(value: string | undefined): number | null {
  if (!value || !/^[1-9]\d{0,15}$/.test(value)) return null;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : null;
}

/** Why a non-admin gets a 403 on the board: the policy's reason in Thai. */
export function policyMessage(policy: ScoreboardPolicy | undefined, phase: 'PENDING' | 'RUNNING' | 'FINISHED' | undefined): string {
  if (policy === 'NOT_VISIBLE') return 'การแข่งขันนี้ไม่เปิดเผยตารางคะแนน';
  if (policy === 'AFTER_CONTEST' && phase !== 'FINISHED') return 'ตารางคะแนนจะแสดงหลังการแข่งขันจบ';
  if (phase === 'PENDING') return 'ตารางคะแนนจะแสดงเมื่อการแข่งขันเริ่มแล้ว';
  return 'คุณไม่มีสิทธิ์ดูตารางคะแนนนี้';
}

/** A problem's rank for one user: 1 + how many users scored strictly more on it. */
export function problemRank(score: number, everyScore: ReadonlyArray<number>): number {
  let higher = 0;
  for (const other of everyScore) if (other > score) higher++;
  return higher + 1;
}

/** Replay steps: the slider moves in 1/60 of the contest. */
export const REPLAY_STEPS = 60;

/** The moment (ms) of slider position `step` of `steps`, from start to end. */
export function replayMoment(timeStart: number, timeEnd: number, step: number, steps = REPLAY_STEPS): number {
  const clamped = Math.min(steps, Math.max(0, step));
  return Math.round(timeStart + ((timeEnd - timeStart) * clamped) / steps);
}

/** The last slider position at or before `moment` (a frozen board's replay starts at the freeze, not past it). */
export function replayStepAtOrBefore(timeStart: number, timeEnd: number, moment: number, steps = REPLAY_STEPS): number {
  if (timeEnd <= timeStart) return 0;
  return Math.min(steps, Math.max(0, Math.floor(((moment - timeStart) * steps) / (timeEnd - timeStart))));
}
