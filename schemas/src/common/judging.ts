/**
 * What judging produces, shared by the judge, the API and the events. Named as in the spec's
 * SubmissionResult / SubtaskResult / Verdict (OTOG nests them as `submissionResult.subtaskResults[].verdicts[]`).
 * Existing OTOG clients parse these strictly: add optional fields only, never rename or retype.
 */
import { z } from 'zod';

/**
 * Judging's size limits, in one place: the test-data upload refuses what the judge could not report, and
 * the judge, the queue and the events accept whatever a valid problem can produce.
 */
export const JUDGING_LIMITS = {
  /** Tests of one problem, numbered 1..maxTests. */
  maxTests: 99_999,
  /** Longest compiler message or judge explanation kept; a longer one is cut with a note, never refused. */
  errmsgLength: 65_536,
} as const;
/** Longest verdict string: a character per test and, at most, a subtask's two brackets per test. */
export const RESULT_MAX_LENGTH = 3 * JUDGING_LIMITS.maxTests;

/** `text` cut to at most `max` characters, ending with a note of how much was cut. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = `\n... (${text.length - max} more characters cut)`;
  return text.slice(0, Math.max(0, max - note.length)) + note;
}

/** Languages a submission may be written in (DOMAIN.md "Languages"); more are added by data. */
export const LANGUAGES = ['c', 'cpp', 'python'] as const;
export const LanguageSchema = z.enum(LANGUAGES);
export type Language = z.infer<typeof LanguageSchema>;

/** The verdict status names and their order are part of the OTOG wire format: never rename them. */
export const VERDICT_STATUSES = [
  'ACCEPTED',
  'PARTIAL',
  'REJECTED',
  'TIME_LIMIT_EXCEEDED',
  'RUNTIME_ERROR',
  'SKIPPED',
  'PROBLEM_ERROR',
  'INTERNAL_ERROR',
] as const;
export type VerdictStatus = (typeof VERDICT_STATUSES)[number];

/**
 * `X` covers both a crash and a memory-limit overrun (OTOG has no MLE verdict). Which of the two it was
 * travels in this extra per-verdict field **[ours]**, so the result string stays OTOG's.
 */
export const RUNTIME_ERROR_KINDS = ['RUNTIME_ERROR', 'MEMORY_LIMIT_EXCEEDED'] as const;
export type RuntimeErrorKind = (typeof RUNTIME_ERROR_KINDS)[number];

export const SubmissionStatusSchema = z.enum(['waiting', 'grading', 'accept', 'reject', 'compileError', 'judgeError']);
export type SubmissionStatus = z.infer<typeof SubmissionStatusSchema>;

/** The statuses a finished judging can end with. */
export const JudgedStatusSchema = z.enum(['accept', 'reject', 'compileError', 'judgeError']);
export type JudgedStatus = z.infer<typeof JudgedStatusSchema>;

export const VerdictStatusSchema = z.enum(VERDICT_STATUSES);
export const RuntimeErrorKindSchema = z.enum(RUNTIME_ERROR_KINDS);

const milliseconds = z.number().int().nonnegative();
/** KB; −1 = unknown (legacy rows, or a sandbox that cannot measure). */
const kilobytes = z.number().int().min(-1);

export const VerdictSchema = z.object({
  /** 1-based within its subtask (not the global test number). */
  testcaseIndex: z.number().int().positive(),
  status: VerdictStatusSchema,
  /** 0..1: 1 for P, the checker's fraction for %, else 0. */
  percent: z.number().min(0).max(1),
  timeUsed: milliseconds,
  memUsed: kilobytes,
  /** [ours] Only on RUNTIME_ERROR: whether the program crashed or exceeded the memory limit. */
  runtimeErrorKind: RuntimeErrorKindSchema.optional(),
});
export type Verdict = z.infer<typeof VerdictSchema>;

export const SubtaskResultSchema = z.object({
  /** 1-based position in subtask-number order (not the subtask number itself). */
  subtaskIndex: z.number().int().positive(),
  /** Raw points (not scaled to problem.score); fractional for partial/sum subtasks. */
  score: z.number().nonnegative(),
  fullScore: z.number().nonnegative(),
  verdicts: z.array(VerdictSchema),
});
export type SubtaskResult = z.infer<typeof SubtaskResultSchema>;

export const SubmissionResultSchema = z.object({
  status: JudgedStatusSchema,
  /** The verdict string (`PPP-T`, `[PP][PS](P%)`) or a special result (`Compilation Error`, ...). */
  result: z.string().max(RESULT_MAX_LENGTH),
  /** Scaled to problem.score and rounded half to even. */
  score: z.number().int().nonnegative(),
  /** ms, the maximum over tests. */
  timeUsed: milliseconds,
  /** KB, the maximum over tests. */
  memUsed: kilobytes,
  /** Compiler output or an explanation of a judge/problem error; null otherwise. */
  errmsg: z.string().max(JUDGING_LIMITS.errmsgLength).nullable(),
  /** In subtask-number order; empty for special results. */
  subtaskResults: z.array(SubtaskResultSchema),
});
export type SubmissionResult = z.infer<typeof SubmissionResultSchema>;

/**
 * What the worker reports for one executed test (keyed by its global test number 1..N). SKIPPED is never
 * reported: the scorer decides what is skipped.
 */
export const TestOutcomeSchema = z
  .object({
    status: VerdictStatusSchema.exclude(['SKIPPED']),
    /** The checker's fraction; required for PARTIAL, ignored otherwise. */
    percent: z.number().min(0).max(1).optional(),
    timeUsed: milliseconds,
    memUsed: kilobytes,
    runtimeErrorKind: RuntimeErrorKindSchema.optional(),
    /** For PROBLEM_ERROR / INTERNAL_ERROR: what went wrong (becomes the submission's errmsg). */
    detail: z.string().max(4_000).optional(),
  })
  .refine((outcome) => outcome.status !== 'PARTIAL' || outcome.percent !== undefined, {
    message: 'a PARTIAL outcome needs the checker percent',
    path: ['percent'],
  })
  .refine((outcome) => outcome.runtimeErrorKind === undefined || outcome.status === 'RUNTIME_ERROR', {
    message: 'runtimeErrorKind belongs to RUNTIME_ERROR outcomes only',
    path: ['runtimeErrorKind'],
  });
export type TestOutcome = z.infer<typeof TestOutcomeSchema>;
