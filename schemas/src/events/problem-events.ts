import { z } from 'zod';
import { defineEvent } from './registry.ts';

const id = z.number().int().positive();

/**
 * Problems: stream `problem-<problemId>`, scope `problem:<problemId>`. The judge needs the limits, the full
 * score and the test data; the API (problem management) owns the rest of the problem's fields.
 */
export const ProblemJudgingConfigured = defineEvent({
  type: 'ProblemJudgingConfigured',
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
  schema: z
    .object({
      problemId: id,
      testdataHash: z.string().regex(/^[0-9a-f]{64}$/),
      /** problem.case: the number of tests, as a string (OTOG's field). */
      case: z.string().regex(/^\d{1,5}$/),
    })
    .strict(),
});

export const problemEvents = [ProblemJudgingConfigured, ProblemTestdataUploaded] as const;
