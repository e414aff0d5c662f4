/**
 * Results that replace the verdict string when judging cannot produce one (DOMAIN.md "Scoring one
 * submission"). Each has a fixed submission status; the score is 0 and there are no subtask rows.
 */
import { clipText, JUDGING_LIMITS, type JudgedStatus, type SubmissionResult } from '@otog/schemas/common/judging';

export const SPECIAL_RESULTS = {
  /** Compilation failed or timed out. */
  compilationError: 'Compilation Error',
  /** problem.case is missing or not a positive integer, or the package has no test data at all. */
  noTestcase: 'No Testcase',
  /** Some i.in with i ≤ N is missing. */
  inputMissing: 'Input missing',
  /** Some i.sol with i ≤ N is missing (standard checker). */
  solutionMissing: 'Solution missing',
  /** subtask.json is invalid. */
  subtaskError: 'Subtask Error',
  /** A checker crashed, hung or printed something invalid. */
  problemError: 'Problem Error',
  /** The judge itself failed (sandbox, internal error). */
  judgeError: 'Judge Error',
} as const;
export type SpecialResultKind = keyof typeof SPECIAL_RESULTS;
export type SpecialResult = (typeof SPECIAL_RESULTS)[SpecialResultKind];

const specialResultValues = new Set<string>(Object.values(SPECIAL_RESULTS));

export function isSpecialResult(result: string): result is SpecialResult {
  return specialResultValues.has(result);
}

/** `compileError` for a compilation error, `judgeError` for everything else. */
export function specialResultStatus(result: SpecialResult): Extract<JudgedStatus, 'compileError' | 'judgeError'> {
  return result === SPECIAL_RESULTS.compilationError ? 'compileError' : 'judgeError';
}

/** Shown when the caller has no more precise message. */
export const DEFAULT_SPECIAL_ERRMSG: Readonly<Record<SpecialResult, string>> = {
  'Compilation Error': 'Compilation failed.',
  'No Testcase': 'This problem has no test data yet. Please tell an admin.',
  'Input missing': 'Some input files of this problem are missing. Please tell an admin.',
  'Solution missing': 'Some solution files of this problem are missing. Please tell an admin.',
  'Subtask Error': 'The subtask configuration of this problem is invalid. Please tell an admin.',
  'Problem Error': "The problem's checker failed. Please tell an admin.",
  'Judge Error': 'The judge failed while grading this submission. Please tell an admin.',
};

/** The whole SubmissionResult of a special result: score 0, no tests, no subtask rows; a long message is cut. */
export function specialSubmissionResult(result: SpecialResult, errmsg?: string): SubmissionResult {
  return {
    status: specialResultStatus(result),
    result,
    score: 0,
    timeUsed: 0,
    memUsed: 0,
    errmsg: clipText(errmsg ?? DEFAULT_SPECIAL_ERRMSG[result], JUDGING_LIMITS.errmsgLength),
    subtaskResults: [],
  };
}
