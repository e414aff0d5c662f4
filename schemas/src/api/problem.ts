/**
 * The problem routes of spec section 7 (OTOG research §3.6). Units follow OTOG: `timeLimit` in
 * milliseconds (the admin form takes seconds), `memoryLimit` in MB, `case` the number of tests as a string.
 */
import { z } from 'zod';
import { SubmissionStatusSchema } from '../common/judging.ts';
import { DateTimeSchema, defineRoute, errorResponses, IdSchema, MessageSchema, RoleSchema, skipLimitQuery } from './contract.ts';

export const PROBLEM_SCORE_MAX = 10_000;
/** Seconds, as the admin form takes them. */
export const PROBLEM_TIME_LIMIT_MIN_SECONDS = 0.001;
export const PROBLEM_TIME_LIMIT_MAX_SECONDS = 60;
export const PROBLEM_MEMORY_LIMIT_MAX_MB = 4_096;
export const PROBLEM_EXAMPLES_MAX = 100;
export const PROBLEM_EXAMPLE_TEXT_MAX = 100_000;

export const ProblemExampleSchema = z.object({
  input: z.string().max(PROBLEM_EXAMPLE_TEXT_MAX, `must be at most ${PROBLEM_EXAMPLE_TEXT_MAX} characters`),
  output: z.string().max(PROBLEM_EXAMPLE_TEXT_MAX, `must be at most ${PROBLEM_EXAMPLE_TEXT_MAX} characters`),
});
export type ProblemExample = z.infer<typeof ProblemExampleSchema>;

/** What the browser knows of the attachment file (File.size/name/lastModified/type). */
export const AttachmentMetadataSchema = z.object({
  size: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  name: z.string().max(255),
  lastModified: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  type: z.string().max(255),
});
export type AttachmentMetadata = z.infer<typeof AttachmentMetadataSchema>;

/** The problem row as OTOG serves it. */
export const ProblemSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  sname: z.string().nullable(),
  score: z.number().int(),
  /** ms */
  timeLimit: z.number().int(),
  /** MB */
  memoryLimit: z.number().int(),
  show: z.boolean(),
  recentShowTime: DateTimeSchema.nullable(),
  case: z.string().nullable(),
  rating: z.number().int().nullable(),
  examples: z.array(ProblemExampleSchema).nullable(),
  attachmentMetadata: AttachmentMetadataSchema.nullable(),
});
export type Problem = z.infer<typeof ProblemSchema>;

export const SubmissionSummarySchema = z.object({
  id: z.number().int(),
  status: SubmissionStatusSchema,
  userId: z.number().int(),
  public: z.boolean(),
});
export type SubmissionSummary = z.infer<typeof SubmissionSummarySchema>;

/** A row of the problem table (GET /problem). */
export const ProblemTableRowSchema = ProblemSchema.omit({ examples: true, attachmentMetadata: true }).extend({
  /** Distinct role-`user` users with at least one accepted submission. */
  passedCount: z.number().int(),
  /** The caller's latest submission on the problem; null when anonymous or none. */
  latestSubmission: SubmissionSummarySchema.nullable(),
});
export type ProblemTableRow = z.infer<typeof ProblemTableRowSchema>;

export const ProblemSearchItemSchema = ProblemSchema.pick({ id: true, name: true, sname: true });

export const AdminProblemSchema = ProblemSchema.pick({
  id: true,
  name: true,
  sname: true,
  show: true,
  case: true,
  memoryLimit: true,
  timeLimit: true,
  recentShowTime: true,
  score: true,
  attachmentMetadata: true,
});

export const PassedUserSchema = z.object({
  id: z.number().int(),
  role: RoleSchema,
  username: z.string(),
  showName: z.string(),
  rating: z.number().int().nullable(),
  /** Their latest accepted submission. */
  passedSubmission: SubmissionSummarySchema,
});
export type PassedUser = z.infer<typeof PassedUserSchema>;

const required = z.string({ error: 'Required' }).trim().min(1, 'Required');

/** A decimal number as a form sends it ("1", "0.5"). */
function formNumber(options: { integer: boolean; min: number; max: number; unit?: string }) {
  const unit = options.unit ? ` ${options.unit}` : '';
  return required
    .regex(options.integer ? /^\+?\d+$/ : /^\+?(\d+(\.\d*)?|\.\d+)$/, options.integer ? 'Expected a whole number' : 'Expected a number')
    .transform(Number)
    .pipe(
      z
        .number()
        .min(options.min, `must be at least ${options.min}${unit}`)
        .max(options.max, `must be at most ${options.max}${unit}`),
    );
}

/**
 * The admin problem form (multipart text fields; OTOG's ProblemFormSchema): `timeLimit` in seconds
 * (decimals allowed) becomes milliseconds; `case` is optional (a test-data zip sets it to its test count).
 */
export const ProblemFormSchema = z.object({
  name: required.max(255, 'must be at most 255 characters'),
  sname: required.max(255, 'must be at most 255 characters'),
  score: formNumber({ integer: true, min: 1, max: PROBLEM_SCORE_MAX }),
  timeLimit: formNumber({ integer: false, min: PROBLEM_TIME_LIMIT_MIN_SECONDS, max: PROBLEM_TIME_LIMIT_MAX_SECONDS, unit: 'seconds' }).transform(
    (seconds) => Math.max(1, Math.round(seconds * 1000)),
  ),
  memoryLimit: formNumber({ integer: true, min: 1, max: PROBLEM_MEMORY_LIMIT_MAX_MB, unit: 'MB' }),
  case: z
    .string()
    .trim()
    .max(255, 'must be at most 255 characters')
    .optional()
    .transform((value) => (value ? value : null)),
});
export type ProblemForm = z.output<typeof ProblemFormSchema>;

const ProblemParams = z.object({ problemId: IdSchema });

/** The credentials of a signed file URL (upload or download of an attachment). */
const SignedUrlQuery = z.object({
  expires: z.coerce.number({ error: 'must be a number' }).int().positive().max(Number.MAX_SAFE_INTEGER),
  signature: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'is malformed'),
});

const problemFiles = {
  pdf: 'The statement (application/pdf)',
  zip: 'The test data: 1.in, 1.sol, ... N.in, N.sol (and optionally subtask.json, a checker, libraries) at the zip root',
} as const;

export const problemContract = {
  getProblems: defineRoute({
    method: 'GET',
    path: '/problem',
    summary:
      'The problem table, newest first: shown problems (admins: all) with passed counts and the caller\'s latest submission on each',
    tags: ['Problem'],
    access: { role: 'any', offline: 'admin' },
    responses: { 200: z.array(ProblemTableRowSchema), ...errorResponses(401, 403) },
  }),
  getProblem: defineRoute({
    method: 'GET',
    path: '/problem/:problemId',
    summary: 'One problem with its examples and attachment metadata; a hidden one only for admins',
    tags: ['Problem'],
    access: { role: 'any', offline: 'admin' },
    params: ProblemParams,
    responses: { 200: ProblemSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  searchProblems: defineRoute({
    method: 'GET',
    path: '/problem/admin/search',
    summary: 'Problems by exact id or name/sname (contains, any case), newest first',
    tags: ['Problem'],
    access: { role: 'admin', offline: 'admin' },
    query: skipLimitQuery(10, 100),
    responses: { 200: z.array(ProblemSearchItemSchema), ...errorResponses(400, 401, 403) },
  }),
  adminList: defineRoute({
    method: 'GET',
    path: '/problem/admin/list',
    summary: 'Problems for the admin table: search by exact id or name/sname (contains, any case), newest first',
    tags: ['Problem'],
    access: { role: 'admin', offline: 'admin' },
    query: skipLimitQuery(10),
    responses: { 200: z.object({ total: z.number().int(), data: z.array(AdminProblemSchema) }), ...errorResponses(400, 401, 403) },
  }),
  passedUsers: defineRoute({
    method: 'GET',
    path: '/problem/:problemId/user',
    summary: 'Users (role user) who passed the problem, newest user first, with their latest accepted submission',
    tags: ['Problem'],
    access: { role: 'any', offline: 'admin' },
    params: ProblemParams,
    responses: { 200: z.array(PassedUserSchema), ...errorResponses(400, 401, 403, 404) },
  }),
  getProblemDoc: defineRoute({
    method: 'GET',
    path: '/problem/doc/:problemId',
    summary: 'The PDF statement (streamed, inline); a hidden problem\'s only for admins (the web embeds it with the accessToken cookie)',
    tags: ['Problem'],
    // Embedded by the browser with a possibly expired cookie: that must not break a shown problem's PDF.
    access: { role: 'any', offline: 'public', ignoresInvalidToken: true },
    params: ProblemParams,
    responses: { 200: z.string().describe('application/pdf bytes'), ...errorResponses(400, 403, 404) },
  }),
  showProblem: defineRoute({
    method: 'PATCH',
    path: '/problem/:problemId',
    summary: 'Show or hide a problem (recentShowTime becomes now)',
    tags: ['Problem'],
    access: { role: 'admin', offline: 'admin' },
    params: ProblemParams,
    body: z.object({ show: z.boolean() }),
    responses: { 200: ProblemSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  createProblem: defineRoute({
    method: 'POST',
    path: '/problem',
    summary:
      'Create a hidden problem from the admin form (timeLimit in seconds); the test-data zip is validated now and sets case to its test count',
    tags: ['Problem'],
    access: { role: 'admin', offline: 'admin' },
    multipart: { fields: ProblemFormSchema, files: problemFiles },
    responses: { 201: ProblemSchema, ...errorResponses(400, 401, 403, 413) },
  }),
  updateProblem: defineRoute({
    method: 'PUT',
    path: '/problem/:problemId',
    summary: 'Edit a problem with the admin form; the PDF and the test data are replaced only when sent',
    tags: ['Problem'],
    access: { role: 'admin', offline: 'admin' },
    params: ProblemParams,
    multipart: { fields: ProblemFormSchema, files: problemFiles },
    responses: { 200: ProblemSchema, ...errorResponses(400, 401, 403, 404, 409, 413) },
  }),
  deleteProblem: defineRoute({
    method: 'DELETE',
    path: '/problem/:problemId',
    summary: 'Delete a problem (and its submissions from the read models); answers the deleted problem',
    tags: ['Problem'],
    access: { role: 'admin', offline: 'admin' },
    params: ProblemParams,
    responses: { 200: ProblemSchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
  setExamples: defineRoute({
    method: 'PUT',
    path: '/problem/:problemId/examples',
    summary: 'Replace the examples shown under the statement',
    tags: ['Problem'],
    access: { role: 'admin', offline: 'admin' },
    params: ProblemParams,
    body: z.array(ProblemExampleSchema).max(PROBLEM_EXAMPLES_MAX, `at most ${PROBLEM_EXAMPLES_MAX} examples`),
    responses: { 200: z.object({ examples: z.array(ProblemExampleSchema) }), ...errorResponses(400, 401, 403, 404, 409) },
  }),
  uploadAttachment: defineRoute({
    method: 'POST',
    path: '/problem/:problemId/upload-attachment',
    summary: 'Record the attachment\'s metadata and answer a signed URL (1 hour) to PUT its bytes to',
    tags: ['Problem'],
    access: { role: 'admin', offline: 'admin' },
    params: ProblemParams,
    body: z.object({ metadata: AttachmentMetadataSchema }),
    responses: { 200: z.object({ url: z.string() }), ...errorResponses(400, 401, 403, 404, 409) },
  }),
  putAttachment: defineRoute({
    method: 'PUT',
    path: '/problem/:problemId/attachment',
    summary: 'The signed upload URL: the request body is the attachment\'s bytes (the signature is the credential)',
    tags: ['Problem'],
    access: { role: 'any', offline: 'public', ignoresInvalidToken: true },
    params: ProblemParams,
    query: SignedUrlQuery,
    responses: { 200: MessageSchema, ...errorResponses(400, 403, 404, 409, 413) },
  }),
  downloadAttachment: defineRoute({
    method: 'POST',
    path: '/problem/:problemId/download-attachment',
    summary: 'A signed URL (1 hour) to download the attachment, and its metadata; a hidden problem\'s only for admins',
    tags: ['Problem'],
    access: { role: 'any', offline: 'admin' },
    params: ProblemParams,
    // OTOG's client posts no body at all (Fastify hands the validator null for it).
    body: z.object({}).nullish(),
    responses: { 200: z.object({ url: z.string(), metadata: AttachmentMetadataSchema }), ...errorResponses(400, 401, 403, 404) },
  }),
  getAttachment: defineRoute({
    method: 'GET',
    path: '/problem/:problemId/attachment',
    summary: 'The signed download URL: the attachment\'s bytes, as a download named after the uploaded file',
    tags: ['Problem'],
    access: { role: 'any', offline: 'public', ignoresInvalidToken: true },
    params: ProblemParams,
    // [ours] shown=1: the link holds only while the problem is shown (signed with the rest).
    query: SignedUrlQuery.extend({ shown: z.literal('1').optional() }),
    responses: { 200: z.string().describe('the attachment bytes'), ...errorResponses(400, 403, 404) },
  }),
} as const;
