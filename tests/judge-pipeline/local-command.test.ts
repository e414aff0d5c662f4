/**
 * Conformance through the local command, as a problem setter runs it: `node judge/src/cli.ts local ...`
 * as a child process, stdout parsed as the one JSON object it prints. Every sample solution of
 * judge/samples/expected.json in normal mode, and with --contest where `require` changes the result.
 * Also: the usage errors (exit 2, stderr only), a zip instead of a folder, and a corrupt zip.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubmissionResultSchema } from '@otog/schemas/common/judging';
import { caseName, expectedFor, inLanes, localArgs, problemDir, runCli, sampleCases, sandboxTmp, solutionFile, type CliRun, type SampleCase } from './support.ts';

const lanes = [61220, 61230];
const cases = sampleCases();
const runs: Array<{ entry: SampleCase; contest: boolean }> = [
  ...cases.map((entry) => ({ entry, contest: false })),
  ...cases.filter((entry) => entry.contest).map((entry) => ({ entry, contest: true })),
];
const outputs = new Map<string, CliRun>();
let tmp: string;

beforeAll(async () => {
  tmp = sandboxTmp('local-cli');
  await inLanes(runs, lanes.length, async ({ entry, contest }, lane) => {
    outputs.set(caseName(entry, contest), await runCli(localArgs(entry, contest), { OTOG_SANDBOX_FIRST_UID: String(lanes[lane]) }));
  });
}, 900_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The printed object: exactly the spec's names, `subtaskResults` as `subtasks`. */
function parseOutput(run: CliRun) {
  expect(run.code, run.stderr).toBe(0);
  const json = JSON.parse(run.stdout) as Record<string, unknown>;
  expect(Object.keys(json).sort()).toEqual(['errmsg', 'memUsed', 'result', 'score', 'status', 'subtasks', 'timeUsed']);
  const { subtasks, ...rest } = json;
  return SubmissionResultSchema.strict().parse({ ...rest, subtaskResults: subtasks });
}

describe('npm run judge -- local: the sample problems', () => {
  it.each(runs.map((run) => [caseName(run.entry, run.contest), run] as const))('%s', (name, { entry, contest }) => {
    const run = outputs.get(name)!;
    const result = parseOutput(run);
    const expected = expectedFor(entry, contest);
    expect({ status: result.status, result: result.result, score: result.score }).toEqual(expected);
    const verdicts = result.subtaskResults.flatMap((subtask) => subtask.verdicts);
    if (entry.runtimeErrorKind) {
      expect(verdicts.length).toBeGreaterThan(0);
      for (const verdict of verdicts) expect(verdict).toMatchObject({ status: 'RUNTIME_ERROR', runtimeErrorKind: entry.runtimeErrorKind });
    }
    if (entry.errmsgIncludes) {
      expect(result.errmsg).toContain(entry.errmsgIncludes);
      expect(result.errmsg).not.toContain('/box');
    }
    if (result.status === 'accept' || result.status === 'reject') {
      expect(result.errmsg).toBeNull();
      expect(result.subtaskResults.length).toBeGreaterThan(0);
      for (const verdict of verdicts) {
        expect(Object.keys(verdict).sort()).toEqual(
          verdict.status === 'RUNTIME_ERROR'
            ? ['memUsed', 'percent', 'runtimeErrorKind', 'status', 'testcaseIndex', 'timeUsed']
            : ['memUsed', 'percent', 'status', 'testcaseIndex', 'timeUsed'],
        );
      }
      expect(result.timeUsed).toBe(Math.max(0, ...verdicts.filter((verdict) => verdict.status !== 'SKIPPED').map((verdict) => verdict.timeUsed)));
    } else {
      expect(result.subtaskResults).toEqual([]);
    }
    expect(run.stdout.trim().split('\n')[0]).toBe('{');
  });
});

describe('npm run judge -- local: usage and packages', () => {
  const env = { OTOG_SANDBOX_FIRST_UID: String(lanes[0]) };
  const accept = solutionFile({ problem: 'aplusb', solution: 'accept.c' });

  it.each([
    ['no arguments', []],
    ['an unknown command', ['judge-it']],
    ['a missing source file', ['local', problemDir('aplusb')]],
    ['no --lang', ['local', problemDir('aplusb'), accept]],
    ['an unknown language', ['local', problemDir('aplusb'), accept, '--lang', 'java']],
    ['a bad time limit', ['local', problemDir('aplusb'), accept, '--lang', 'c', '--time-limit', '1.5']],
    ['a bad memory limit', ['local', problemDir('aplusb'), accept, '--lang', 'c', '--memory-limit', '0']],
    ['a bad score', ['local', problemDir('aplusb'), accept, '--lang', 'c', '--score', 'ten']],
    ['an unknown option', ['local', problemDir('aplusb'), accept, '--lang', 'c', '--fast']],
    ['a source that does not exist', ['local', problemDir('aplusb'), '/nonexistent/a.c', '--lang', 'c']],
    ['a problem that does not exist', ['local', '/nonexistent/problem', accept, '--lang', 'c']],
    ['a bad OTOG_SANDBOX', ['local', problemDir('aplusb'), accept, '--lang', 'c'], { OTOG_SANDBOX: 'none' }],
  ] as const)('%s: exit 2, a message on stderr, nothing on stdout', async (_name, args, extraEnv: Record<string, string> = {}) => {
    const run = await runCli(args, { ...env, ...extraEnv });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^judge: |Usage:/);
  });

  it('--lang java names the known languages', async () => {
    const run = await runCli(['local', problemDir('aplusb'), accept, '--lang', 'java'], env);
    expect(run.stderr).toContain('unknown language "java": --lang must be one of c, cpp, python');
  });

  it('--score and the defaults: a partial solution scaled to 30', async () => {
    const run = await runCli(['local', problemDir('aplusb'), solutionFile({ problem: 'aplusb', solution: 'partial.c' }), '--lang', 'c', '--score', '50'], env);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'reject', result: 'PPPPP----P', score: 30 });
  });

  it('takes a zip instead of a folder (the same unpacking as the worker cache)', async () => {
    const folder = problemDir('five-subtask');
    const files = Object.fromEntries(readdirSync(folder).map((name) => [name, readFileSync(join(folder, name))]));
    const zip = join(tmp, 'five-subtask.zip');
    writeFileSync(zip, zipSync(files));
    const run = await runCli(['local', zip, solutionFile({ problem: 'five-subtask', solution: 'fail-sub1.cpp' }), '--lang', 'cpp', '--contest'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'reject', result: '(PPP--)[PPPP][SSS](PP)(SS)', score: 48 });
  });

  it('a problem folder the sandbox uids cannot read is copied to a readable one (custom checkers bind it)', async () => {
    const hidden = mkdtempSync(join(tmpdir(), 'otog-hidden-'));
    try {
      expect(statSync(hidden).mode & 0o777).toBe(0o700);
      const folder = join(hidden, 'checker-check-cpp');
      cpSync(problemDir('checker-check-cpp'), folder, { recursive: true });
      const run = await runCli(['local', folder, solutionFile({ problem: 'checker-check-cpp', solution: 'partial.c' }), '--lang', 'c'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'reject', result: 'PP--P', score: 60 });
    } finally {
      rmSync(hidden, { recursive: true, force: true });
    }
  });

  it('a corrupt zip ends as No Testcase (judgeError) with the reason', async () => {
    const zip = join(tmp, 'corrupt.zip');
    writeFileSync(zip, 'PK\u0003\u0004 this is not really a zip file');
    const run = await runCli(['local', zip, accept, '--lang', 'c'], env);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json).toMatchObject({ status: 'judgeError', result: 'No Testcase', score: 0, subtasks: [] });
    expect(json.errmsg).toMatch(/not a valid zip/);
  });
});
