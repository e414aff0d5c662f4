/**
 * The submission routes of spec section 7 (OTOG research §3.8). Lists are cursor-paginated: `offset` is the
 * last id seen, rows have `id < offset`, newest (highest id) first, OTOG's default page of 89.
 *
 * OTOG stores results in three tables (submissionResult 1:1, subtaskResult, verdict) with serial ids. Ours
 * are one read-model row, so the ids are derived, deterministically and stable across rejudges:
 * - submissionResult.id = the submission id;
 * - subtaskResults[].id = submissionId × 1 000 000 + subtaskIndex;
 * - verdicts[].id = submissionId × 1 000 000 + k, k = the verdict's 1-based position in the submission
 *   (subtask order, then testcase order).
 * All stay below 2^53 for every int4 submission id. Different tables, so the two may coincide.
 */
import { z } from 'zod';
import { LanguageSchema, RuntimeErrorKindSchema, SubmissionStatusSchema, VerdictStatusSchema } from '../common/judging.ts';
import { cursorQuery, DateTimeSchema, defineRoute, errorResponses, IdSchema, MessageSchema, UserSummarySchema } from './contract.ts';

/** OTOG's page size for submission lists. */
export const SUBMISSION_PAGE_DEFAULT = 89;
export const SUBMISSION_PAGE_MAX = 1_000;
/** The per-problem list of the problem page (OTOG: 10). */
export const PROBLEM_SUBMISSION_PAGE_DEFAULT = 10;

/** The id multiplier of derived subtask and verdict ids (see above). */
export const RESULT_ID_STRIDE = 1_000_000;

const int = z.number().int();

export const SubmissionProblemSchema = z.object({
  id: int,
  name: z.string(),
  /** ms */
  timeLimit: int,
  /** MB */
  memoryLimit: int,
  /** The full score. */
  score: int,
});

export const SubmissionResultSchema = z.object({
  /** = the submission id (the result is 1:1 with its submission). */
  id: int,
  score: int,
  /** ms, the maximum over tests */
  timeUsed: int,
  /** KB, −1 = unknown */
  memUsed: int,
  /** The verdict string (`PPP-T`, `[PP][PS]`) or a special result (`Compilation Error`, ...). */
  result: z.string(),
  errmsg: z.string().nullable(),
});

/** A list row: the submission, its problem and user, and its result (null while waiting or grading). */
export const SubmissionSchema = z.object({
  id: int,
  status: SubmissionStatusSchema,
  contestId: int.nullable(),
  language: LanguageSchema,
  creationDate: DateTimeSchema,
  public: z.boolean(),
  userId: int,
  problem: SubmissionProblemSchema,
  user: UserSummarySchema,
  submissionResult: SubmissionResultSchema.nullable(),
});
export type Submission = z.infer<typeof SubmissionSchema>;

/**
 * POST /submission/problem/:problemId's answer: the list row plus the columns of the new submission row
 * that OTOG's create returns and its web client checks (problemId, sourceCode, updateDate).
 */
export const SubmissionCreatedSchema = SubmissionSchema.extend({
  problemId: int,
  sourceCode: z.string(),
  updateDate: DateTimeSchema,
});
export type SubmissionCreated = z.infer<typeof SubmissionCreatedSchema>;

export const VerdictRowSchema = z.object({
  id: int,
  subtaskId: int,
  status: VerdictStatusSchema,
  /** 0..1 */
  percent: z.number(),
  timeUsed: int,
  memUsed: int,
  /** 1-based within its subtask. */
  testcaseIndex: int,
  /** [ours] On RUNTIME_ERROR only: a crash or the memory limit. */
  runtimeErrorKind: RuntimeErrorKindSchema.optional(),
});

export const SubtaskResultRowSchema = z.object({
  id: int,
  submissionResultId: int,
  /** Raw points (not scaled to the problem's score). */
  score: z.number(),
  fullScore: z.number(),
  /** 1-based, in subtask-number order. */
  subtaskIndex: int,
  /** Ordered by testcaseIndex. */
  verdicts: z.array(VerdictRowSchema),
});

/** A submission with its source code and the full result (subtasks ordered by index). */
export const SubmissionDetailSchema = SubmissionSchema.extend({
  sourceCode: z.string(),
  submissionResult: SubmissionResultSchema.extend({ subtaskResults: z.array(SubtaskResultRowSchema) }).nullable(),
});
export type SubmissionDetail = z.infer<typeof SubmissionDetailSchema>;

const LatestSchema = z.object({ submission: SubmissionDetailSchema.nullable() });
const search = z.string().max(200, 'must be at most 200 characters');
const page = cursorQuery(SUBMISSION_PAGE_DEFAULT, SUBMISSION_PAGE_MAX);
const SubmissionParams = z.object({ submissionId: IdSchema });
const ProblemParams = z.object({ problemId: IdSchema });
const ContestParams = z.object({ contestId: IdSchema });

export const submissionContract = {
  getSubmissions: defineRoute({
    method: 'GET',
    path: '/submission',
    summary:
      'Submissions, newest first. Your own (userId = you) include contest ones; admins see every non-contest one (optionally of userId); ' +
      'everyone else sees non-contest submissions of non-admin users. problemSearch: problem name contains (case-insensitive)',
    tags: ['Submission'],
    access: { role: 'any', offline: 'admin' },
    query: page.extend({ userId: IdSchema.optional(), problemSearch: search.optional() }),
    responses: { 200: z.array(SubmissionSchema), ...errorResponses(400, 401, 403) },
  }),
  getContestSubmissionsForAdmin: defineRoute({
    method: 'GET',
    path: '/submission/admin/contest/:contestId',
    summary: 'Every submission of a contest, newest first; problemSearch (problem name) and userSearch (show name) contain, case-insensitive',
    tags: ['Submission'],
    access: { role: 'admin', offline: 'admin' },
    params: ContestParams,
    query: page.extend({ problemSearch: search.optional(), userSearch: search.optional() }),
    responses: { 200: z.array(SubmissionSchema), ...errorResponses(400, 401, 403, 404) },
  }),
  getContestSubmissions: defineRoute({
    method: 'GET',
    path: '/submission/contest/:contestId',
    summary: 'Submissions of a contest, newest first, optionally of one user and one problem',
    tags: ['Submission'],
    access: { role: 'user', offline: 'authenticated' },
    params: ContestParams,
    query: page.extend({ userId: IdSchema.optional(), problemId: IdSchema.optional() }),
    responses: { 200: z.array(SubmissionSchema), ...errorResponses(400, 401, 403, 404) },
  }),
  getLatestSubmissionByProblemId: defineRoute({
    method: 'GET',
    path: '/submission/problem/:problemId/latest',
    summary: 'Your newest submission of a problem, with its source code and result',
    tags: ['Submission'],
    access: { role: 'user', offline: 'authenticated' },
    params: ProblemParams,
    responses: { 200: LatestSchema, ...errorResponses(400, 401, 403) },
  }),
  uploadFile: defineRoute({
    method: 'POST',
    path: '/submission/problem/:problemId',
    summary:
      'Submit a source file (multipart: the file or the code as text in `sourceCode`, and `language`: c, cpp or python); ' +
      'answers the new submission, waiting to be judged. [ours] With an Idempotency-Key header (1-255 visible ASCII ' +
      'characters), a retry with the same key answers the submission the first request made instead of making another',
    tags: ['Submission'],
    access: { role: 'user', offline: 'authenticated' },
    params: ProblemParams,
    query: z.object({ contestId: IdSchema.optional() }),
    multipart: {
      fields: z.object({ language: z.string().max(20), sourceCode: z.string().optional() }),
      files: { sourceCode: 'The source file: .c, .cpp, .cc or .py (also the editor’s .python), UTF-8, at most 10 KiB by default' },
    },
    responses: { 200: SubmissionCreatedSchema, ...errorResponses(400, 401, 403, 404, 429) },
  }),
  getLatestSubmissionByUserId: defineRoute({
    method: 'GET',
    path: '/submission/latest',
    summary: 'Your newest submission, with its source code and result',
    tags: ['Submission'],
    access: { role: 'user', offline: 'admin' },
    responses: { 200: LatestSchema, ...errorResponses(401, 403) },
  }),
  getSubmissionsByUserId: defineRoute({
    method: 'GET',
    path: '/submission/user/:userId',
    summary: 'A user’s submissions, newest first (contest ones only for admins)',
    tags: ['Submission'],
    access: { role: 'any', offline: 'admin' },
    params: z.object({ userId: IdSchema }),
    query: page,
    responses: { 200: z.array(SubmissionSchema), ...errorResponses(400, 401, 403) },
  }),
  getSubmissionsByUserIdAndProblemId: defineRoute({
    method: 'GET',
    path: '/submission/user/:userId/problem/:problemId',
    summary: 'A user’s submissions of one problem, newest first (another user’s contest ones only for admins)',
    tags: ['Submission'],
    access: { role: 'user', offline: 'admin' },
    params: z.object({ userId: IdSchema, problemId: IdSchema }),
    query: cursorQuery(PROBLEM_SUBMISSION_PAGE_DEFAULT, SUBMISSION_PAGE_MAX),
    responses: { 200: z.array(SubmissionSchema), ...errorResponses(400, 401, 403) },
  }),
  getSubmission: defineRoute({
    method: 'GET',
    path: '/submission/:submissionId',
    summary: 'One submission without its source code (another user’s contest submission only for admins)',
    tags: ['Submission'],
    access: { role: 'any', offline: 'authenticated' },
    params: SubmissionParams,
    responses: { 200: SubmissionSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  getSubmissionWithSourceCode: defineRoute({
    method: 'GET',
    path: '/submission/:submissionId/code',
    summary: 'One submission with its source code and full result: shared ones, your own, or any for admins',
    tags: ['Submission'],
    access: { role: 'any', offline: 'authenticated' },
    params: SubmissionParams,
    responses: { 200: SubmissionDetailSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  shareSubmission: defineRoute({
    method: 'PATCH',
    path: '/submission/:submissionId/share',
    summary: 'Share (show: true) or unshare your submission’s source code (admins: any submission)',
    tags: ['Submission'],
    access: { role: 'user', offline: 'admin' },
    params: SubmissionParams,
    body: z.object({ show: z.boolean() }),
    responses: { 200: z.object({ public: z.boolean() }), ...errorResponses(400, 401, 403, 404) },
  }),
  rejudgeSubmission: defineRoute({
    method: 'PATCH',
    path: '/submission/:submissionId/rejudge',
    summary: 'Judge a submission again: its result is cleared and it waits for the judge',
    tags: ['Submission'],
    access: { role: 'admin', offline: 'admin' },
    params: SubmissionParams,
    responses: { 200: SubmissionSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  rejudgeProblem: defineRoute({
    method: 'PATCH',
    path: '/submission/problem/:problemId/rejudge',
    summary: 'Judge every submission of a problem again (contest ones included)',
    tags: ['Submission'],
    access: { role: 'admin', offline: 'admin' },
    params: ProblemParams,
    responses: { 200: MessageSchema, ...errorResponses(400, 401, 403, 404) },
  }),
} as const;
