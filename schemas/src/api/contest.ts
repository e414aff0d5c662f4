/**
 * The contest routes of spec section 7 (OTOG research §3.7, scoring §4.3–4.6). The shapes are OTOG's, field
 * for field (its web client parses every response strictly), with dates as ISO-8601 strings. Our additions
 * are optional fields and queries only, marked [ours]: a freeze moment (`freezeAt`) and its reveal, and the
 * scoreboard as it stood at an earlier moment (`at`, `judged`).
 *
 * Access follows OTOG: the reading routes are open to anyone (a token is optional); offline, the contest
 * pages (list of running contests, the contest, its detail, problems and your own scores) need a sign-in,
 * and the list, scoreboard, score histories and prizes become admin-only. Writing is admin-only.
 */
import { z } from 'zod';
import { CONTEST_ANNOUNCE_MAX, CONTEST_NAME_MAX, ContestModeSchema, GradingModeSchema, ScoreboardPolicySchema } from '../common/contest.ts';
import { DateTimeSchema, defineRoute, errorResponses, IdSchema, skipLimitQuery, UserSummarySchema } from './contract.ts';
import { ProblemSchema } from './problem.ts';

/** Page sizes of the contest lists (the history page and the admin table show 10). */
export const CONTEST_PAGE_DEFAULT = 10;
/** At most this many problems in one PUT /contest/:contestId/problems. */
export const CONTEST_PROBLEMS_PER_PUT_MAX = 1_000;

const int = z.number().int();

// ---------------------------------------------------------------------------------------------------------
// Contests

/** The contest row (OTOG's ContestSchema / ContestModel: both carry the same columns). */
export const ContestSchema = z.object({
  id: int,
  name: z.string(),
  mode: ContestModeSchema,
  gradingMode: GradingModeSchema,
  scoreboardPolicy: ScoreboardPolicySchema,
  timeStart: DateTimeSchema,
  timeEnd: DateTimeSchema,
  /** The contest home page's rich text (a JSON-stringified Slate document), null when there is none. */
  announce: z.string().nullable(),
  /**
   * [ours] From this moment until an admin reveals the board, non-admins see the scoreboard, score
   * histories and prizes as they stood then. Null or absent: the contest is never frozen.
   */
  freezeAt: DateTimeSchema.nullable().optional(),
});
export type Contest = z.infer<typeof ContestSchema>;

export const ContestListSchema = z.object({ data: z.array(ContestSchema), total: int });
export type ContestList = z.infer<typeof ContestListSchema>;

/** GET /contest/:contestId/detail: the contest, its problems (id, name, full score) and how many announcements it has. */
export const ContestDetailSchema = ContestSchema.extend({
  contestProblem: z.array(z.object({ problem: z.object({ id: int, name: z.string(), score: int }) })),
  /** OTOG's Prisma relation count, spelled as Prisma returns it. */
  _count: z.object({ announcements: int }),
});
export type ContestDetail = z.infer<typeof ContestDetailSchema>;

/** A problem of a contest, with the full problem row (OTOG's ContestProblemModel + problem). */
export const ContestProblemSchema = z.object({ contestId: int, problemId: int, problem: ProblemSchema });
export type ContestProblem = z.infer<typeof ContestProblemSchema>;

/** GET /contest/admin/:contestId: the contest with its problems, newest problem first. */
export const ContestWithProblemsSchema = ContestSchema.extend({ contestProblem: z.array(ContestProblemSchema) });
export type ContestWithProblems = z.infer<typeof ContestWithProblemsSchema>;

/** A user's participation in a contest (OTOG's UserContestModel). rank and ratingAfterUpdate are null until rated. */
export const UserContestRowSchema = z.object({
  userId: int,
  contestId: int,
  rank: int.nullable(),
  ratingAfterUpdate: int.nullable(),
});
export type UserContest = z.infer<typeof UserContestRowSchema>;

// ---------------------------------------------------------------------------------------------------------
// Contest bodies (admin)

const nameField = z
  .string()
  .trim()
  .min(1, 'name must not be empty')
  .max(CONTEST_NAME_MAX, `name must be at most ${CONTEST_NAME_MAX} characters`);
const announceField = z
  .string()
  .max(CONTEST_ANNOUNCE_MAX, `announce must be at most ${CONTEST_ANNOUNCE_MAX} characters`)
  .nullable();

/** Every contest setting an admin sends, without the cross-field checks (the bodies below add them). */
const contestFields = z.object({
  name: nameField,
  mode: ContestModeSchema,
  gradingMode: GradingModeSchema,
  scoreboardPolicy: ScoreboardPolicySchema,
  timeStart: DateTimeSchema,
  timeEnd: DateTimeSchema,
  /** Optional: OTOG's client sends it (null on create); omitted on create means none, on PUT the current one stays. */
  announce: announceField.optional(),
  /** [ours] Optional: null removes the freeze; omitted on create means none, on PUT the current one stays. */
  freezeAt: DateTimeSchema.nullable().optional(),
});

interface ContestTimes {
  readonly timeStart?: string | undefined;
  readonly timeEnd?: string | undefined;
  readonly freezeAt?: string | null | undefined;
}

export const TIME_END_MESSAGE = 'timeEnd must be after timeStart';
export const FREEZE_AT_MESSAGE = 'freezeAt must be between timeStart and timeEnd';

/**
 * The time rules, checked on what the body carries (times compared as instants, whatever their offsets):
 * timeEnd after timeStart, and timeStart ≤ freezeAt ≤ timeEnd. A PATCH may carry only some of them, so
 * the server checks the merged settings again.
 */
function checkTimes(body: ContestTimes, context: z.RefinementCtx): void {
  // Zod runs this refinement even when a field failed its own check; such a field is left out here.
  const instant = (value: unknown): number | undefined => {
    const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isNaN(time) ? undefined : time;
  };
  const start = instant(body.timeStart);
  const end = instant(body.timeEnd);
  const freeze = instant(body.freezeAt);
  if (start !== undefined && end !== undefined && !(end > start)) {
    context.addIssue({ code: 'custom', message: TIME_END_MESSAGE, path: ['timeEnd'] });
  }
  if (freeze !== undefined && ((start !== undefined && freeze < start) || (end !== undefined && freeze > end))) {
    context.addIssue({ code: 'custom', message: FREEZE_AT_MESSAGE, path: ['freezeAt'] });
  }
}

/** POST /contest and PUT /contest/:contestId: the contest without its id. */
export const ContestInputSchema = contestFields.superRefine(checkTimes);
export type ContestInput = z.infer<typeof ContestInputSchema>;

/** PATCH /contest/:contestId: any of the settings (OTOG's web saves `announce` alone with it). */
export const ContestPatchSchema = contestFields.partial().superRefine(checkTimes);
export type ContestPatch = z.infer<typeof ContestPatchSchema>;

export const ContestProblemToggleSchema = z.object({ show: z.boolean() });
export type ContestProblemToggle = z.infer<typeof ContestProblemToggleSchema>;

export const ContestProblemsInputSchema = z
  .array(z.object({ problemId: IdSchema }))
  .max(CONTEST_PROBLEMS_PER_PUT_MAX, `at most ${CONTEST_PROBLEMS_PER_PUT_MAX} problems at once`);
export type ContestProblemsInput = z.infer<typeof ContestProblemsInputSchema>;

export const ContestSignupSchema = z.object({ userId: IdSchema });
export type ContestSignup = z.infer<typeof ContestSignupSchema>;

// ---------------------------------------------------------------------------------------------------------
// Scores, scoreboard, score history, prizes

/**
 * A user's contest score on one problem. penalty: whole seconds from the contest start to the deciding
 * submission, 0 when there is none (in acm contests, the problem's ICPC penalty in seconds).
 */
export const ContestScoreCellSchema = z.object({
  problemId: int,
  score: int,
  penalty: int,
  /** [ours] On a frozen board: the caller's view leaves out this many later submissions of the user to this problem. */
  pending: int.nonnegative().optional(),
});
export type ContestScoreCell = z.infer<typeof ContestScoreCellSchema>;

/** A scoreboard row: the participation, the user, their scores, and the totals they are ranked by. */
export const ScoreboardRowSchema = UserContestRowSchema.extend({
  user: UserSummarySchema.pick({ id: true, showName: true, role: true, rating: true }),
  contestScores: z.array(ContestScoreCellSchema),
  totalScore: int,
  /** The largest per-problem penalty (in acm contests, the total ICPC penalty), in seconds. */
  maxPenalty: int,
});
export type ScoreboardRow = z.infer<typeof ScoreboardRowSchema>;

/** The scoreboard's contest: the row, every participation (without users) and the problems with their full rows. */
export const ScoreboardContestSchema = ContestSchema.extend({
  userContest: z.array(UserContestRowSchema),
  contestProblem: z.array(ContestProblemSchema),
});
export type ScoreboardContest = z.infer<typeof ScoreboardContestSchema>;

/** GET /contest/:contestId/scoreboard: the rows sorted by rank (totalScore desc, then maxPenalty asc; ties share a rank). */
export const ScoreboardSchema = z.object({
  contest: ScoreboardContestSchema,
  userContest: z.array(ScoreboardRowSchema),
  /** [ours] The moment the board shows when it is frozen for the caller; null or absent: the live board (or the `at` asked for). */
  frozenAt: DateTimeSchema.nullable().optional(),
});
export type Scoreboard = z.infer<typeof ScoreboardSchema>;

/**
 * [ours] GET /contest/:contestId/scoreboard/columns: the same board in columns, for our web app. The rows
 * are the indexes of the arrays (in rank order); the per-problem arrays hold rows × problems, row by row in
 * `problems` order. A tenth of the bytes of the OTOG shape, and arrays of numbers parse and check fast, so
 * a board of 10,000 contestants opens and updates live within a frame budget.
 */
const scoreboardColumnsFields = z.object({
  contest: ContestSchema,
  /** The contest's problems by id. */
  problems: z.array(z.object({ id: int, name: z.string(), score: int })),
  frozenAt: DateTimeSchema.nullable(),
  userId: z.array(int),
  showName: z.array(z.string()),
  rank: z.array(int),
  totalScore: z.array(int),
  maxPenalty: z.array(int),
  /** null: no score on that problem. */
  score: z.array(int.nullable()),
  /** On a frozen board: the caller's view leaves out this many later submissions (0: none); absent when no cell has any. */
  pending: z.array(int.nonnegative()).optional(),
});

/** The arrays must agree: one entry per row, one per row and problem. */
function columnLengthsAgree(board: z.output<typeof scoreboardColumnsFields>): boolean {
  const rows = board.userId.length;
  const cells = rows * board.problems.length;
  return (
    [board.showName, board.rank, board.totalScore, board.maxPenalty].every((column) => column.length === rows) &&
    board.score.length === cells &&
    (board.pending === undefined || board.pending.length === cells)
  );
}

export const ScoreboardColumnsSchema = scoreboardColumnsFields.refine(columnLengthsAgree, { message: 'the columns differ in length' });
export type ScoreboardColumns = z.infer<typeof ScoreboardColumnsSchema>;

const columnsHead = scoreboardColumnsFields.pick({ contest: true, problems: true, frozenAt: true });
const isInt = (value: unknown): value is number => Number.isSafeInteger(value);
const isIntOrNull = (value: unknown) => value === null || Number.isSafeInteger(value);
const isCount = (value: unknown) => isInt(value) && value >= 0;

/** A board's per-row columns (the changed rows of a changes answer have the same ones). */
export type RowColumns = Pick<ScoreboardColumns, 'userId' | 'showName' | 'totalScore' | 'maxPenalty' | 'score' | 'pending'>;

/** `value`'s row columns when each is an array of the right values, checked in one loop per column; null otherwise. */
function rowColumnsOf(value: unknown): RowColumns | null {
  if (typeof value !== 'object' || value === null) return null;
  const columns = value as Record<keyof RowColumns, unknown>;
  const column = (key: keyof RowColumns, check: (item: unknown) => boolean): boolean => Array.isArray(columns[key]) && columns[key].every(check);
  const shaped =
    column('userId', isInt) &&
    column('showName', (item) => typeof item === 'string') &&
    column('totalScore', isInt) &&
    column('maxPenalty', isInt) &&
    column('score', isIntOrNull) &&
    (columns.pending === undefined || column('pending', isCount));
  if (!shaped) return null;
  const rows = columns as RowColumns;
  const { userId, showName, totalScore, maxPenalty, score, pending } = rows;
  return { userId, showName, totalScore, maxPenalty, score, ...(pending === undefined ? {} : { pending }) };
}

const isIntArray = (value: unknown): value is number[] => Array.isArray(value) && value.every(isInt);

/**
 * What ScoreboardColumnsSchema accepts, checked in one loop per column: a browser checks a board of 10,000
 * rows × 10 problems this way in a few milliseconds, where zod walks its 160,000 values one schema call at a
 * time (hundreds of milliseconds on a cold page). null when the schema would refuse it.
 */
export function parseScoreboardColumns(value: unknown): ScoreboardColumns | null {
  const head = columnsHead.safeParse(value);
  const rows = rowColumnsOf(value);
  if (!head.success || !rows) return null;
  const rank = (value as { rank?: unknown }).rank;
  if (!isIntArray(rank)) return null;
  const parsed: ScoreboardColumns = { ...head.data, ...rows, rank };
  return columnLengthsAgree(parsed) ? parsed : null;
}

/** [ours] GET /contest/:contestId/scoreboard/changes?since=…: the ETag of the columns answer the caller has. */
export const ScoreboardChangesQuerySchema = z.object({ since: z.string().min(1).max(200) });

const changesHead = z.object({ contest: ContestSchema, frozenAt: DateTimeSchema.nullable() });

/**
 * [ours] What a live (or frozen) board changed since the columns answer the caller has, so a live update
 * reads a few rows instead of the whole board. Every row's user and rank come whole (a move shifts the
 * ranks of everyone it passes); the rest only for the rows whose user, name, scores or times changed.
 */
export const ScoreboardChangesSchema = z.object({
  /** The ETag of the columns answer these changes lead to: what the next `since` names. */
  etag: z.string(),
  /**
   * null when `etag` is `since` (nothing changed); otherwise this server cannot tell what changed since then
   * (an older board, one made by another server, new problems), or more than half the rows changed: read
   * the whole board.
   */
  changes: changesHead
    .extend({
      /** Every row's user and rank, in rank order. */
      userId: z.array(int),
      rank: z.array(int),
      /** The changed rows, and those new to the board, in the whole board's columns (per-problem values row by row). */
      changed: scoreboardColumnsFields.pick({ userId: true, showName: true, totalScore: true, maxPenalty: true, score: true, pending: true }),
    })
    .refine(changesLengthsAgree, { message: 'the columns differ in length' })
    .nullable(),
});

/** One rank per row, and one name, total and time per changed row (the cells are checked against the problems by the reader). */
function changesLengthsAgree({ userId, rank, changed }: { userId: unknown[]; rank: unknown[]; changed: RowColumns }): boolean {
  return userId.length === rank.length && [changed.showName, changed.totalScore, changed.maxPenalty].every((column) => column.length === changed.userId.length);
}

export type ScoreboardChanges = z.infer<typeof ScoreboardChangesSchema>;
export type BoardChanges = NonNullable<ScoreboardChanges['changes']>;

/** What ScoreboardChangesSchema accepts, checked the way parseScoreboardColumns checks; null when refused. */
export function parseScoreboardChanges(value: unknown): ScoreboardChanges | null {
  const answer = value as { etag?: unknown; changes?: unknown } | null;
  if (typeof answer?.etag !== 'string' || answer.changes === undefined) return null;
  if (answer.changes === null) return { etag: answer.etag, changes: null };
  const head = changesHead.safeParse(answer.changes);
  const { userId, rank, changed } = answer.changes as { userId?: unknown; rank?: unknown; changed?: unknown };
  const changedRows = rowColumnsOf(changed);
  if (!head.success || !changedRows || !isIntArray(userId) || !isIntArray(rank)) return null;
  const changes = { ...head.data, userId, rank, changed: changedRows };
  return changesLengthsAgree(changes) ? { etag: answer.etag, changes } : null;
}

/** [ours] GET /contest/:contestId/scoreboard?at=…&judged=…: the board as it stood at a moment. */
export const ScoreboardQuerySchema = z.object({
  /** The board as it stood at this moment; absent: now. */
  at: DateTimeSchema.optional(),
  /** With `at`: `then` = the verdicts known at that moment; `now` = today's verdicts of the submissions made by then. */
  judged: z.enum(['then', 'now']).default('now'),
});
export type ScoreboardQuery = z.output<typeof ScoreboardQuerySchema>;

/** One judged (accept/reject) contest submission and the problem's contest score right after it. */
export const ScoreHistoryEntrySchema = z.object({
  contestScoreId: int,
  /** The history row's key: one row per submission. */
  submissionId: int,
  score: int,
  submission: z.object({
    creationDate: DateTimeSchema,
    submissionResult: z
      .object({
        score: int,
        /** Raw subtask points, as in the submission's result. */
        subtaskResults: z.array(z.object({ score: z.number(), fullScore: z.number(), subtaskIndex: int })),
      })
      .nullable(),
  }),
});
export type ScoreHistoryEntry = z.infer<typeof ScoreHistoryEntrySchema>;

/**
 * A user's contest score on one problem (OTOG's contestScore row) with its history. `id` identifies the
 * (contest, user, problem) score; the history rows name it in `contestScoreId`.
 */
export const ProblemScoreHistorySchema = z.object({
  id: int,
  contestId: int,
  userId: int,
  problemId: int,
  score: int,
  /** When the deciding submission was made; null when none decided the score. */
  latestSubmission: DateTimeSchema.nullable(),
  contestScoreHistory: z.array(ScoreHistoryEntrySchema),
});
export type ProblemScoreHistory = z.infer<typeof ProblemScoreHistorySchema>;

/** A prize: the winning submission's id, its problem and its user. */
export const PrizeSchema = z.object({
  id: int,
  problem: z.object({ id: int }).nullable(),
  user: z.object({ id: int, showName: z.string() }).nullable(),
});
export type Prize = z.infer<typeof PrizeSchema>;

/** firstBlood: per problem, the first accepted submission; oneManSolve: per problem solved by exactly one user, theirs. */
export const PrizesSchema = z.object({ firstBlood: z.array(PrizeSchema), oneManSolve: z.array(PrizeSchema) });
export type Prizes = z.infer<typeof PrizesSchema>;

// ---------------------------------------------------------------------------------------------------------
// Routes

const ContestParams = z.object({ contestId: IdSchema });
const ContestProblemParams = z.object({ contestId: IdSchema, problemId: IdSchema });

export const contestContract = {
  listContest: defineRoute({
    method: 'GET',
    path: '/contest/list',
    summary: 'Every contest (past, running and upcoming), newest first, a page at a time',
    tags: ['Contest'],
    access: { role: 'any', offline: 'admin' },
    query: skipLimitQuery(CONTEST_PAGE_DEFAULT),
    responses: { 200: ContestListSchema, ...errorResponses(400, 401, 403) },
  }),
  getCurrentContests: defineRoute({
    method: 'GET',
    path: '/contest/now',
    summary: 'Contests that have not ended (running and upcoming), earliest start first',
    tags: ['Contest'],
    access: { role: 'any', offline: 'authenticated' },
    responses: { 200: z.array(ContestSchema), ...errorResponses(401, 403) },
  }),
  getContest: defineRoute({
    method: 'GET',
    path: '/contest/:contestId',
    summary: 'One contest',
    tags: ['Contest'],
    access: { role: 'any', offline: 'authenticated' },
    params: ContestParams,
    responses: { 200: ContestSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  getContestDetail: defineRoute({
    method: 'GET',
    path: '/contest/:contestId/detail',
    summary: 'A contest with its problems (id, name, score) and its announcement count; before the start only for admins (403)',
    tags: ['Contest'],
    access: { role: 'any', offline: 'authenticated' },
    params: ContestParams,
    responses: { 200: ContestDetailSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  getContestProblem: defineRoute({
    method: 'GET',
    path: '/contest/:contestId/problem/:problemId',
    summary: 'A problem of a contest (the full problem row); before the start only for admins, and a hidden one after the end too (403)',
    tags: ['Contest'],
    access: { role: 'any', offline: 'authenticated' },
    params: ContestProblemParams,
    responses: { 200: ProblemSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  getUserContestScores: defineRoute({
    method: 'GET',
    path: '/contest/:contestId/score',
    summary: 'Your own score and penalty (seconds) on each problem you have a score on; an anonymous caller gets []',
    tags: ['Contest'],
    access: { role: 'any', offline: 'authenticated' },
    params: ContestParams,
    responses: { 200: z.array(ContestScoreCellSchema), ...errorResponses(400, 401, 403, 404) },
  }),
  getUserContestScoreHistory: defineRoute({
    method: 'GET',
    path: '/contest/:contestId/scoreHistory/:userId',
    summary: 'A user\'s contest score on each problem with its history, submission by submission; under the scoreboard policy (403)',
    tags: ['Contest'],
    access: { role: 'any', offline: 'admin' },
    params: z.object({ contestId: IdSchema, userId: IdSchema }),
    responses: { 200: z.array(ProblemScoreHistorySchema), ...errorResponses(400, 401, 403, 404) },
  }),
  getContestScoreboard: defineRoute({
    method: 'GET',
    path: '/contest/:contestId/scoreboard',
    summary:
      'The scoreboard: the contest with its problems, and the role-user participants ranked; under the scoreboard policy (403). ' +
      '[ours] at: the board as it stood then; judged: then (verdicts known then) or now (today\'s verdicts)',
    tags: ['Contest'],
    access: { role: 'any', offline: 'admin' },
    params: ContestParams,
    query: ScoreboardQuerySchema,
    responses: { 200: ScoreboardSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  getContestScoreboardColumns: defineRoute({
    method: 'GET',
    path: '/contest/:contestId/scoreboard/columns',
    summary: '[ours] The scoreboard of GET /contest/:contestId/scoreboard (same policy, at and judged) in columns: compact for 10,000 rows',
    tags: ['Contest'],
    access: { role: 'any', offline: 'admin' },
    params: ContestParams,
    query: ScoreboardQuerySchema,
    responses: { 200: ScoreboardColumnsSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  getContestScoreboardChanges: defineRoute({
    method: 'GET',
    path: '/contest/:contestId/scoreboard/changes',
    summary: '[ours] What the board of GET /contest/:contestId/scoreboard/columns (same policy, no at) changed since the answer whose ETag is `since`',
    tags: ['Contest'],
    access: { role: 'any', offline: 'admin' },
    params: ContestParams,
    query: ScoreboardChangesQuerySchema,
    responses: { 200: ScoreboardChangesSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  getContestPrize: defineRoute({
    method: 'GET',
    path: '/contest/:contestId/prize',
    summary: 'The prizes: first blood and one-man solve per problem; under the scoreboard policy (403)',
    tags: ['Contest'],
    access: { role: 'any', offline: 'admin' },
    params: ContestParams,
    responses: { 200: PrizesSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  createContest: defineRoute({
    method: 'POST',
    path: '/contest',
    summary: 'Create a contest (no problems yet); answers the new row',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    body: ContestInputSchema,
    responses: { 200: ContestSchema, ...errorResponses(400, 401, 403) },
  }),
  updateContest: defineRoute({
    method: 'PUT',
    path: '/contest/:contestId',
    summary: 'Replace a contest\'s settings (an omitted announce or freezeAt stays as it is)',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestParams,
    body: ContestInputSchema,
    responses: { 200: ContestSchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
  patchContest: defineRoute({
    method: 'PATCH',
    path: '/contest/:contestId',
    summary: 'Change some of a contest\'s settings (the web saves the announce text this way); the result must keep the time rules',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestParams,
    body: ContestPatchSchema,
    responses: { 200: ContestSchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
  deleteContest: defineRoute({
    method: 'DELETE',
    path: '/contest/:contestId',
    summary: 'Delete a contest with its problem list, participants, scores and submissions; answers the deleted row',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestParams,
    responses: { 200: ContestSchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
  toggleProblemToContest: defineRoute({
    method: 'PATCH',
    path: '/contest/:contestId/problem/:problemId',
    summary: 'Add (show: true) or remove (show: false) a problem of a contest',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestProblemParams,
    body: ContestProblemToggleSchema,
    responses: { 200: ContestProblemToggleSchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
  putProblemToContest: defineRoute({
    method: 'PUT',
    path: '/contest/:contestId/problems',
    summary: 'Add problems to a contest (ones already in it are skipped; none are removed)',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestParams,
    body: ContestProblemsInputSchema,
    responses: { 200: z.object({}), ...errorResponses(400, 401, 403, 404, 409) },
  }),
  contestSignUp: defineRoute({
    method: 'POST',
    path: '/contest/:contestId/signup',
    summary: 'Sign a user up for a contest (again is harmless); answers the participation',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestParams,
    body: ContestSignupSchema,
    responses: { 200: UserContestRowSchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
  revealScoreboard: defineRoute({
    method: 'POST',
    path: '/contest/:contestId/reveal',
    summary: '[ours] Lift the freeze: everyone sees the live scoreboard again (400 when the contest has no freeze)',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestParams,
    responses: { 200: ContestSchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
  getContestsForAdmin: defineRoute({
    method: 'GET',
    path: '/contest/admin/list',
    summary: 'Contests for the admin table: search by exact id or name (contains, any case); newest first',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    query: skipLimitQuery(CONTEST_PAGE_DEFAULT),
    responses: { 200: ContestListSchema, ...errorResponses(400, 401, 403) },
  }),
  getContestForAdmin: defineRoute({
    method: 'GET',
    path: '/contest/admin/:contestId',
    summary: 'A contest with its problems (full rows), newest problem first',
    tags: ['Contest'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestParams,
    responses: { 200: ContestWithProblemsSchema, ...errorResponses(400, 401, 403, 404) },
  }),
} as const;
