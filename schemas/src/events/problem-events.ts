import { z } from 'zod';
import { defineEvent } from './registry.ts';

const id = z.number().int().positive();

/**
 * Problems: stream `problem-<problemId>`, scope `problem:<problemId>`. The judge needs the limits, the full
 * score and the test data; the API (problem management) owns the rest of the problem's fields.
 */
export const ProblemJudgingConfigured = defineEvent({
  type: 'ProblemJudgingConfigured',
  scopes: ['problem'],
  schema: z
    .object({
      problemId: id,
      /** Full score the submission score is scaled to. */
      score: z.number().int().positive(),
      /** ms */
      timeLimit: z.number().int().positive().max(60_000),
      /** MB */
      memoryLimit: z.number().int().positive().max(4_096),
    })
    .strict(),
});

/** A validated test-data package, stored in the object store under its sha256. */
export const ProblemTestdataUploaded = defineEvent({
  type: 'ProblemTestdataUploaded',
  scopes: ['problem'],
  schema: z
    .object({
      problemId: id,
      testdataHash: z.string().regex(/^[0-9a-f]{64}$/),
      /** problem.case: the number of tests, as a string (OTOG's field). */
      case: z.string().regex(/^\d{1,5}$/),
    })
    .strict(),
});

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** Created (the first event of the stream) or edited: the fields the admin form sets besides limits and files. */
export const ProblemDetailsSet = defineEvent({
  type: 'ProblemDetailsSet',
  scopes: ['problem'],
  schema: z
    .object({
      problemId: id,
      name: z.string().min(1).max(255),
      sname: z.string().max(255).nullable(),
      /** problem.case as the admin typed it (a zip upload sets it to the zip's test count). */
      case: z.string().max(255).nullable(),
    })
    .strict(),
});

/** The PDF statement, stored in the object store under its sha256. */
export const ProblemStatementUploaded = defineEvent({
  type: 'ProblemStatementUploaded',
  scopes: ['problem'],
  schema: z.object({ problemId: id, pdfHash: sha256, size: z.number().int().nonnegative() }).strict(),
});

/** show/hide; recentShowTime becomes the event's time (OTOG sets it on every toggle). */
export const ProblemVisibilityChanged = defineEvent({
  type: 'ProblemVisibilityChanged',
  scopes: ['problem'],
  schema: z.object({ problemId: id, show: z.boolean() }).strict(),
});

export const ProblemExampleSchema = z.object({ input: z.string().max(100_000), output: z.string().max(100_000) }).strict();

export const ProblemExamplesSet = defineEvent({
  type: 'ProblemExamplesSet',
  scopes: ['problem'],
  schema: z.object({ problemId: id, examples: z.array(ProblemExampleSchema).max(100) }).strict(),
});

export const AttachmentMetadataSchema = z
  .object({
    size: z.number().int().nonnegative(),
    name: z.string().max(255),
    lastModified: z.number().int().nonnegative(),
    type: z.string().max(255),
  })
  .strict();

/** The admin announced an attachment (POST upload-attachment): metadata now, the bytes follow. */
export const ProblemAttachmentMetadataSet = defineEvent({
  type: 'ProblemAttachmentMetadataSet',
  scopes: ['problem'],
  schema: z.object({ problemId: id, metadata: AttachmentMetadataSchema }).strict(),
});

/** The attachment's bytes arrived (through the signed upload URL). */
export const ProblemAttachmentUploaded = defineEvent({
  type: 'ProblemAttachmentUploaded',
  scopes: ['problem'],
  schema: z.object({ problemId: id, hash: sha256, size: z.number().int().nonnegative() }).strict(),
});

/** The problem and everything hanging off it (its submissions) leave the read models. */
export const ProblemDeleted = defineEvent({
  type: 'ProblemDeleted',
  scopes: ['problem'],
  schema: z.object({ problemId: id }).strict(),
});

export const problemEvents = [
  ProblemDetailsSet,
  ProblemJudgingConfigured,
  ProblemTestdataUploaded,
  ProblemStatementUploaded,
  ProblemVisibilityChanged,
  ProblemExamplesSet,
  ProblemAttachmentMetadataSet,
  ProblemAttachmentUploaded,
  ProblemDeleted,
] as const;
