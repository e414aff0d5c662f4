/** A contest's phase and clocks, from the server's time (pure: the pages and their tests share it). */
import type { ScoreboardPolicy } from '@otog/schemas/common/contest';

export type ContestPhase = 'PENDING' | 'RUNNING' | 'FINISHED';

export interface ContestTimes {
  readonly timeStart: string;
  readonly timeEnd: string;
}

export function contestPhase(contest: ContestTimes, now: number): ContestPhase {
  if (now < Date.parse(contest.timeStart)) return 'PENDING';
  return now < Date.parse(contest.timeEnd) ? 'RUNNING' : 'FINISHED';
}

/** Milliseconds until the contest's next boundary: its start while pending, its end while running, 0 after. */
export function untilNextBoundary(contest: ContestTimes, now: number): number {
  const phase = contestPhase(contest, now);
  if (phase === 'PENDING') return Date.parse(contest.timeStart) - now;
  return phase === 'RUNNING' ? Date.parse(contest.timeEnd) - now : 0;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** A countdown as OTOG shows it: `HH : MM : SS` (hours may exceed 99). */
export function formatCountdown(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  return `${pad(Math.floor(total / 3600))} : ${pad(Math.floor(total / 60) % 60)} : ${pad(total % 60)}`;
}

/** A length of time in Thai words: "2 ชั่วโมง 30 นาที" (zero parts left out; "0 วินาที" for nothing). */
export function formatThaiDuration(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  const days = Math.floor(total / 86_400);
  const parts: [number, string][] = [
    [days, 'วัน'],
    [Math.floor(total / 3600) % 24, 'ชั่วโมง'],
    [Math.floor(total / 60) % 60, 'นาที'],
    [total % 60, 'วินาที'],
  ];
  const shown = parts.filter(([value]) => value > 0).map(([value, unit]) => `${value} ${unit}`);
  return shown.length > 0 ? shown.join(' ') : '0 วินาที';
}

/** Seconds since the start as the scoreboard shows them: `H:MM:SS`. */
export function formatContestClock(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  return `${Math.floor(total / 3600)}:${pad(Math.floor(total / 60) % 60)}:${pad(total % 60)}`;
}

/**
 * Whether the sidebar and the contest home offer the scoreboard (the API's policy): admins always; on an
 * offline site nobody else (the route is admin-only there); otherwise DURING_CONTEST from the start,
 * AFTER_CONTEST from the end, NOT_VISIBLE never.
 */
export function scoreboardVisible(policy: ScoreboardPolicy, phase: ContestPhase, viewer: { readonly isAdmin: boolean; readonly offline: boolean }): boolean {
  if (viewer.isAdmin) return true;
  if (viewer.offline) return false;
  if (policy === 'DURING_CONTEST') return phase !== 'PENDING';
  return policy === 'AFTER_CONTEST' && phase === 'FINISHED';
}

/** The score badge's tone: green for full marks, red for none, yellow in between. */
export function scoreTone(score: number, fullScore: number): 'green' | 'red' | 'yellow' {
  if (score >= fullScore) return 'green';
  return score <= 0 ? 'red' : 'yellow';
}
