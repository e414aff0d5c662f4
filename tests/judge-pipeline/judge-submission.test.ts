/**
 * Conformance through judgeSubmission itself (the function the worker and the local command share):
 * every sample solution as a contest submission (the --contest column of judge/samples/expected.json),
 * two at a time on a two-slot sandbox; onTestcase sees exactly the executed tests, in run order, before
 * the result.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeSubmission } from '@otog/judge/pipeline/judge-submission';
import type { SubmissionResult, TestOutcome } from '@otog/schemas/common/judging';
import { startTestSandbox, type TestSandbox } from '../sandbox/support.ts';
import { caseName, expectedFor, inLanes, problemDir, sampleCases, solutionFile, type SampleCase } from './support.ts';

const cases = sampleCases();
const results = new Map<string, { result: SubmissionResult; reported: Array<[number, TestOutcome]> }>();
let env: TestSandbox;

beforeAll(async () => {
  env = await startTestSandbox('judge-submission', 61200, { slots: 2 });
  await inLanes(cases, 2, async (entry) => {
    const reported: Array<[number, TestOutcome]> = [];
    const result = await judgeSubmission({
      problemDir: problemDir(entry.problem),
      language: entry.language,
      sourceCode: readFileSync(solutionFile(entry), 'utf8'),
      fileName: entry.solution,
      limits: { timeLimit: entry.timeLimit ?? 1000, memoryLimit: entry.memoryLimit ?? 256, score: 100 },
      contest: true,
      sandbox: env.sandbox,
      onTestcase: (testNumber, outcome) => void reported.push([testNumber, outcome]),
    });
    results.set(caseName(entry, true), { result, reported });
  });
}, 900_000);

afterAll(async () => {
  await env?.close();
}, 60_000);

describe('judgeSubmission: the sample problems as contest submissions', () => {
  it.each(cases.map((entry) => [caseName(entry, true), entry] as const))('%s', (name, entry: SampleCase) => {
    const { result, reported } = results.get(name)!;
    expect({ status: result.status, result: result.result, score: result.score }).toEqual(expectedFor(entry, true));
    // Every executed (non-skipped) verdict was reported once, as it finished, with the same figures.
    const ran = result.subtaskResults.flatMap((subtask) => subtask.verdicts).filter((verdict) => verdict.status !== 'SKIPPED');
    const uniqueReported = new Set(reported.map(([testNumber]) => testNumber));
    expect(uniqueReported.size).toBe(reported.length);
    if (result.status === 'accept' || result.status === 'reject') {
      // Tests shared by several subtasks run once; here every test belongs to one subtask.
      expect(reported.length).toBe(ran.length);
      expect(reported.map(([, outcome]) => outcome.status).sort()).toEqual(ran.map((verdict) => verdict.status).sort());
    } else {
      expect(reported).toEqual([]);
    }
  });
});
