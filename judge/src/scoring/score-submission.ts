/**
 * Scores one judged submission from its test outcomes (DOMAIN.md "Scoring one submission"): subtask raw
 * scores, the scaled and rounded submission score, the result string, the status, and the time and
 * memory maxima. Pure: the worker runs tests as `planJudging` says, then calls this once.
 */
import type { SubtaskConfig, Subtask } from '@otog/schemas/common/subtask-config';
import type { SubmissionResult, SubtaskResult, TestOutcome, Verdict } from '@otog/schemas/common/judging';
import { formatResultString } from './result-string.ts';
import { scaleScore } from './rounding.ts';
import { SPECIAL_RESULTS, specialSubmissionResult } from './special-results.ts';
import { verdictPercent } from './verdict.ts';
import { walkSubtasks, type WalkedSubtask } from './walk.ts';

export interface ScoreInput {
  readonly config: SubtaskConfig;
  /** problem.score: the full score the result is scaled to. */
  readonly problemScore: number;
  /** Contest submissions enforce `require`. */
  readonly contest: boolean;
  /** Outcomes by global test number; must hold every test the plan asked for. */
  readonly outcomes: ReadonlyMap<number, TestOutcome>;
}

/** The worker scored before running every test the plan asked for: a bug in the caller. */
export class MissingTestOutcomeError extends Error {
  readonly test: number;
  constructor(test: number) {
    super(`no outcome for test ${test}, which the rules say must run`);
    this.name = 'MissingTestOutcomeError';
    this.test = test;
  }
}

export function scoreSubmission(input: ScoreInput): SubmissionResult {
  const { config, problemScore, contest, outcomes } = input;
  if (!Number.isFinite(problemScore) || problemScore < 0) throw new RangeError(`problem score must be a non-negative number, got ${problemScore}`);

  // A checker or judge failure on any test aborts the whole submission (the first one met, in run order).
  let abort: { result: 'Problem Error' | 'Judge Error'; detail: string | undefined } | undefined;
  const walked = walkSubtasks(config, { contest }, (test) => {
    const outcome = outcomes.get(test);
    // After an abort the plan runs nothing more: later tests have no outcome and need none.
    if (!outcome && abort) return { status: 'INTERNAL_ERROR', timeUsed: 0, memUsed: 0 };
    if (!outcome) throw new MissingTestOutcomeError(test);
    if (!abort && outcome.status === 'PROBLEM_ERROR') abort = { result: SPECIAL_RESULTS.problemError, detail: outcome.detail };
    if (!abort && outcome.status === 'INTERNAL_ERROR') abort = { result: SPECIAL_RESULTS.judgeError, detail: outcome.detail };
    return outcome;
  });
  if (abort) return specialSubmissionResult(abort.result, abort.detail);

  const subtaskResults = walked.map((entry, position) => subtaskResult(config.subtasks[position] as Subtask, entry));
  const rawTotal = subtaskResults.reduce((sum, subtask) => sum + subtask.score, 0);
  const verdicts = subtaskResults.flatMap((subtask) => subtask.verdicts);
  const ran = verdicts.filter((verdict) => verdict.status !== 'SKIPPED');

  return {
    status: verdicts.every((verdict) => verdict.status === 'ACCEPTED') ? 'accept' : 'reject',
    result: formatResultString(
      subtaskResults.map((subtask, position) => ({
        group: (config.subtasks[position] as Subtask).group,
        statuses: subtask.verdicts.map((verdict) => verdict.status),
      })),
    ),
    score: scaleScore(rawTotal, config.fullScore, problemScore),
    timeUsed: ran.reduce((max, verdict) => Math.max(max, verdict.timeUsed), 0),
    memUsed: ran.length === 0 ? 0 : ran.reduce((max, verdict) => Math.max(max, verdict.memUsed), -1),
    errmsg: null,
    subtaskResults,
  };
}

function subtaskResult(subtask: Subtask, walked: WalkedSubtask): SubtaskResult {
  const verdicts = walked.tests.map((slot, index): Verdict => {
    if (slot.outcome === 'skipped') return { testcaseIndex: index + 1, status: 'SKIPPED', percent: 0, timeUsed: 0, memUsed: 0 };
    const { status, percent, timeUsed, memUsed, runtimeErrorKind } = slot.outcome;
    const verdict: Verdict = { testcaseIndex: index + 1, status, percent: verdictPercent(status, percent), timeUsed, memUsed };
    if (status === 'RUNTIME_ERROR') verdict.runtimeErrorKind = runtimeErrorKind ?? 'RUNTIME_ERROR';
    return verdict;
  });
  return { subtaskIndex: walked.position + 1, score: rawSubtaskScore(subtask, walked, verdicts), fullScore: subtask.score, verdicts };
}

/** Raw points: group all-or-nothing; non-group the score times the sum/max/min combination of percents. */
function rawSubtaskScore(subtask: Subtask, walked: WalkedSubtask, verdicts: readonly Verdict[]): number {
  if (walked.skippedByRequire) return 0;
  if (subtask.group) return walked.allPassed ? subtask.score : 0;
  // (Spread into Math.max would overflow the argument limit on huge test sets.)
  const percents = verdicts.map((verdict) => verdict.percent);
  switch (subtask.option) {
    case 'sum':
      return (subtask.score * percents.reduce((sum, percent) => sum + percent, 0)) / percents.length;
    case 'max':
      return subtask.score * percents.reduce((max, percent) => Math.max(max, percent), 0);
    case 'min':
      return subtask.score * percents.reduce((min, percent) => Math.min(min, percent), 1);
  }
}
