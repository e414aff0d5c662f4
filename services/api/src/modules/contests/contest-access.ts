/**
 * Who may see what of a contest, and when: pure functions of the contest's times and policy, the caller
 * and the moment asked about, so every cell of the policy matrix is a line of a table test.
 */
import type { ContestRecord } from '@otog/projections';
import { contestStateAt, type ScoreboardPolicy } from '@otog/schemas/common/contest';

export interface ContestTimes {
  /** ms */
  readonly timeStart: number;
  /** ms */
  readonly timeEnd: number;
  readonly scoreboardPolicy: ScoreboardPolicy;
  /** ms; null when the contest is never frozen. */
  readonly freezeAt: number | null;
  readonly revealed: boolean;
}

/** A contest row's times as instants. */
export function timesOf(contest: ContestRecord): ContestTimes {
  return {
    timeStart: Date.parse(contest.timeStart),
    timeEnd: Date.parse(contest.timeEnd),
    scoreboardPolicy: contest.scoreboardPolicy,
    freezeAt: contest.freezeAt === null ? null : Date.parse(contest.freezeAt),
    revealed: contest.revealed,
  };
}

export const NOT_STARTED_MESSAGE = 'The contest has not started yet';
export const SCOREBOARD_HIDDEN_MESSAGE = 'The scoreboard is not available';

/** Detail and contest problems: admins always; everyone else once the contest has started. */
export function startedFor(contest: ContestTimes, callerIsAdmin: boolean, now: number): boolean {
  return callerIsAdmin || contestStateAt(contest, now) !== 'PENDING';
}

/**
 * The scoreboard policy, as of `now`: DURING_CONTEST from the start, AFTER_CONTEST from the end,
 * NOT_VISIBLE never; admins always. It also guards score histories, prizes and other users' contest
 * submissions.
 */
export function boardOpenTo(contest: ContestTimes, callerIsAdmin: boolean, now: number): boolean {
  if (callerIsAdmin) return true;
  const state = contestStateAt(contest, now);
  switch (contest.scoreboardPolicy) {
    case 'DURING_CONTEST':
      return state !== 'PENDING';
    case 'AFTER_CONTEST':
      return state === 'FINISHED';
    case 'NOT_VISIBLE':
      return false;
  }
}

/**
 * The moment a non-admin's board is frozen at, or null for the live board: from freezeAt on, until an
 * admin reveals it. Admins always see the live board.
 */
export function frozenAtFor(contest: ContestTimes, callerIsAdmin: boolean, now: number): number | null {
  if (callerIsAdmin || contest.freezeAt === null || contest.revealed) return null;
  return now >= contest.freezeAt ? contest.freezeAt : null;
}

/**
 * Whether a replay as of `at` may be shown: admins always; others only when the board was open to them
 * at that moment and is open now (a replay must not reveal what the policy still hides), and never past a
 * freeze still in force.
 */
export function replayOpenTo(contest: ContestTimes, callerIsAdmin: boolean, at: number, now: number): boolean {
  if (callerIsAdmin) return true;
  if (!boardOpenTo(contest, false, now) || !boardOpenTo(contest, false, at)) return false;
  const frozenAt = frozenAtFor(contest, false, now);
  return frozenAt === null || at <= frozenAt;
}
