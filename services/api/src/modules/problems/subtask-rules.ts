/**
 * subtask.json, checked at upload (DOMAIN.md "Test data"). The same rules as the judge's
 * judge/src/problem/subtask-config.ts and case-list.ts, which the API may not import (the judge depends on
 * schemas only and the API must not depend on the judge): keep the two in step. Only validity matters
 * here; the judge builds the evaluation order itself.
 */
import { z } from 'zod';

const FileSchema = z.object(
  {
    version: z.literal(1, { error: 'version must be 1.0' }).optional(),
    data: z.record(z.string(), z.unknown(), { error: 'data must be an object of subtasks' }),
  },
  { error: 'must be an object {"version": 1.0, "data": {...}}' },
);

const EntrySchema = z.object(
  {
    case: z.string({ error: (issue) => (issue.input === undefined ? 'case is missing' : 'case must be a string such as "1-3,5"') }),
    group: z.boolean({ error: 'group must be true or false' }).optional(),
    score: z.number({ error: 'score must be a number' }).nonnegative({ error: 'score must not be negative' }).optional(),
    require: z
      .union([z.number().int(), z.array(z.number().int())], { error: 'require must be a subtask number or a list of subtask numbers' })
      .optional(),
    option: z.enum(['sum', 'max', 'min'], { error: 'option must be "sum", "max" or "min"' }).optional(),
  },
  { error: 'must be an object' },
);

function issueText(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** A subtask's `case` ("1-3, 5"): every bad item, or the number of distinct tests it covers. */
export function checkCaseList(text: string, testCount: number): { problems: string[]; cases: Set<number> } {
  const problems: string[] = [];
  const cases = new Set<number>();
  const items = text.split(',').map((item) => item.trim());
  if (items.length === 1 && items[0] === '') return { problems: ['case is empty'], cases };
  const inBounds = (value: number, item: string) => {
    if (Number.isSafeInteger(value) && value >= 1 && value <= testCount) return true;
    problems.push(`case item "${item}": test ${value} is outside 1..${testCount}`);
    return false;
  };
  for (const item of items) {
    if (item === '') {
      problems.push(`case "${text}" has an empty item`);
      continue;
    }
    const single = /^(\d+)$/.exec(item);
    if (single) {
      if (inBounds(Number(single[1]), item)) cases.add(Number(single[1]));
      continue;
    }
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(item);
    if (!range) {
      problems.push(`case item "${item}" is neither a test number nor a range a-b`);
      continue;
    }
    // A reversed range is read swapped, as OTOG does. Bounds are checked before expanding it.
    const [from, to] = [Number(range[1]), Number(range[2])].sort((a, b) => a - b) as [number, number];
    if (inBounds(from, item) && inBounds(to, item)) for (let test = from; test <= to; test += 1) cases.add(test);
  }
  return { problems, cases };
}

/** Every problem of a subtask.json for a package of `testCount` tests (empty: valid). */
export function checkSubtaskJson(text: string, testCount: number): string[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return [`subtask.json is not valid JSON: ${(error as Error).message}`];
  }
  const file = FileSchema.safeParse(json);
  if (!file.success) return file.error.issues.map((issue) => `subtask.json: ${issueText(issue)}`);

  const problems: string[] = [];
  const entries = Object.entries(file.data.data);
  if (entries.length === 0) problems.push('subtask.json: data has no subtasks');
  const nameByNumber = new Map<number, string>();
  const requires = new Map<number, number[]>();
  let fullScore = 0;
  for (const [name, raw] of entries) {
    const where = `subtask.json: subtask "${name}"`;
    const digits = /\d+/.exec(name);
    const number = digits ? Number(digits[0]) : undefined;
    if (number === undefined) problems.push(`${where}: the name has no subtask number (e.g. "subtask 1")`);
    else if (!Number.isSafeInteger(number)) problems.push(`${where}: subtask number ${digits?.[0]} is too large`);
    else if (nameByNumber.has(number)) problems.push(`${where}: subtask number ${number} is also used by "${nameByNumber.get(number)}"`);
    else nameByNumber.set(number, name);

    const entry = EntrySchema.safeParse(raw);
    if (!entry.success) {
      problems.push(...entry.error.issues.map((issue) => `${where}: ${issueText(issue)}`));
      continue;
    }
    const cases = checkCaseList(entry.data.case, testCount);
    problems.push(...cases.problems.map((problem) => `${where}: ${problem}`));
    fullScore += entry.data.score ?? cases.cases.size;
    if (number !== undefined) requires.set(number, entry.data.require === undefined ? [] : [entry.data.require].flat());
  }
  if (problems.length > 0) return problems;

  for (const [number, needs] of requires) {
    for (const need of needs) {
      if (!requires.has(need)) problems.push(`subtask.json: subtask "${nameByNumber.get(number)}" requires subtask ${need}, which does not exist`);
    }
  }
  if (problems.length > 0) return problems;
  const cycle = findCycle(requires);
  if (cycle) {
    return [cycle.length === 2 ? `subtask.json: subtask ${cycle[0]} requires itself` : `subtask.json: require has a cycle: subtask ${cycle.join(' requires ')}`];
  }
  // The submission score divides by the sum of the subtask scores.
  if (fullScore <= 0) return ['subtask.json: the subtask scores add up to 0'];
  return [];
}

/** A cycle in "requires" as a closed walk of subtask numbers (first = last), or undefined. */
function findCycle(requires: ReadonlyMap<number, readonly number[]>): number[] | undefined {
  const state = new Map<number, 'open' | 'done'>();
  const stack: number[] = [];
  const visit = (node: number): number[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of requires.get(node) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...requires.keys()].sort((a, b) => a - b)) {
    if (!state.has(node)) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return undefined;
}
