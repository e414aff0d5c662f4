/** The scoreboard's rules, pure so their tests are tables: rows from the API's columns, cell tones, the contest id in the URL, the policy's message. */
import type { ScoreboardColumns } from '@otog/schemas/api/contest';
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

/** The rows of GET /contest/{id}/scoreboard/columns, in rank order. */
export function boardRowsOf(board: ScoreboardColumns): BoardRow[] {
  const width = board.problems.length;
  const none: number[] = new Array(width).fill(0);
  return board.userId.map((userId, index) => ({
    userId,
    showName: board.showName[index] ?? '',
    rank: board.rank[index] ?? index + 1,
    totalScore: board.totalScore[index] ?? 0,
    maxPenalty: board.maxPenalty[index] ?? 0,
    scores: board.score.slice(index * width, (index + 1) * width),
    pending: board.pending ? board.pending.slice(index * width, (index + 1) * width) : none,
  }));
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
