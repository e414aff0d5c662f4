/**
 * The internal API between the API server and judge workers (`/api/internal/judge`). Workers hold no
 * database credentials: they lease tasks, report each test case and complete over HTTP with a per-worker
 * bearer token. Not part of the public OTOG contract.
 */
import { z } from 'zod';
import { LanguageSchema, SubmissionResultSchema, TestOutcomeSchema } from '../common/judging.ts';

export const JUDGE_INTERNAL_PREFIX = '/api/internal/judge';

const id = z.number().int().positive();
const workerName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/, 'letters, digits and _.:- (at most 100)');

/** POST /claim: lease up to `capacity` tasks; waits up to `waitMs` for one when the queue is empty. */
export const ClaimRequestSchema = z
  .object({
    worker: workerName,
    languages: z.array(LanguageSchema).min(1),
    capacity: z.number().int().min(1).max(64),
    waitMs: z.number().int().min(0).max(30_000).default(0),
  })
  .strict();
export type ClaimRequest = z.input<typeof ClaimRequestSchema>;

export const JudgeTaskSchema = z.object({
  submissionId: id,
  /** Which judging of the submission this lease is for; echoed on every report. */
  judging: id,
  /** 1 on the first lease, counting re-leases after a worker died or failed. */
  attempt: id,
  leaseUntil: z.iso.datetime(),
  language: LanguageSchema,
  sourceCode: z.string(),
  fileName: z.string().nullable(),
  /** Contest submissions enforce subtask `require`. */
  contest: z.boolean(),
  problem: z.object({
    id,
    score: z.number().int().positive(),
    timeLimit: z.number().int().positive(),
    memoryLimit: z.number().int().positive(),
    case: z.string(),
    /** sha256 of the test-data zip: GET /testdata/{hash}; workers cache by it. */
    testdataHash: z.string().regex(/^[0-9a-f]{64}$/),
  }),
});
export type JudgeTask = z.infer<typeof JudgeTaskSchema>;

export const ClaimResponseSchema = z.object({ tasks: z.array(JudgeTaskSchema) });

/** Every report names the lease it belongs to; a stale one (lease lost, or rejudged meanwhile) gets 409. */
const leaseRef = { worker: workerName, judging: id, attempt: id };

/** POST /tasks/{submissionId}/heartbeat */
export const HeartbeatRequestSchema = z.object(leaseRef).strict();
export const HeartbeatResponseSchema = z.object({ leaseUntil: z.iso.datetime() });

/** POST /tasks/{submissionId}/testcases: results of executed tests, keyed by global test number. */
export const TestcaseReportSchema = z
  .object({
    ...leaseRef,
    results: z.array(z.object({ testNumber: id, outcome: TestOutcomeSchema })).min(1).max(1_000),
  })
  .strict();

/** POST /tasks/{submissionId}/complete */
export const CompleteRequestSchema = z.object({ ...leaseRef, result: SubmissionResultSchema }).strict();

/** POST /tasks/{submissionId}/fail: this attempt could not judge (sandbox broken, test data unreadable). */
export const FailRequestSchema = z.object({ ...leaseRef, message: z.string().min(1).max(4_000) }).strict();

export const OkResponseSchema = z.object({ ok: z.literal(true) });
export const ErrorResponseSchema = z.object({ message: z.string() });

/** Plain decimal ids within Postgres integer range: no `0x10`, `1e3` or overflow. */
export const TaskParamsSchema = z.object({
  submissionId: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().max(2_147_483_647)),
});
/** GET /testdata/{hash} answers application/zip. */
export const TestdataParamsSchema = z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/) });
