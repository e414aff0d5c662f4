/**
 * DOMAIN.md "Test data": subtask.json parsing and validation, and the default configuration.
 */
import { describe, expect, it } from 'vitest';
import { defaultSubtaskConfig, parseCaseList, parseSubtaskConfig, type SubtaskConfig, type SubtaskConfigResult } from '@otog/judge';

const json = (data: Record<string, unknown>, extra: Record<string, unknown> = { version: 1.0 }) => JSON.stringify({ ...extra, data });

function ok(result: SubtaskConfigResult): SubtaskConfig {
  if (!result.ok) throw new Error(`expected a config, got problems: ${result.problems.join(' | ')}`);
  return result.config;
}
function problems(result: SubtaskConfigResult): readonly string[] {
  if (result.ok) throw new Error('expected problems, got a config');
  return result.problems;
}

describe('case lists', () => {
  const cases: Array<[string, number, readonly number[]]> = [
    ['1-3,5', 10, [1, 2, 3, 5]],
    ['1-3, 5', 10, [1, 2, 3, 5]],
    [' 2 ', 10, [2]],
    ['1 - 3', 10, [1, 2, 3]],
    ['3-1', 10, [1, 2, 3]],
    ['1-3,2-4', 10, [1, 2, 3, 4]],
    ['5,1,1,5', 10, [1, 5]],
    ['7-7', 10, [7]],
    ['10', 10, [10]],
    ['1-10', 10, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
    ['09', 10, [9]],
  ];
  it.each(cases)('%j with N=%i gives %j', (text, testCount, expected) => {
    const result = parseCaseList(text, testCount);
    expect(result).toMatchObject({ ok: true, cases: expected });
  });

  it('warns when a range is reversed (OTOG swaps it)', () => {
    expect(parseCaseList('3-1', 10)).toEqual({ ok: true, cases: [1, 2, 3], warnings: ['case item "3-1" is reversed; read as 1-3'] });
    expect(parseCaseList('1-3', 10)).toEqual({ ok: true, cases: [1, 2, 3], warnings: [] });
  });

  const bad: Array<[string, number, readonly string[]]> = [
    ['0', 10, ['case item "0": test 0 is outside 1..10']],
    ['11', 10, ['case item "11": test 11 is outside 1..10']],
    ['0-2', 10, ['case item "0-2": test 0 is outside 1..10']],
    ['9-12', 10, ['case item "9-12": test 12 is outside 1..10']],
    ['1-1000000000', 10, ['case item "1-1000000000": test 1000000000 is outside 1..10']],
    ['', 10, ['case is empty']],
    ['   ', 10, ['case is empty']],
    ['1,,2', 10, ['case "1,,2" has an empty item']],
    ['1,', 10, ['case "1," has an empty item']],
    ['a', 10, ['case item "a" is neither a test number nor a range a-b']],
    ['1-', 10, ['case item "1-" is neither a test number nor a range a-b']],
    ['-1', 10, ['case item "-1" is neither a test number nor a range a-b']],
    ['1-2-3', 10, ['case item "1-2-3" is neither a test number nor a range a-b']],
    ['1.5', 10, ['case item "1.5" is neither a test number nor a range a-b']],
    ['1 2', 10, ['case item "1 2" is neither a test number nor a range a-b']],
    ['0, x, 12', 10, ['case item "0": test 0 is outside 1..10', 'case item "x" is neither a test number nor a range a-b', 'case item "12": test 12 is outside 1..10']],
  ];
  it.each(bad)('%j with N=%i is refused: %j', (text, testCount, expected) => {
    expect(parseCaseList(text, testCount)).toEqual({ ok: false, problems: expected });
  });
});

describe('without subtask.json', () => {
  it('is one subtask with cases 1..N, not a group, score 100', () => {
    const expected: SubtaskConfig = {
      testCount: 3,
      subtasks: [{ number: 1, name: 'subtask 1', cases: [1, 2, 3], group: false, score: 100, option: 'sum', require: [] }],
      evaluationOrder: [0],
      fullScore: 100,
      fromSubtaskJson: false,
    };
    expect(defaultSubtaskConfig(3)).toEqual(expected);
    expect(parseSubtaskConfig(undefined, 3)).toEqual({ ok: true, config: expected, warnings: [] });
  });
  it('needs a positive test count', () => {
    expect(problems(parseSubtaskConfig(undefined, 0))).toEqual(['the number of test cases (problem.case) must be a positive integer, got 0']);
    expect(problems(parseSubtaskConfig('{}', 2.5))).toEqual(['the number of test cases (problem.case) must be a positive integer, got 2.5']);
    expect(() => defaultSubtaskConfig(0)).toThrow(RangeError);
  });
});

describe('subtask.json', () => {
  it('reads every field and applies the defaults (group true, score = number of cases, option sum)', () => {
    const config = ok(
      parseSubtaskConfig(
        json({
          'subtask 1': { case: '1-3' },
          'subtask 2': { case: '4,5', group: false, score: 7.5, option: 'max', require: 1 },
          'subtask 3': { case: '6', group: true, score: 0, require: [2, 1, 2] },
          'subtask 4': { case: '1-6', group: false },
        }),
        6,
      ),
    );
    expect(config.subtasks).toEqual([
      { number: 1, name: 'subtask 1', cases: [1, 2, 3], group: true, score: 3, option: 'sum', require: [] },
      { number: 2, name: 'subtask 2', cases: [4, 5], group: false, score: 7.5, option: 'max', require: [1] },
      { number: 3, name: 'subtask 3', cases: [6], group: true, score: 0, option: 'sum', require: [1, 2] },
      { number: 4, name: 'subtask 4', cases: [1, 2, 3, 4, 5, 6], group: false, score: 6, option: 'sum', require: [] },
    ]);
    expect(config.fullScore).toBe(16.5);
    expect(config.testCount).toBe(6);
    expect(config.fromSubtaskJson).toBe(true);
  });

  it('numbers subtasks by the first integer in the name and sorts by it, not by key order', () => {
    const config = ok(
      parseSubtaskConfig(json({ 'subtask 10': { case: '3' }, 'Sub2 part 7': { case: '2' }, 'st-01x9': { case: '1' }, '0': { case: '4' } }), 4),
    );
    expect(config.subtasks.map((subtask) => [subtask.number, subtask.name])).toEqual([
      [0, '0'],
      [1, 'st-01x9'],
      [2, 'Sub2 part 7'],
      [10, 'subtask 10'],
    ]);
  });

  it('accepts a missing version and version 1 / 1.0', () => {
    expect(parseSubtaskConfig(JSON.stringify({ data: { s1: { case: '1' } } }), 1).ok).toBe(true);
    expect(parseSubtaskConfig('{"version": 1.0, "data": {"s1": {"case": "1"}}}', 1).ok).toBe(true);
    expect(parseSubtaskConfig('{"version": 1, "data": {"s1": {"case": "1"}}}', 1).ok).toBe(true);
  });

  it('ignores option on a group subtask (with a warning) and keeps it on non-group ones', () => {
    const result = parseSubtaskConfig(json({ 'subtask 1': { case: '1', option: 'min' }, 'subtask 2': { case: '2', group: false, option: 'min' } }), 2);
    expect(ok(result).subtasks.map((subtask) => subtask.option)).toEqual(['sum', 'min']);
    expect(result.warnings).toEqual(['subtask "subtask 1": option "min" is ignored for a group subtask']);
  });

  it('warns about unknown fields, reversed ranges and tests that belong to no subtask', () => {
    const result = parseSubtaskConfig(json({ 'subtask 1': { case: '3-1', cases: '1-5', scores: 3 } }), 5);
    expect(ok(result).subtasks[0]?.cases).toEqual([1, 2, 3]);
    expect(result.warnings).toEqual([
      'subtask "subtask 1": unknown field "cases" is ignored',
      'subtask "subtask 1": unknown field "scores" is ignored',
      'subtask "subtask 1": case item "3-1" is reversed; read as 1-3',
      'tests 4, 5 belong to no subtask and are never run',
    ]);
  });

  it('orders evaluation so that required subtasks come first (ties by subtask number)', () => {
    const config = ok(
      parseSubtaskConfig(
        json({
          'subtask 1': { case: '1', require: [3] },
          'subtask 2': { case: '2' },
          'subtask 3': { case: '3', require: 4 },
          'subtask 4': { case: '4' },
          'subtask 5': { case: '5', require: [1, 2] },
        }),
        5,
      ),
    );
    // Positions: 0=s1, 1=s2, 2=s3, 3=s4, 4=s5. s2 and s4 are ready first; s4 unlocks s3, which unlocks s1.
    expect(config.evaluationOrder).toEqual([1, 3, 2, 0, 4]);
  });

  const errors: Array<[string, string, number, readonly string[]]> = [
    ['invalid JSON', '{"data": {', 3, [expect.stringMatching(/^subtask\.json is not valid JSON: /) as unknown as string]],
    ['a non-object root', '[1]', 3, ['subtask.json: must be an object {"version": 1.0, "data": {...}}']],
    ['no data', '{"version": 1.0}', 3, ['subtask.json: data: data must be an object of subtasks']],
    ['data not an object', '{"data": [1]}', 3, ['subtask.json: data: data must be an object of subtasks']],
    ['an unsupported version', '{"version": 2, "data": {"s1": {"case": "1"}}}', 3, ['subtask.json: version: version must be 1.0']],
    ['no subtasks', json({}), 3, ['subtask.json: data has no subtasks']],
    ['a name without a number', json({ bonus: { case: '1' } }), 3, ['subtask "bonus": the name has no subtask number (e.g. "subtask 1")']],
    [
      'duplicate subtask numbers',
      json({ 'subtask 1': { case: '1' }, 'task 01': { case: '2' } }),
      3,
      ['subtask "task 01": subtask number 1 is also used by "subtask 1"'],
    ],
    ['a subtask that is not an object', json({ 'subtask 1': '1-3' }), 3, ['subtask "subtask 1": must be an object']],
    ['a missing case', json({ 'subtask 1': { score: 3 } }), 3, ['subtask "subtask 1": case: case is missing']],
    ['a numeric case', json({ 'subtask 1': { case: 3 } }), 3, ['subtask "subtask 1": case: case must be a string such as "1-3,5"']],
    ['a case outside 1..N', json({ 'subtask 1': { case: '1-4' } }), 3, ['subtask "subtask 1": case item "1-4": test 4 is outside 1..3']],
    ['case 0', json({ 'subtask 1': { case: '0' } }), 3, ['subtask "subtask 1": case item "0": test 0 is outside 1..3']],
    ['an empty case', json({ 'subtask 1': { case: '' } }), 3, ['subtask "subtask 1": case is empty']],
    ['a non-boolean group', json({ 'subtask 1': { case: '1', group: 'yes' } }), 3, ['subtask "subtask 1": group: group must be true or false']],
    ['a string score', json({ 'subtask 1': { case: '1', score: '10' } }), 3, ['subtask "subtask 1": score: score must be a number']],
    ['a negative score', json({ 'subtask 1': { case: '1', score: -1 } }), 3, ['subtask "subtask 1": score: score must not be negative']],
    ['an infinite score', '{"data": {"s1": {"case": "1", "score": 1e999}}}', 3, ['subtask "s1": score: score must be a number']],
    ['an unknown option', json({ 'subtask 1': { case: '1', group: false, option: 'avg' } }), 3, ['subtask "subtask 1": option: option must be "sum", "max" or "min"']],
    [
      'a string require',
      json({ 'subtask 1': { case: '1' }, 'subtask 2': { case: '2', require: '1' } }),
      3,
      ['subtask "subtask 2": require: require must be a subtask number or a list of subtask numbers'],
    ],
    [
      'a fractional require',
      json({ 'subtask 1': { case: '1' }, 'subtask 2': { case: '2', require: [1.5] } }),
      3,
      ['subtask "subtask 2": require: require must be a subtask number or a list of subtask numbers'],
    ],
    [
      'an unknown required subtask',
      json({ 'subtask 1': { case: '1' }, 'subtask 2': { case: '2', require: [1, 7] } }),
      3,
      ['subtask "subtask 2": requires subtask 7, which does not exist'],
    ],
    ['a subtask requiring itself', json({ 'subtask 1': { case: '1', require: 1 } }), 3, ['subtask "subtask 1": requires itself']],
    [
      'a two-subtask cycle',
      json({ 'subtask 1': { case: '1', require: 2 }, 'subtask 2': { case: '2', require: [1] } }),
      3,
      ['require has a cycle: subtask 1 requires 2 requires 1'],
    ],
    [
      'a longer cycle behind a good subtask',
      json({ 's1': { case: '1' }, 's2': { case: '1', require: 3 }, 's3': { case: '2', require: [4, 1] }, 's4': { case: '3', require: 2 } }),
      3,
      ['require has a cycle: subtask 2 requires 3 requires 4 requires 2'],
    ],
    ['scores adding up to 0', json({ 'subtask 1': { case: '1', score: 0 } }), 3, ['subtask.json: the subtask scores add up to 0']],
  ];
  it.each(errors)('refuses %s', (_label, text, testCount, expected) => {
    expect(problems(parseSubtaskConfig(text, testCount))).toEqual(expected);
  });

  it('reports every problem of every subtask at once', () => {
    expect(
      problems(
        parseSubtaskConfig(json({ 'subtask 1': { case: '0,9', group: 1 }, extra: { case: '1' }, 'subtask 3': { case: '1', score: -2 } }), 3),
      ),
    ).toEqual([
      'subtask "subtask 1": group: group must be true or false',
      'subtask "extra": the name has no subtask number (e.g. "subtask 1")',
      'subtask "subtask 3": score: score must not be negative',
    ]);
    expect(problems(parseSubtaskConfig(json({ 'subtask 1': { case: '0,9' } }), 3))).toEqual([
      'subtask "subtask 1": case item "0": test 0 is outside 1..3',
      'subtask "subtask 1": case item "9": test 9 is outside 1..3',
    ]);
  });
});
