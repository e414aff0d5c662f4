/**
 * DOMAIN.md "Scoring one submission": verdict characters, group / non-group subtasks, options, require,
 * the rounded score, the result string, status, time and memory, special results, and the judging plan.
 */
import { describe, expect, it } from 'vitest';
import {
  formatResultString,
  isSpecialResult,
  MissingTestOutcomeError,
  parseSubtaskConfig,
  planJudging,
  defaultSubtaskConfig,
  roundHalfToEven,
  scaleScore,
  scoreSubmission,
  SPECIAL_RESULTS,
  specialResultStatus,
  specialSubmissionResult,
  SubmissionResultSchema,
  TestOutcomeSchema,
  verdictChar,
  verdictMeaning,
  verdictStatusOfChar,
  VERDICT_STATUSES,
  VERDICTS,
  type SubmissionResult,
  type SubtaskConfig,
  type TestOutcome,
  type VerdictStatus,
} from '@otog/judge';

function configOf(data: Record<string, unknown>, testCount: number): SubtaskConfig {
  const parsed = parseSubtaskConfig(JSON.stringify({ version: 1.0, data }), testCount);
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.config;
}

/** OTOG's regression problem 2: 5 subtasks over 16 tests, with groups and requires (full 170). */
const problem2 = configOf(
  {
    'subtask 1': { case: '1-5', group: false, score: 20 },
    'subtask 2': { case: '6-9', group: true, score: 30 },
    'subtask 3': { case: '10-12', group: true, score: 30, require: 1 },
    'subtask 4': { case: '13-14', group: false, score: 40, require: 2 },
    'subtask 5': { case: '15-16', group: false, score: 50, require: [3, 4] },
  },
  16,
);

/** OTOG's regression problem 7: sum / max / min over 5 / 4 / 3 tests worth 50 / 30 / 20. */
const problem7 = configOf(
  {
    'subtask 1': { case: '1-5', group: false, score: 50, option: 'sum' },
    'subtask 2': { case: '6-9', group: false, score: 30, option: 'max' },
    'subtask 3': { case: '10-12', group: false, score: 20, option: 'min' },
  },
  12,
);

const statusOf: Record<string, Exclude<VerdictStatus, 'SKIPPED'>> = {
  P: 'ACCEPTED',
  '-': 'REJECTED',
  T: 'TIME_LIMIT_EXCEEDED',
  X: 'RUNTIME_ERROR',
  '?': 'PROBLEM_ERROR',
  '!': 'INTERNAL_ERROR',
};

/**
 * Outcomes for tests 1..n from one character per test (`%` takes the next percent); time = 10 × test,
 * memory = 100 × test, so maxima are easy to check.
 */
function outcomes(chars: string, percents: readonly number[] = []): Map<number, TestOutcome> {
  const queue = [...percents];
  return new Map(
    [...chars].map((char, i): [number, TestOutcome] => {
      const base = { timeUsed: 10 * (i + 1), memUsed: 100 * (i + 1) };
      if (char === '%') return [i + 1, { status: 'PARTIAL', percent: queue.shift() as number, ...base }];
      const status = statusOf[char];
      if (!status) throw new Error(`bad test char ${char}`);
      return [i + 1, { status, ...base }];
    }),
  );
}

const score = (config: SubtaskConfig, chars: string, options: { contest?: boolean; problemScore?: number; percents?: number[] } = {}) =>
  scoreSubmission({ config, problemScore: options.problemScore ?? 100, contest: options.contest ?? true, outcomes: outcomes(chars, options.percents) });

describe('verdicts', () => {
  it('have exactly these characters and meanings', () => {
    expect(VERDICT_STATUSES.map((status) => [status, VERDICTS[status].char, VERDICTS[status].meaning])).toEqual([
      ['ACCEPTED', 'P', 'Output is correct'],
      ['PARTIAL', '%', 'Output is partially correct'],
      ['REJECTED', '-', 'Output is incorrect'],
      ['TIME_LIMIT_EXCEEDED', 'T', 'Time limit exceeded'],
      ['RUNTIME_ERROR', 'X', 'Runtime error'],
      ['SKIPPED', 'S', 'Skipped'],
      ['PROBLEM_ERROR', '?', 'Problem error'],
      ['INTERNAL_ERROR', '!', 'Internal error'],
    ]);
    for (const status of VERDICT_STATUSES) expect(verdictStatusOfChar(verdictChar(status))).toBe(status);
    expect(verdictStatusOfChar('[')).toBeUndefined();
  });
  it('say whether an X was a crash or the memory limit', () => {
    expect(verdictMeaning('RUNTIME_ERROR', 'MEMORY_LIMIT_EXCEEDED')).toBe('Memory limit exceeded');
    expect(verdictMeaning('RUNTIME_ERROR', 'RUNTIME_ERROR')).toBe('Runtime error');
    expect(verdictMeaning('RUNTIME_ERROR')).toBe('Runtime error');
    expect(verdictMeaning('REJECTED', 'MEMORY_LIMIT_EXCEEDED')).toBe('Output is incorrect');
  });
  it('test outcomes are validated (partial needs a percent, MLE only on X, no SKIPPED)', () => {
    expect(TestOutcomeSchema.safeParse({ status: 'PARTIAL', timeUsed: 1, memUsed: 1 }).success).toBe(false);
    expect(TestOutcomeSchema.safeParse({ status: 'PARTIAL', percent: 1.5, timeUsed: 1, memUsed: 1 }).success).toBe(false);
    expect(TestOutcomeSchema.safeParse({ status: 'SKIPPED', timeUsed: 0, memUsed: 0 }).success).toBe(false);
    expect(TestOutcomeSchema.safeParse({ status: 'REJECTED', runtimeErrorKind: 'MEMORY_LIMIT_EXCEEDED', timeUsed: 1, memUsed: 1 }).success).toBe(false);
    expect(TestOutcomeSchema.safeParse({ status: 'RUNTIME_ERROR', runtimeErrorKind: 'MEMORY_LIMIT_EXCEEDED', timeUsed: 1, memUsed: -1 }).success).toBe(true);
  });
});

describe('round half to even', () => {
  it.each([
    [0.5, 0],
    [1.5, 2],
    [2.5, 2],
    [3.5, 4],
    [4.5, 4],
    [-0.5, 0],
    [-1.5, -2],
    [-2.5, -2],
    [0, 0],
    [2.4, 2],
    [2.6, 3],
    [2.49, 2],
    [2.51, 3],
    [48.23529411764706, 48],
    [100, 100],
    [1000000.5, 1000000],
    [1000001.5, 1000002],
    // Float artifacts of an exact half are a half: within HALF_TIE_TOLERANCE (1e-9 relative).
    [1.4999999999, 2],
    [2.4999999999, 2],
    [2.5000000001, 2],
    [3.4999999999, 4],
    [3.4999999999999996, 4],
    [4.500000000000001, 4],
    [5.499999999999999, 6],
    [0.49999999999, 0],
    // Beyond the tolerance it is a real fraction.
    [2.49999999, 2],
    [2.50000001, 3],
    [1.4999999, 1],
  ])('%d → %d', (value, expected) => {
    expect(Object.is(roundHalfToEven(value), expected)).toBe(true);
  });
  it('refuses non-finite values and a zero full score', () => {
    expect(() => roundHalfToEven(Number.NaN)).toThrow(RangeError);
    expect(() => roundHalfToEven(Infinity)).toThrow(RangeError);
    expect(() => scaleScore(1, 0, 100)).toThrow(RangeError);
  });
  it('scales Σ raw × problem.score ÷ Σ full before rounding', () => {
    expect(scaleScore(82, 170, 100)).toBe(48);
    expect(scaleScore(5, 10, 5)).toBe(2); // 2.5
    expect(scaleScore(7, 10, 5)).toBe(4); // 3.5
    expect(scaleScore(1, 10, 5)).toBe(0); // 0.5
  });
});

describe('the three example result strings of DOMAIN.md', () => {
  it('PPPPP----P: one plain subtask, no brackets', () => {
    const result = score(defaultSubtaskConfig(10), 'PPPPP----P');
    expect(result).toMatchObject({ result: 'PPPPP----P', score: 60, status: 'reject' });
  });
  it('(PPPPP)[PPPP][PPP](PP)(PP): all pass', () => {
    const result = score(problem2, 'PPPPPPPPPPPPPPPP');
    expect(result).toMatchObject({ result: '(PPPPP)[PPPP][PPP](PP)(PP)', score: 100, status: 'accept' });
    expect(result.subtaskResults.map((subtask) => [subtask.subtaskIndex, subtask.score, subtask.fullScore])).toEqual([
      [1, 20, 20],
      [2, 30, 30],
      [3, 30, 30],
      [4, 40, 40],
      [5, 50, 50],
    ]);
  });
  it('(PPP--)[PPPP][SSS](PP)(SS): a failed subtask 1 skips subtask 3 and, through it, 5 (contest)', () => {
    const result = score(problem2, 'PPP--PPPPPPPPPPP');
    expect(result).toMatchObject({ result: '(PPP--)[PPPP][SSS](PP)(SS)', score: 48, status: 'reject' });
    expect(result.subtaskResults.map((subtask) => subtask.score)).toEqual([12, 30, 0, 40, 0]);
  });
});

describe('OTOG regression problem 2 (require, contest)', () => {
  it.each([
    ['PPPPPPPP-PPPPPPP', '(PPPPP)[PPP-][PPP](SS)(SS)', 29],
    ['PPPPPPPPPPP-PPPP', '(PPPPP)[PPPP][PP-](PP)(SS)', 53],
    ['PPPPPPPPPPPPP-PP', '(PPPPP)[PPPP][PPP](P-)(SS)', 59],
    ['PPPPPPPPPPPPPPP-', '(PPPPP)[PPPP][PPP](PP)(P-)', 85],
    ['PPPPP-PPPPPPPPPP', '(PPPPP)[-SSS][PPP](SS)(SS)', 29],
    ['-PPPPTPPPPPPPPPP', '(-PPPP)[TSSS][SSS](SS)(SS)', 9],
  ])('%s → %s = %d', (chars, expected, expectedScore) => {
    expect(score(problem2, chars)).toMatchObject({ result: expected, score: expectedScore, status: 'reject' });
  });

  it('ignores require outside contests', () => {
    expect(score(problem2, 'PPP--PPPPPPPPPPP', { contest: false })).toMatchObject({ result: '(PPP--)[PPPP][PPP](PP)(PP)', score: 95 });
    expect(score(problem2, 'PPPPP-PPPPPPPPPP', { contest: false })).toMatchObject({ result: '(PPPPP)[-SSS][PPP](PP)(PP)', score: 82 });
  });

  it('a require-skipped subtask is all S with zero time and memory, and scores 0', () => {
    const result = score(problem2, 'PPP--PPPPPPPPPPP');
    expect(result.subtaskResults[2]).toEqual({
      subtaskIndex: 3,
      score: 0,
      fullScore: 30,
      verdicts: [1, 2, 3].map((testcaseIndex) => ({ testcaseIndex, status: 'SKIPPED', percent: 0, timeUsed: 0, memUsed: 0 })),
    });
  });

  it('a subtask requiring a non-group subtask with a partial is skipped (require means all P)', () => {
    const config = configOf({ 's1': { case: '1-2', group: false, score: 10 }, 's2': { case: '3', group: false, score: 10, require: 1 } }, 3);
    expect(score(config, 'P%P', { percents: [0.9] })).toMatchObject({ result: '(P%)(S)', score: 48 }); // 9.5 of 20 → 47.5 → 48
  });

  it('evaluates in dependency order but prints in number order', () => {
    const config = configOf({ 's1': { case: '1', score: 10, require: 2 }, 's2': { case: '2', score: 10 } }, 2);
    expect(score(config, '-P')).toMatchObject({ result: '[-][P]', score: 50 });
    expect(score(config, 'P-')).toMatchObject({ result: '[S][-]', score: 0 });
    expect(score(config, 'P-', { contest: false })).toMatchObject({ result: '[P][-]', score: 50 });
  });
});

describe('group subtasks', () => {
  const group = configOf({ 'subtask 1': { case: '1-5' } }, 5);
  it.each([
    ['PPPPP', '[PPPPP]', 100, 'accept'],
    ['PP-PP', '[PP-SS]', 0, 'reject'],
    ['TPPPP', '[TSSSS]', 0, 'reject'],
    ['PPPPX', '[PPPPX]', 0, 'reject'],
    ['P%PPP', '[P%SSS]', 0, 'reject'],
  ])('%s → %s = %d (%s)', (chars, expected, expectedScore, status) => {
    expect(score(group, chars, { percents: [0.99] })).toMatchObject({ result: expected, score: expectedScore, status });
  });
  it('is always in brackets, even alone', () => {
    expect(score(configOf({ 'subtask 1': { case: '1' } }, 1), 'P').result).toBe('[P]');
  });
});

describe('non-group options with partials', () => {
  it.each([
    // problem 7 of OTOG's suite: 26 + 30 + 0 = 56, 26 + 21 + 6 = 53
    ['P%%%%P%%-P%-', [0.2, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5], '(P%%%%)(P%%-)(P%-)', [26, 30, 0], 56],
    ['P%%%%%%%%%%%', [0.2, 0.4, 0.5, 0.5, 0.7, 0.1, 0.3, 0.2, 0.3, 0.9, 0.6], '(P%%%%)(%%%%)(%%%)', [26, 21, 6], 53],
    ['PPPPPPPPPPPP', [], '(PPPPP)(PPPP)(PPP)', [50, 30, 20], 100],
    ['------------', [], '(-----)(----)(---)', [0, 0, 0], 0],
    ['TXPPP----P%P', [0.25], '(TXPPP)(----)(P%P)', [30, 0, 5], 35],
  ])('%s → %s', (chars, percents, expected, subtaskScores, expectedScore) => {
    const result = score(problem7, chars, { percents });
    expect(result.result).toBe(expected);
    result.subtaskResults.forEach((subtask, i) => expect(subtask.score).toBeCloseTo(subtaskScores[i] as number, 9));
    expect(result.score).toBe(expectedScore);
  });

  it('sum = score × Σ percents ÷ number of tests; max and min take the extreme percent', () => {
    const config = (option: string) => configOf({ 'subtask 1': { case: '1-4', group: false, score: 40, option } }, 4);
    const chars = 'P%%-';
    const percents = [0.5, 0.25];
    expect(score(config('sum'), chars, { percents }).subtaskResults[0]?.score).toBe(17.5);
    expect(score(config('max'), chars, { percents }).subtaskResults[0]?.score).toBe(40);
    expect(score(config('min'), chars, { percents }).subtaskResults[0]?.score).toBe(0);
    expect(score(config('min'), 'P%%P', { percents }).subtaskResults[0]?.score).toBe(10);
    expect(score(config('max'), '-%%-', { percents }).subtaskResults[0]?.score).toBe(20);
  });

  it('a non-group subtask runs every test (no S)', () => {
    expect(score(defaultSubtaskConfig(4), '-T-P').result).toBe('-T-P');
  });
});

describe('the score: round-half-to-even(Σ raw × problem.score ÷ Σ full)', () => {
  const two = defaultSubtaskConfig(2);
  const four = defaultSubtaskConfig(4);
  it.each([
    [two, 'P-', 1, 0], // 0.5
    [two, 'P-', 3, 2], // 1.5
    [two, 'P-', 5, 2], // 2.5
    [two, 'P-', 7, 4], // 3.5
    [four, 'P---', 10, 2], // 2.5
    [four, 'PPP-', 10, 8], // 7.5
    [four, 'PPPP', 10, 10],
    [four, 'P---', 0, 0],
  ])('%#: %s with problem.score %d → %d', (config, chars, problemScore, expected) => {
    expect(score(config, chars, { problemScore }).score).toBe(expected);
  });
  it('treats float artifacts of an exact half as a half', () => {
    // (0.15 + 0.95) / 2 × 100 × 10 / 100 is 5.5 but computes as 5.499999999999999 (Python round → 5).
    expect(score(two, '%%', { percents: [0.15, 0.95], problemScore: 10 }).score).toBe(6);
    // 4.5 computed as 4.500000000000001 (Python round → 5).
    expect(score(two, '%%', { percents: [0.34, 0.56], problemScore: 10 }).score).toBe(4);
    // 3.5 computed as 3.4999999999999996 (Python round → 3).
    expect(score(two, '%%', { percents: [0.01, 0.06], problemScore: 100 }).score).toBe(4);
  });
  it('scales subtask raw points to problem.score', () => {
    expect(score(problem2, 'PPPPPPPPPPPPPPPP', { problemScore: 7 }).score).toBe(7);
    expect(score(problem2, 'PPP--PPPPPPPPPPP', { problemScore: 17 }).score).toBe(8); // 82 × 17 / 170 = 8.2
    expect(score(problem2, 'PPP--PPPPPPPPPPP', { problemScore: 85 }).score).toBe(41); // 41
  });
  it('uses raw subtask scores that may be fractional and subtasks worth 0', () => {
    const config = configOf({ 'subtask 0': { case: '1', score: 0 }, 'subtask 1': { case: '2-4', group: false } }, 4);
    const result = score(config, '-P-P');
    expect(result.subtaskResults.map((subtask) => [subtask.subtaskIndex, subtask.score, subtask.fullScore])).toEqual([
      [1, 0, 0],
      [2, 2, 3],
    ]);
    expect(result).toMatchObject({ result: '[-](P-P)', score: 67 });
  });
});

describe('status, time, memory and verdict rows', () => {
  it('accept only when every test is P; partials and skips reject even with the full score', () => {
    expect(score(defaultSubtaskConfig(3), 'PPP').status).toBe('accept');
    expect(score(defaultSubtaskConfig(3), 'PP%', { percents: [1] })).toMatchObject({ status: 'reject', score: 100, result: 'PP%' });
    const config = configOf({ 's1': { case: '1', score: 0, group: false }, 's2': { case: '2', score: 10, require: 1 } }, 2);
    // s1 is worth 0 and fails, so s2 is skipped: 0 of 10, and rejected.
    expect(score(config, '-P')).toMatchObject({ status: 'reject', result: '(-)[S]', score: 0 });
  });

  it('timeUsed and memUsed are the maxima over the tests that ran', () => {
    // Tests 1..4 ran (10..40 ms, 100..400 KB); test 5 is skipped.
    expect(score(configOf({ 's1': { case: '1-5' } }, 5), 'PPPTP')).toMatchObject({ timeUsed: 40, memUsed: 400 });
    const unknownMemory = new Map<number, TestOutcome>([
      [1, { status: 'ACCEPTED', timeUsed: 5, memUsed: -1 }],
      [2, { status: 'ACCEPTED', timeUsed: 3, memUsed: -1 }],
    ]);
    expect(scoreSubmission({ config: defaultSubtaskConfig(2), problemScore: 100, contest: false, outcomes: unknownMemory })).toMatchObject({
      timeUsed: 5,
      memUsed: -1,
    });
  });

  it('writes one verdict per test, indexed within its subtask, with the X kind', () => {
    const config = configOf({ 's1': { case: '1-2', group: false }, 's2': { case: '3-5' } }, 5);
    const outcomesByTest = new Map<number, TestOutcome>([
      [1, { status: 'PARTIAL', percent: 0.25, timeUsed: 7, memUsed: 70 }],
      [2, { status: 'RUNTIME_ERROR', runtimeErrorKind: 'MEMORY_LIMIT_EXCEEDED', timeUsed: 8, memUsed: 65536 }],
      [3, { status: 'ACCEPTED', timeUsed: 9, memUsed: 90 }],
      [4, { status: 'RUNTIME_ERROR', timeUsed: 1, memUsed: 10 }],
    ]);
    const result = scoreSubmission({ config, problemScore: 100, contest: true, outcomes: outcomesByTest });
    const expected: SubmissionResult = {
      status: 'reject',
      result: '(%X)[PXS]',
      // s1: 2 points × (0.25 + 0) / 2 = 0.25 raw; s2 (group, failed) 0 of 3; 0.25 × 100 / 5 = 5.
      score: 5,
      timeUsed: 9,
      memUsed: 65536,
      errmsg: null,
      subtaskResults: [
        {
          subtaskIndex: 1,
          score: 0.25,
          fullScore: 2,
          verdicts: [
            { testcaseIndex: 1, status: 'PARTIAL', percent: 0.25, timeUsed: 7, memUsed: 70 },
            { testcaseIndex: 2, status: 'RUNTIME_ERROR', percent: 0, timeUsed: 8, memUsed: 65536, runtimeErrorKind: 'MEMORY_LIMIT_EXCEEDED' },
          ],
        },
        {
          subtaskIndex: 2,
          score: 0,
          fullScore: 3,
          verdicts: [
            { testcaseIndex: 1, status: 'ACCEPTED', percent: 1, timeUsed: 9, memUsed: 90 },
            { testcaseIndex: 2, status: 'RUNTIME_ERROR', percent: 0, timeUsed: 1, memUsed: 10, runtimeErrorKind: 'RUNTIME_ERROR' },
            { testcaseIndex: 3, status: 'SKIPPED', percent: 0, timeUsed: 0, memUsed: 0 },
          ],
        },
      ],
    };
    expect(result).toEqual(expected);
    expect(SubmissionResultSchema.parse(result)).toEqual(result);
  });

  it('a test shared by two subtasks is reused; subtaskIndex is the position, not the subtask number', () => {
    const config = configOf({ 'subtask 7': { case: '1-2', group: false }, 'subtask 3': { case: '2-3' } }, 3);
    const result = score(config, 'P-P');
    expect(result.result).toBe('[-S](P-)');
    expect(result.subtaskResults.map((subtask) => subtask.subtaskIndex)).toEqual([1, 2]);
  });
});

describe('special results', () => {
  it.each([
    ['compilationError', 'Compilation Error', 'compileError'],
    ['noTestcase', 'No Testcase', 'judgeError'],
    ['inputMissing', 'Input missing', 'judgeError'],
    ['solutionMissing', 'Solution missing', 'judgeError'],
    ['subtaskError', 'Subtask Error', 'judgeError'],
    ['problemError', 'Problem Error', 'judgeError'],
    ['judgeError', 'Judge Error', 'judgeError'],
  ] as const)('%s is "%s" with status %s, score 0 and no subtasks', (kind, text, status) => {
    expect(SPECIAL_RESULTS[kind]).toBe(text);
    expect(specialResultStatus(text)).toBe(status);
    expect(isSpecialResult(text)).toBe(true);
    const result = specialSubmissionResult(text, 'details');
    expect(result).toEqual({ status, result: text, score: 0, timeUsed: 0, memUsed: 0, errmsg: 'details', subtaskResults: [] });
    expect(SubmissionResultSchema.parse(result)).toEqual(result);
    expect(specialSubmissionResult(text).errmsg).toMatch(/\S/);
  });
  it('are exactly seven; verdict strings are not special', () => {
    expect(Object.values(SPECIAL_RESULTS)).toHaveLength(7);
    for (const text of ['PPP', 'No nCase', 'Accepted', 'compilation error']) expect(isSpecialResult(text)).toBe(false);
  });
  it('a checker failure on any test makes the whole submission Problem Error; a judge failure Judge Error', () => {
    const withDetail = outcomes('PP?P');
    withDetail.set(3, { status: 'PROBLEM_ERROR', timeUsed: 1, memUsed: 1, detail: 'checker printed "NOICE"' });
    expect(scoreSubmission({ config: defaultSubtaskConfig(4), problemScore: 100, contest: false, outcomes: withDetail })).toEqual(
      specialSubmissionResult('Problem Error', 'checker printed "NOICE"'),
    );
    expect(score(defaultSubtaskConfig(3), 'P!P')).toEqual(specialSubmissionResult('Judge Error'));
    // The first failure met in run order decides.
    expect(score(defaultSubtaskConfig(3), '!?P').result).toBe('Judge Error');
  });
  it('scores the outcomes of a plan that stopped at the failure (later tests never ran)', () => {
    const stopped = outcomes('P?');
    expect(scoreSubmission({ config: defaultSubtaskConfig(5), problemScore: 100, contest: false, outcomes: stopped }).result).toBe('Problem Error');
    expect(scoreSubmission({ config: defaultSubtaskConfig(5), problemScore: 100, contest: false, outcomes: outcomes('!') }).result).toBe('Judge Error');
  });
  it('a checker failure on a test that is skipped anyway does not count', () => {
    expect(score(configOf({ 's1': { case: '1-3' } }, 3), '-?P').result).toBe('[-SS]');
  });
});

describe('scoring refuses caller mistakes', () => {
  it('throws when a test the rules need has no outcome', () => {
    const call = () => scoreSubmission({ config: defaultSubtaskConfig(3), problemScore: 100, contest: false, outcomes: outcomes('PP') });
    expect(call).toThrow(MissingTestOutcomeError);
    expect(call).toThrow('no outcome for test 3, which the rules say must run');
  });
  it('refuses a negative problem score', () => {
    expect(() => score(defaultSubtaskConfig(1), 'P', { problemScore: -1 })).toThrow(RangeError);
  });
});

describe('result string formatting', () => {
  it.each([
    [[{ group: false, statuses: ['ACCEPTED', 'REJECTED'] }], 'P-'],
    [[{ group: true, statuses: ['ACCEPTED', 'REJECTED'] }], '[P-]'],
    [
      [
        { group: false, statuses: ['ACCEPTED'] },
        { group: false, statuses: ['PARTIAL', 'TIME_LIMIT_EXCEEDED'] },
      ],
      '(P)(%T)',
    ],
    [
      [
        { group: true, statuses: ['RUNTIME_ERROR', 'SKIPPED'] },
        { group: false, statuses: ['PROBLEM_ERROR', 'INTERNAL_ERROR'] },
      ],
      '[XS](?!)',
    ],
  ] as const)('%j → %s', (segments, expected) => {
    expect(formatResultString(segments)).toBe(expected);
  });
});

describe('the judging plan', () => {
  /** Runs the plan against an oracle the way a worker would; returns the tests run and the result. */
  function judge(config: SubtaskConfig, chars: string, contest: boolean) {
    const oracle = outcomes(chars);
    const known = new Map<number, TestOutcome>();
    const ran: number[] = [];
    for (let plan = planJudging(config, { contest }, known); plan.next !== undefined; plan = planJudging(config, { contest }, known)) {
      expect(plan.remaining[0]).toBe(plan.next);
      ran.push(plan.next);
      known.set(plan.next, oracle.get(plan.next) as TestOutcome);
    }
    return { ran, result: scoreSubmission({ config, problemScore: 100, contest, outcomes: known }) };
  }

  it('starts with every test in dependency order', () => {
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    expect(planJudging(problem2, { contest: true }, new Map())).toEqual({ next: 1, remaining: range(1, 16), aborted: false });
    const reversed = configOf({ 's1': { case: '1-2', require: 2 }, 's2': { case: '3-4' } }, 4);
    expect(planJudging(reversed, { contest: true }, new Map()).remaining).toEqual([3, 4, 1, 2]);
  });

  it('drops the rest of a group after its first failure, and subtasks whose requirement failed (contest)', () => {
    const known = outcomes('PPP--');
    expect(planJudging(problem2, { contest: true }, known).remaining).toEqual([6, 7, 8, 9, 13, 14]);
    expect(planJudging(problem2, { contest: false }, known).remaining).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    const groupFailed = outcomes('PPPPPP-');
    expect(planJudging(problem2, { contest: true }, groupFailed).remaining).toEqual([10, 11, 12]);
    expect(planJudging(problem2, { contest: false }, groupFailed).remaining).toEqual([10, 11, 12, 13, 14, 15, 16]);
  });

  it('never runs a test whose verdict is S, and scores the same as with every outcome known', () => {
    const cases: Array<[string, boolean, readonly number[], string]> = [
      ['PPP--PPPPPPPPPPP', true, [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14], '(PPP--)[PPPP][SSS](PP)(SS)'],
      ['PPPPP-PPPPPPPPPP', true, [1, 2, 3, 4, 5, 6, 10, 11, 12], '(PPPPP)[-SSS][PPP](SS)(SS)'],
      ['PPPPP-PPPPPPPPPP', false, [1, 2, 3, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16], '(PPPPP)[-SSS][PPP](PP)(PP)'],
      ['PPPPPPPPPPPPPPPP', true, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], '(PPPPP)[PPPP][PPP](PP)(PP)'],
    ];
    for (const [chars, contest, expectedRan, expectedResult] of cases) {
      const { ran, result } = judge(problem2, chars, contest);
      expect(ran).toEqual(expectedRan);
      expect(result.result).toBe(expectedResult);
      expect(result).toEqual(scoreSubmission({ config: problem2, problemScore: 100, contest, outcomes: outcomes(chars) }));
    }
  });

  it('runs a test shared by several subtasks once', () => {
    const config = configOf({ 's1': { case: '1-3' }, 's2': { case: '2-4', group: false } }, 4);
    expect(planJudging(config, { contest: false }, new Map()).remaining).toEqual([1, 2, 3, 4]);
    expect(judge(config, 'P-PP', false)).toMatchObject({ ran: [1, 2, 3, 4], result: { result: '[P-S](-PP)' } });
  });

  it('stops at a checker or judge failure', () => {
    expect(planJudging(problem2, { contest: true }, outcomes('PP?'))).toEqual({ next: undefined, remaining: [], aborted: true });
    expect(planJudging(problem2, { contest: true }, outcomes('!'))).toEqual({ next: undefined, remaining: [], aborted: true });
  });

  it('is finished when every needed test has an outcome', () => {
    expect(planJudging(defaultSubtaskConfig(2), { contest: false }, outcomes('P-'))).toEqual({ next: undefined, remaining: [], aborted: false });
  });
});
