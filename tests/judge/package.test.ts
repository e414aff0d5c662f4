/**
 * DOMAIN.md "Test data": the layout of a problem package, checker detection, libraries, upload-time
 * validation [ours] and the special result judging would end with.
 */
import { describe, expect, it } from 'vitest';
import { parseTestCount, validateProblemPackage, type PackageReport } from '@otog/judge';

const tests = (n: number, skip: readonly string[] = []) =>
  Array.from({ length: n }, (_, i) => [`${i + 1}.in`, `${i + 1}.sol`])
    .flat()
    .filter((name) => !skip.includes(name));

function validate(fileNames: readonly string[], problemCase: string | number | null | undefined = '3', files: Record<string, string> = {}) {
  return validateProblemPackage({
    fileNames,
    problemCase,
    readTextFile: (name) => {
      const text = files[name];
      if (text === undefined) throw new Error(`ENOENT: ${name}`);
      return text;
    },
  });
}

const codes = (report: PackageReport) => report.problems.map((problem) => problem.code);

describe('problem.case', () => {
  it.each([
    ['3', 3],
    [' 10 ', 10],
    ['+4', 4],
    [7, 7],
    ['0', undefined],
    ['-1', undefined],
    ['', undefined],
    ['abc', undefined],
    ['1.5', undefined],
    ['{"version":1}', undefined],
    [null, undefined],
    [undefined, undefined],
    [0, undefined],
    [2.5, undefined],
  ] as const)('%j gives N = %j', (value, expected) => {
    expect(parseTestCount(value)).toBe(expected);
  });
});

describe('a good package', () => {
  it('is described completely and judges normally', async () => {
    const subtaskJson = JSON.stringify({ version: 1.0, data: { 'subtask 1': { case: '1-2' }, 'subtask 2': { case: '3', group: false } } });
    const report = await validate([...tests(3), 'subtask.json', 'grader.h', 'lib.c', 'helper.py', 'tool.cpp', 'README.md', 'command.yaml'], '3', {
      'subtask.json': subtaskJson,
    });
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.judging).toEqual({ ok: true });
    expect(report.package).toMatchObject({
      testCount: 3,
      tests: [
        { number: 1, input: '1.in', solution: '1.sol' },
        { number: 2, input: '2.in', solution: '2.sol' },
        { number: 3, input: '3.in', solution: '3.sol' },
      ],
      checker: { kind: 'standard', file: undefined },
      libraries: ['grader.h', 'helper.py', 'lib.c', 'tool.cpp'],
      hasSubtaskJson: true,
      otherFiles: ['README.md', 'command.yaml'],
    });
    expect(report.package.subtaskConfig?.subtasks.map((subtask) => [subtask.number, subtask.cases, subtask.group])).toEqual([
      [1, [1, 2], true],
      [2, [3], false],
    ]);
  });

  it('uses the default subtask without subtask.json', async () => {
    const report = await validate(tests(2), '2');
    expect(report.package.hasSubtaskJson).toBe(false);
    expect(report.package.subtaskConfig).toMatchObject({ fromSubtaskJson: false, subtasks: [{ cases: [1, 2], group: false, score: 100 }] });
  });

  it('ignores directory entries and __MACOSX/', async () => {
    const report = await validate(['./', ...tests(1), '__MACOSX/', '__MACOSX/._1.in'], '1');
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual(['the __MACOSX/ folder is ignored']);
  });
});

describe('checker detection (first match wins)', () => {
  it.each([
    [['interactive_script.py', 'check.cpp', 'thaco.cpp', 'partial.cpp'], 'interactiveScript', 'interactive_script.py'],
    [['check.cpp', 'thaco.cpp', 'partial.cpp'], 'checkCpp', 'check.cpp'],
    [['thaco.cpp', 'partial.cpp'], 'partial', 'thaco.cpp'],
    [['partial.cpp'], 'partial', 'partial.cpp'],
    [[], 'standard', undefined],
  ] as const)('%j → %s', async (checkers, kind, file) => {
    const report = await validate([...tests(3), ...checkers, 'lib.h']);
    expect(report.package.checker).toEqual({ kind, file });
    // Checker files are never libraries, even the ignored ones.
    expect(report.package.libraries).toEqual(['lib.h']);
  });

  it('warns about checker files that lose to an earlier one', async () => {
    const report = await validate([...tests(3), 'check.cpp', 'partial.cpp', 'interactive_script.py']);
    expect(report.warnings).toEqual([
      'check.cpp is ignored: interactive_script.py is the checker (first match wins)',
      'partial.cpp is ignored: interactive_script.py is the checker (first match wins)',
    ]);
  });

  it('finds checkers and libraries at the root only', async () => {
    const report = await validate([...tests(3), 'src/check.cpp', 'src/lib.h']);
    expect(report.package.checker.kind).toBe('standard');
    expect(report.package.libraries).toEqual([]);
  });
});

describe('test data and the judging outcome', () => {
  it('a library named like the submission (main.cpp) is a Problem Error, reported at upload', async () => {
    const report = await validate([...tests(3), 'main.cpp', 'grader.h']);
    expect(codes(report)).toEqual(['reservedLibraryName']);
    expect(report.problems[0]!.message).toBe('main.cpp: the submission itself is compiled under this name; rename the library file');
    expect(report.judging).toMatchObject({ ok: false, result: 'Problem Error', status: 'judgeError' });
  });

  it('missing inputs → Input missing (judgeError), listing the files', async () => {
    const report = await validate(tests(5, ['2.in', '5.in']), '5');
    expect(report.problems).toEqual([{ code: 'inputMissing', message: 'input missing: 2.in, 5.in (problem.case is 5)', files: ['2.in', '5.in'] }]);
    expect(report.judging).toEqual({ ok: false, result: 'Input missing', status: 'judgeError', errmsg: 'input missing: 2.in, 5.in (problem.case is 5)' });
    expect(report.package.tests.map((test) => test.number)).toEqual([1, 3, 4]);
  });

  it('inputs beyond the files present are missing too (N larger than the data)', async () => {
    const report = await validate(tests(2), '14');
    expect(report.problems[0]?.message).toBe('input missing: 3.in, 4.in, 5.in, 6.in, 7.in, 8.in, 9.in, 10.in, 11.in, 12.in and 2 more (problem.case is 14)');
    expect(report.judging).toMatchObject({ result: 'Input missing' });
  });

  it('missing solutions → Solution missing with the standard checker', async () => {
    const report = await validate(tests(3, ['3.sol']), '3');
    expect(report.problems).toEqual([{ code: 'solutionMissing', message: 'solution missing: 3.sol (problem.case is 3)', files: ['3.sol'] }]);
    expect(report.judging).toEqual({ ok: false, result: 'Solution missing', status: 'judgeError', errmsg: 'solution missing: 3.sol (problem.case is 3)' });
    expect(report.package.tests[2]).toEqual({ number: 3, input: '3.in', solution: undefined });
  });

  it('missing solutions are only a warning with a custom checker', async () => {
    const report = await validate([...tests(2, ['1.sol', '2.sol']), 'thaco.cpp'], '2');
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual(['solution missing: 1.sol, 2.sol (problem.case is 2); thaco.cpp receives a path that does not exist']);
    expect(report.judging).toEqual({ ok: true });
  });

  it('Input missing wins over Solution missing and Subtask Error', async () => {
    const report = await validate([...tests(3, ['1.in', '2.sol']), 'subtask.json'], '3', { 'subtask.json': 'nope' });
    expect(codes(report)).toEqual(['inputMissing', 'solutionMissing', 'subtaskError']);
    expect(report.judging).toMatchObject({ result: 'Input missing' });
  });

  it('no test files at all → No Testcase', async () => {
    const report = await validate(['check.cpp', 'README.md'], '3');
    expect(report.problems).toEqual([{ code: 'noTestcase', message: "the package has no test files (1.in, 1.sol, 2.in, ... at the zip's root)" }]);
    expect(report.judging).toEqual({
      ok: false,
      result: 'No Testcase',
      status: 'judgeError',
      errmsg: "the package has no test files (1.in, 1.sol, 2.in, ... at the zip's root)",
    });
  });

  it.each([null, '', '0', 'abc', ' '])('problem.case %j → No Testcase', async (problemCase) => {
    const report = await validate([...tests(3), 'subtask.json'], problemCase, { 'subtask.json': '{}' });
    expect(codes(report)).toEqual(['invalidCaseCount']);
    expect(report.problems[0]?.message).toBe(`problem.case must be the number of test cases (a positive integer), got ${JSON.stringify(problemCase)}`);
    expect(report.judging).toMatchObject({ ok: false, result: 'No Testcase', status: 'judgeError' });
    expect(report.warnings).toEqual(['subtask.json is not checked until problem.case is a positive integer']);
    expect(report.package.subtaskConfig).toBeUndefined();
  });

  it('an invalid subtask.json → Subtask Error with every message as errmsg', async () => {
    const text = JSON.stringify({ data: { 'subtask 1': { case: '1-4' }, 'subtask 2': { case: '1', require: 2 } } });
    const report = await validate(tests(3), '3', {});
    expect(report.judging).toEqual({ ok: true });
    const bad = await validate([...tests(3), 'subtask.json'], '3', { 'subtask.json': text });
    expect(bad.problems).toEqual([
      { code: 'subtaskError', message: 'subtask "subtask 1": case item "1-4": test 4 is outside 1..3', files: ['subtask.json'] },
    ]);
    expect(bad.judging).toEqual({
      ok: false,
      result: 'Subtask Error',
      status: 'judgeError',
      errmsg: 'subtask "subtask 1": case item "1-4": test 4 is outside 1..3',
    });
    expect(bad.package.subtaskConfig).toBeUndefined();
  });

  it('a subtask.json that cannot be read → Subtask Error', async () => {
    const report = await validate([...tests(3), 'subtask.json'], '3', {});
    expect(report.problems).toEqual([{ code: 'subtaskError', message: 'cannot read subtask.json: ENOENT: subtask.json', files: ['subtask.json'] }]);
    expect(report.judging).toMatchObject({ result: 'Subtask Error' });
  });

  it('warns about test files that are never used', async () => {
    const report = await validate([...tests(3), '4.in', '4.sol', '01.in', '0.sol'], '3');
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([
      'unused test files: 0.sol, 01.in, 4.in, 4.sol (problem.case is 3; tests are named 1.in, 1.sol, ... without leading zeros)',
    ]);
    expect(report.package.otherFiles).toEqual([]);
  });
});

describe('zip entries', () => {
  it.each([
    ['../evil.sh', 'a ".." path segment'],
    ['a/../../b', 'a ".." path segment'],
    ['..', 'a ".." path segment'],
    ['/etc/passwd', 'an absolute path'],
    ['C:/x.in', 'an absolute path'],
    ['..\\x', 'a backslash (Windows path separator)'],
    ['dir\\1.in', 'a backslash (Windows path separator)'],
    ['1.in\u0000.sh', 'control characters in the name'],
    ['', 'an empty name'],
  ])('%j is unsafe (%s)', async (entry, reason) => {
    const report = await validate([...tests(3), entry]);
    expect(report.problems).toEqual([{ code: 'unsafePath', message: `${JSON.stringify(entry)} is rejected: ${reason}; files must be at the zip's root`, files: [entry] }]);
    // Unsafe entries are never extracted, so judging is unaffected.
    expect(report.judging).toEqual({ ok: true });
  });

  it('reports files in folders, grouped by top folder, and judges without them', async () => {
    const report = await validate(['prob/', 'prob/1.in', 'prob/1.sol', 'prob/sub/2.in', 'docs/a.pdf'], '1');
    expect(report.problems).toEqual([
      {
        code: 'nestedFile',
        message: `3 file(s) inside folder "prob/" are ignored: the judge reads only the zip's root (prob/1.in, prob/1.sol, prob/sub/2.in)`,
        files: ['prob/1.in', 'prob/1.sol', 'prob/sub/2.in'],
      },
      { code: 'nestedFile', message: `1 file(s) inside folder "docs/" are ignored: the judge reads only the zip's root (docs/a.pdf)`, files: ['docs/a.pdf'] },
      { code: 'noTestcase', message: "the package has no test files (1.in, 1.sol, 2.in, ... at the zip's root)" },
    ]);
    expect(report.judging).toMatchObject({ result: 'No Testcase' });
  });

  it('reads "./name" as a root file and reports duplicate entries', async () => {
    const report = await validate(['./1.in', '1.sol', '1.sol'], '1');
    expect(report.package.tests).toEqual([{ number: 1, input: '1.in', solution: '1.sol' }]);
    expect(report.problems).toEqual([{ code: 'duplicateEntry', message: '"1.sol" appears more than once in the zip', files: ['1.sol'] }]);
  });
});
