/**
 * A contest's settings as OTOG names them, shared by the contest events, the API contracts and the
 * scoring rules.
 */
import { z } from 'zod';

/** `rated` contests change ratings when they finish; `unrated` ones do not. */
export const CONTEST_MODES = ['rated', 'unrated'] as const;
export const ContestModeSchema = z.enum(CONTEST_MODES);
export type ContestMode = z.infer<typeof ContestModeSchema>;

/** How a contestant's submissions to one problem make its contest score (the rules live in the contest scoring modules). */
export const GRADING_MODES = ['acm', 'classic', 'bestSubmission', 'bestSubtask'] as const;
export const GradingModeSchema = z.enum(GRADING_MODES);
export type GradingMode = z.infer<typeof GradingModeSchema>;

/** Who may see the scoreboard, score histories, prizes and other contestants' submissions, and when. */
export const SCOREBOARD_POLICIES = ['DURING_CONTEST', 'AFTER_CONTEST', 'NOT_VISIBLE'] as const;
export const ScoreboardPolicySchema = z.enum(SCOREBOARD_POLICIES);
export type ScoreboardPolicy = z.infer<typeof ScoreboardPolicySchema>;

export const CONTEST_STATES = ['PENDING', 'RUNNING', 'FINISHED'] as const;
export type ContestState = (typeof CONTEST_STATES)[number];

/** PENDING before timeStart, RUNNING until timeEnd, FINISHED from timeEnd on (times in ms). */
export function contestStateAt(contest: { readonly timeStart: number; readonly timeEnd: number }, now: number): ContestState {
  if (now < contest.timeStart) return 'PENDING';
  return now < contest.timeEnd ? 'RUNNING' : 'FINISHED';
}

/** A contest's name: what OTOG's varchar(255) column holds. */
export const CONTEST_NAME_MAX = 255;
/** The contest home page's rich-text document (OTOG keeps JSON text). */
export const CONTEST_ANNOUNCE_MAX = 100_000;
