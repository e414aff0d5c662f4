import { z } from 'zod';
import { CONTEST_ANNOUNCE_MAX, CONTEST_NAME_MAX, ContestModeSchema, GradingModeSchema, ScoreboardPolicySchema } from '../common/contest.ts';
import { defineEvent } from './registry.ts';

const id = z.number().int().positive();
const instant = z.iso.datetime({ offset: true });

/** Everything an admin sets on a contest; created and edited contests carry all of it, so a fold needs no merge rules. */
export const ContestSettingsSchema = z
  .object({
    name: z.string().min(1).max(CONTEST_NAME_MAX),
    mode: ContestModeSchema,
    gradingMode: GradingModeSchema,
    scoreboardPolicy: ScoreboardPolicySchema,
    timeStart: instant,
    timeEnd: instant,
    /** The contest home page's rich text (OTOG's `announce`). */
    announce: z.string().max(CONTEST_ANNOUNCE_MAX).nullable(),
    /** [ours] From this moment non-admins see the board as it stood then, until an admin reveals it. */
    freezeAt: instant.nullable(),
  })
  .strict();
export type ContestSettings = z.infer<typeof ContestSettingsSchema>;

/**
 * Contests: stream `contest-<contestId>`, scope `contest:<contestId>` (the same scope as the contest's
 * submissions and verdicts, so one contest's events stay in one order on every transport).
 */
export const ContestCreated = defineEvent({
  type: 'ContestCreated',
  scopes: ['contest'],
  schema: z.object({ contestId: id, settings: ContestSettingsSchema }).strict(),
});

/** PUT or PATCH: the settings after the change. A new time or grading mode re-scores the whole contest. */
export const ContestEdited = defineEvent({
  type: 'ContestEdited',
  scopes: ['contest'],
  schema: z.object({ contestId: id, settings: ContestSettingsSchema }).strict(),
});

/** The contest, its problem list, participants, scores and submissions leave the read models (OTOG cascades). */
export const ContestDeleted = defineEvent({
  type: 'ContestDeleted',
  scopes: ['contest'],
  schema: z.object({ contestId: id }).strict(),
});

/** Problems join the contest (PUT problems adds; PATCH problem {show: true} adds one). */
export const ContestProblemsAdded = defineEvent({
  type: 'ContestProblemsAdded',
  scopes: ['contest'],
  schema: z.object({ contestId: id, problemIds: z.array(id).min(1).max(1_000) }).strict(),
});

export const ContestProblemRemoved = defineEvent({
  type: 'ContestProblemRemoved',
  scopes: ['contest'],
  schema: z.object({ contestId: id, problemId: id }).strict(),
});

/** An admin signed a user up. A user also joins by submitting to the contest (SubmissionCreated with the contest). */
export const ContestantSignedUp = defineEvent({
  type: 'ContestantSignedUp',
  scopes: ['contest'],
  schema: z.object({ contestId: id, userId: id }).strict(),
});

/**
 * [ours] An admin lifted the freeze at `freezeAt`: everyone sees the live board again. It names the freeze it
 * lifts, so a later freeze at another moment is not lifted by it, whatever order a reader folds them in.
 */
export const ContestScoreboardRevealed = defineEvent({
  type: 'ContestScoreboardRevealed',
  scopes: ['contest'],
  schema: z.object({ contestId: id, freezeAt: instant }).strict(),
});

/**
 * [ours] The contest's end `timeEnd` has passed: appended by the end scheduler at (or, after downtime, soon
 * after) that moment, so folds that act on an end (ratings) read it from the log, never from a clock. It
 * names the end it confirms: after an edit moves the end, the contest is final again only once the new end
 * has its own ContestEnded.
 */
export const ContestEnded = defineEvent({
  type: 'ContestEnded',
  scopes: ['contest'],
  schema: z.object({ contestId: id, timeEnd: instant }).strict(),
});

export const contestEvents = [
  ContestCreated,
  ContestEdited,
  ContestDeleted,
  ContestProblemsAdded,
  ContestProblemRemoved,
  ContestantSignedUp,
  ContestScoreboardRevealed,
  ContestEnded,
] as const;
