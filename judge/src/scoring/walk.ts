/**
 * The one place that decides which tests of which subtask are run or skipped. Both the judging plan
 * (which tests the worker still has to run) and the scorer walk the subtasks through here, so they can
 * never disagree about what is `S`.
 */
import type { SubtaskConfig } from '@otog/schemas/common/subtask-config';
import type { TestOutcome } from '@otog/schemas/common/judging';

export interface WalkOptions {
  /** Contest submissions enforce `require`; practice submissions ignore it. */
  readonly contest: boolean;
}

/** One test slot of a subtask: the outcome used, or skipped. */
export type WalkedTest = { readonly test: number; readonly outcome: TestOutcome } | { readonly test: number; readonly outcome: 'skipped' };

export interface WalkedSubtask {
  /** Position in config.subtasks (number order). */
  readonly position: number;
  /** In the subtask's case order. */
  readonly tests: readonly WalkedTest[];
  /** Every test is `P` (what a dependent subtask's `require` checks). */
  readonly allPassed: boolean;
  readonly skippedByRequire: boolean;
}

/**
 * Walks the subtasks in dependency order. `outcomeOf` supplies the outcome of each test the rules say
 * must run (called in run order; it may throw or assume a value). Returns the subtasks in number order.
 */
export function walkSubtasks(
  config: SubtaskConfig,
  options: WalkOptions,
  outcomeOf: (test: number) => TestOutcome,
): readonly WalkedSubtask[] {
  const positionOf = new Map(config.subtasks.map((subtask, position) => [subtask.number, position]));
  const walked: WalkedSubtask[] = new Array(config.subtasks.length);
  for (const position of config.evaluationOrder) {
    const subtask = config.subtasks[position];
    if (!subtask) throw new RangeError(`evaluation order names subtask position ${position}, which does not exist`);
    // Dependency order guarantees every required subtask is already walked.
    const blocked = options.contest && subtask.require.some((number) => !walked[positionOf.get(number) ?? -1]?.allPassed);
    if (blocked) {
      walked[position] = {
        position,
        tests: subtask.cases.map((test) => ({ test, outcome: 'skipped' as const })),
        allPassed: false,
        skippedByRequire: true,
      };
      continue;
    }
    const tests: WalkedTest[] = [];
    let allPassed = true;
    for (const test of subtask.cases) {
      // A group stops at its first non-P test; the rest of it is never run.
      if (subtask.group && !allPassed) {
        tests.push({ test, outcome: 'skipped' });
        continue;
      }
      const outcome = outcomeOf(test);
      tests.push({ test, outcome });
      if (outcome.status !== 'ACCEPTED') allPassed = false;
    }
    walked[position] = { position, tests, allPassed, skippedByRequire: false };
  }
  return walked;
}
