/**
 * The subtask configuration of a problem: `subtask.json` when the package has one, else the default
 * single subtask (DOMAIN.md "Test data"). Parsing never throws: it returns a config or the list of
 * every problem found, worded for the admin who uploads the package (and used as the `Subtask Error`
 * errmsg when a bad file reaches judging).
 */
import { z } from 'zod';
import { parseCaseList } from './case-list.ts';

export const SUBTASK_OPTIONS = ['sum', 'max', 'min'] as const;
export type SubtaskOption = (typeof SUBTASK_OPTIONS)[number];

export interface Subtask {
  /** The first integer in the subtask's name; subtasks are ordered by it. */
  readonly number: number;
  readonly name: string;
  /** Global test numbers, sorted and unique, all within 1..testCount. */
  readonly cases: readonly number[];
  /** All-or-nothing, stopping at the first non-P test. */
  readonly group: boolean;
  /** Raw full points of this subtask. */
  readonly score: number;
  /** How a non-group subtask combines its percents; always 'sum' (unused) for a group. */
  readonly option: SubtaskOption;
  /** Subtask numbers that must be all-P first (enforced for contest submissions only). Sorted, unique. */
  readonly require: readonly number[];
}

export interface SubtaskConfig {
  /** N = problem.case: tests 1..N exist in the package. */
  readonly testCount: number;
  /** Sorted by subtask number; `subtaskIndex` in results is the 1-based position here. */
  readonly subtasks: readonly Subtask[];
  /** Positions in `subtasks`, every subtask after the ones it requires (ties by subtask number). */
  readonly evaluationOrder: readonly number[];
  /** Σ subtask scores, the denominator of the submission score; always > 0. */
  readonly fullScore: number;
  /** Whether this came from a subtask.json (false: the default single subtask). */
  readonly fromSubtaskJson: boolean;
}

export type SubtaskConfigResult =
  | { readonly ok: true; readonly config: SubtaskConfig; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[]; readonly warnings: readonly string[] };

/** Without subtask.json: one subtask, cases 1..N, not a group, score 100. */
export function defaultSubtaskConfig(testCount: number): SubtaskConfig {
  assertTestCount(testCount);
  const subtask: Subtask = {
    number: 1,
    name: 'subtask 1',
    cases: Array.from({ length: testCount }, (_, i) => i + 1),
    group: false,
    score: 100,
    option: 'sum',
    require: [],
  };
  return { testCount, subtasks: [subtask], evaluationOrder: [0], fullScore: 100, fromSubtaskJson: false };
}

function assertTestCount(testCount: number): void {
  if (!Number.isSafeInteger(testCount) || testCount < 1) throw new RangeError(`test count must be a positive integer, got ${testCount}`);
}

const FileSchema = z.object(
  {
    version: z.literal(1, { error: 'version must be 1.0' }).optional(),
    data: z.record(z.string(), z.unknown(), { error: 'data must be an object of subtasks' }),
  },
  { error: 'must be an object {"version": 1.0, "data": {...}}' },
);

const KNOWN_FIELDS = new Set(['case', 'group', 'score', 'require', 'option']);

const EntrySchema = z.object(
  {
    case: z.string({ error: (issue) => (issue.input === undefined ? 'case is missing' : 'case must be a string such as "1-3,5"') }),
    group: z.boolean({ error: 'group must be true or false' }).optional(),
    score: z.number({ error: 'score must be a number' }).nonnegative({ error: 'score must not be negative' }).optional(),
    require: z
      .union([z.number().int(), z.array(z.number().int())], { error: 'require must be a subtask number or a list of subtask numbers' })
      .optional(),
    option: z.enum(SUBTASK_OPTIONS, { error: 'option must be "sum", "max" or "min"' }).optional(),
  },
  { error: 'must be an object' },
);

function issueText(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * Parses `subtask.json` text (or, when `text` is undefined, returns the default config) for a problem
 * with `testCount` tests.
 */
export function parseSubtaskConfig(text: string | undefined, testCount: number): SubtaskConfigResult {
  if (!Number.isSafeInteger(testCount) || testCount < 1) {
    return { ok: false, problems: [`the number of test cases (problem.case) must be a positive integer, got ${testCount}`], warnings: [] };
  }
  if (text === undefined) return { ok: true, config: defaultSubtaskConfig(testCount), warnings: [] };

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`subtask.json is not valid JSON: ${(error as Error).message}`], warnings: [] };
  }
  const file = FileSchema.safeParse(json);
  if (!file.success) return { ok: false, problems: file.error.issues.map((issue) => `subtask.json: ${issueText(issue)}`), warnings: [] };

  const problems: string[] = [];
  const warnings: string[] = [];
  const entries = Object.entries(file.data.data);
  if (entries.length === 0) problems.push('subtask.json: data has no subtasks');

  const subtasks: Subtask[] = [];
  const nameByNumber = new Map<number, string>();
  for (const [name, raw] of entries) {
    const where = `subtask "${name}"`;
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
    // Unknown fields are probably typos ("cases"), but OTOG ignores them, so existing packages keep working.
    for (const key of Object.keys(raw as object)) if (!KNOWN_FIELDS.has(key)) warnings.push(`${where}: unknown field "${key}" is ignored`);

    const cases = parseCaseList(entry.data.case, testCount);
    if (!cases.ok) {
      problems.push(...cases.problems.map((problem) => `${where}: ${problem}`));
      continue;
    }
    warnings.push(...cases.warnings.map((warning) => `${where}: ${warning}`));
    const group = entry.data.group ?? true;
    if (group && entry.data.option !== undefined) warnings.push(`${where}: option "${entry.data.option}" is ignored for a group subtask`);
    const require = entry.data.require === undefined ? [] : [entry.data.require].flat();
    if (number !== undefined) {
      subtasks.push({
        number,
        name,
        cases: cases.cases,
        group,
        score: entry.data.score ?? cases.cases.length,
        option: group ? 'sum' : (entry.data.option ?? 'sum'),
        require: [...new Set(require)].sort((a, b) => a - b),
      });
    }
  }
  if (problems.length > 0) return { ok: false, problems, warnings };

  subtasks.sort((a, b) => a.number - b.number);
  for (const subtask of subtasks) {
    for (const required of subtask.require) {
      if (!nameByNumber.has(required)) problems.push(`subtask "${subtask.name}": requires subtask ${required}, which does not exist`);
    }
  }
  if (problems.length > 0) return { ok: false, problems, warnings };

  const order = dependencyOrder(subtasks);
  if (!order.ok) return { ok: false, problems: [order.problem], warnings };

  const fullScore = subtasks.reduce((sum, subtask) => sum + subtask.score, 0);
  // The submission score divides by Σ full scores; all-zero subtasks cannot be scaled to problem.score.
  if (fullScore <= 0) return { ok: false, problems: ['subtask.json: the subtask scores add up to 0'], warnings };

  const covered = new Set(subtasks.flatMap((subtask) => subtask.cases));
  const unused = Array.from({ length: testCount }, (_, i) => i + 1).filter((test) => !covered.has(test));
  if (unused.length > 0) warnings.push(`tests ${unused.join(', ')} belong to no subtask and are never run`);

  return { ok: true, config: { testCount, subtasks, evaluationOrder: order.order, fullScore, fromSubtaskJson: true }, warnings };
}

type OrderResult = { ok: true; order: number[] } | { ok: false; problem: string };

/**
 * A topological order of the subtasks (required ones first), smallest subtask number first among the
 * ready ones so the order is deterministic; or the first cycle found, spelled out.
 */
function dependencyOrder(subtasks: readonly Subtask[]): OrderResult {
  const positionOf = new Map(subtasks.map((subtask, position) => [subtask.number, position]));
  const requires = subtasks.map((subtask) => subtask.require.map((number) => positionOf.get(number) as number));

  const cycle = findCycle(requires);
  if (cycle) {
    const numbers = cycle.map((position) => subtasks[position]?.number);
    if (numbers.length === 2) return { ok: false, problem: `subtask "${subtasks[cycle[0] as number]?.name}": requires itself` };
    return { ok: false, problem: `require has a cycle: subtask ${numbers.join(' requires ')}` };
  }

  // Positions are already in number order, so repeatedly taking the first ready one is deterministic.
  const done = new Set<number>();
  const order: number[] = [];
  while (order.length < subtasks.length) {
    const next = requires.findIndex((needs, position) => !done.has(position) && needs.every((need) => done.has(need)));
    done.add(next);
    order.push(next);
  }
  return { ok: true, order };
}

/** A cycle in the "requires" graph as a closed walk of positions (first = last), or undefined. */
function findCycle(requires: readonly (readonly number[])[]): number[] | undefined {
  const state = new Array<'new' | 'open' | 'done'>(requires.length).fill('new');
  const stack: number[] = [];
  const visit = (node: number): number[] | undefined => {
    state[node] = 'open';
    stack.push(node);
    for (const next of requires[node] ?? []) {
      if (state[next] === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (state[next] === 'new') {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state[node] = 'done';
    return undefined;
  };
  for (let node = 0; node < requires.length; node += 1) {
    if (state[node] === 'new') {
      const found = visit(node);
      if (found) return found;
    }
  }
  return undefined;
}
