/**
 * Public API of @otog/judge: the problem package and subtask rules, the checkers' pure parts and the
 * scoring of one submission (DOMAIN.md "Test data" and "Scoring one submission").
 */
export { parseCaseList, type CaseListResult } from '@otog/schemas/common/case-list';
export {
  defaultSubtaskConfig,
  parseSubtaskConfig,
  SUBTASK_OPTIONS,
  type Subtask,
  type SubtaskConfig,
  type SubtaskConfigResult,
  type SubtaskOption,
} from '@otog/schemas/common/subtask-config';
export {
  CHECKER_FILES,
  parseTestCount,
  SUBTASK_FILE,
  validateProblemPackage,
  type CheckerDescription,
  type CheckerKind,
  type PackageInput,
  type PackageJudging,
  type PackageProblem,
  type PackageProblemCode,
  type PackageReport,
  type PackageTest,
  type ProblemPackage,
} from './problem/package.ts';

export { standardCheck } from './checkers/standard-checker.ts';
export { PARTIAL_TOLERANCE, parsePartialCheckerOutput, parseSingleCharCheckerOutput, type CheckerVerdict } from './checkers/checker-output.ts';

export {
  RUNTIME_ERROR_KINDS,
  RUNTIME_ERROR_MEANINGS,
  VERDICT_STATUSES,
  VERDICTS,
  verdictChar,
  verdictMeaning,
  verdictPercent,
  verdictStatusOfChar,
  type RuntimeErrorKind,
  type VerdictInfo,
  type VerdictStatus,
} from './scoring/verdict.ts';
export {
  JudgedStatusSchema,
  RuntimeErrorKindSchema,
  SubmissionResultSchema,
  SubmissionStatusSchema,
  SubtaskResultSchema,
  TestOutcomeSchema,
  VerdictSchema,
  VerdictStatusSchema,
  type JudgedStatus,
  type SubmissionResult,
  type SubmissionStatus,
  type SubtaskResult,
  type TestOutcome,
  type Verdict,
} from '@otog/schemas/common/judging';
export {
  DEFAULT_SPECIAL_ERRMSG,
  isSpecialResult,
  SPECIAL_RESULTS,
  specialResultStatus,
  specialSubmissionResult,
  type SpecialResult,
  type SpecialResultKind,
} from './scoring/special-results.ts';
export { HALF_TIE_TOLERANCE, roundHalfToEven, scaleScore } from './scoring/rounding.ts';
export { formatResultString, type ResultSegment } from './scoring/result-string.ts';
export { planJudging, type JudgingPlan } from './scoring/plan.ts';
export { MissingTestOutcomeError, scoreSubmission, type ScoreInput } from './scoring/score-submission.ts';
export { walkSubtasks, type WalkedSubtask, type WalkedTest, type WalkOptions } from './scoring/walk.ts';
