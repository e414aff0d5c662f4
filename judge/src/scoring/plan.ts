/**
 * Which tests the worker still has to run, given the outcomes so far. Group subtasks stop at their first
 * non-P test and, in contests, a subtask whose required subtasks are not all P is skipped entirely: the
 * worker asks the plan after every test and never runs a test whose verdict would be `S` anyway.
 */
import type { SubtaskConfig } from '@otog/schemas/common/subtask-config';
import type { TestOutcome } from '@otog/schemas/common/judging';
import { walkSubtasks, type WalkOptions } from './walk.ts';

export interface JudgingPlan {
  /** The test to run now, or undefined when judging is finished (score it with scoreSubmission). */
  readonly next: number | undefined;
  /**
   * Every test still to run if all of them pass, in run order (`next` first). An upper bound for
   * progress display: a failure may shorten it, never lengthen it.
   */
  readonly remaining: readonly number[];
  /** A test ended with PROBLEM_ERROR or INTERNAL_ERROR: stop; the submission is a special result. */
  readonly aborted: boolean;
}

const assumedPass: TestOutcome = { status: 'ACCEPTED', timeUsed: 0, memUsed: 0 };

export function planJudging(config: SubtaskConfig, options: WalkOptions, outcomes: ReadonlyMap<number, TestOutcome>): JudgingPlan {
  for (const outcome of outcomes.values()) {
    if (outcome.status === 'PROBLEM_ERROR' || outcome.status === 'INTERNAL_ERROR') return { next: undefined, remaining: [], aborted: true };
  }
  const remaining: number[] = [];
  const queued = new Set<number>();
  walkSubtasks(config, options, (test) => {
    const known = outcomes.get(test);
    if (known) return known;
    // A test shared by several subtasks runs once.
    if (!queued.has(test)) {
      queued.add(test);
      remaining.push(test);
    }
    return assumedPass;
  });
  return { next: remaining[0], remaining, aborted: false };
}
