import { z } from 'zod';
import { JUDGING_LIMITS, JudgedStatusSchema, LanguageSchema, RESULT_MAX_LENGTH, SubtaskResultSchema, TestOutcomeSchema } from '../common/judging.ts';
import { defineEvent } from './registry.ts';

const id = z.number().int().positive();

/**
 * Judging is keyed by the stream position of the event that asked for it (SubmissionCreated is 1, each
 * RejudgeRequested its own position): deterministic, so a replay and every event id derived from it agree.
 * Stream: `submission-<submissionId>`; scope: `contest:<id>` for contest submissions, else `user:<userId>`.
 */
export const judgingNumber = id;

export const SubmissionCreated = defineEvent({
  type: 'SubmissionCreated',
  scopes: ['user', 'contest'],
  schema: z
    .object({
      submissionId: id,
      userId: id,
      problemId: id,
      contestId: id.nullable(),
      language: LanguageSchema,
      /** The uploaded file's text (the upload limit is enforced by the API before this event exists). */
      sourceCode: z.string().max(1_048_576),
      fileName: z.string().max(255).nullable(),
    })
    .strict(),
});

export const RejudgeRequested = defineEvent({
  type: 'RejudgeRequested',
  scopes: ['user', 'contest'],
  schema: z.object({ submissionId: id, requestedBy: id.nullable() }).strict(),
});

/** One executed test of one judging, appended as the worker reports it (progress shown live). */
export const TestcaseJudged = defineEvent({
  type: 'TestcaseJudged',
  scopes: ['user', 'contest'],
  schema: z
    .object({
      submissionId: id,
      judging: judgingNumber,
      /** The global test number: `<n>.in`. */
      testNumber: id,
      outcome: TestOutcomeSchema,
    })
    .strict(),
});

/** The final result of one judging; a later judging of the same submission replaces it. */
export const SubmissionJudged = defineEvent({
  type: 'SubmissionJudged',
  scopes: ['user', 'contest'],
  schema: z
    .object({
      submissionId: id,
      judging: judgingNumber,
      status: JudgedStatusSchema,
      result: z.string().max(RESULT_MAX_LENGTH),
      score: z.number().int().nonnegative(),
      timeUsed: z.number().int().nonnegative(),
      memUsed: z.number().int().min(-1),
      errmsg: z.string().max(JUDGING_LIMITS.errmsgLength).nullable(),
      subtaskResults: z.array(SubtaskResultSchema),
      /** Which worker judged it, and how many leases it took (admins' diagnostics). */
      judgedBy: z.string().max(100).nullable(),
      attempts: z.number().int().positive(),
    })
    .strict(),
});

/** The owner (or an admin) shares or unshares the source code. */
export const SubmissionShared = defineEvent({
  type: 'SubmissionShared',
  scopes: ['user', 'contest'],
  schema: z.object({ submissionId: id, public: z.boolean() }).strict(),
});

export const judgingEvents = [SubmissionCreated, RejudgeRequested, TestcaseJudged, SubmissionJudged, SubmissionShared] as const;
