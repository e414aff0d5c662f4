/** The problem decider, given/when/then (pure). */
import { describe, it } from 'vitest';
import { problemDecider } from '@otog/api/modules/problems/problem-decider';
import { given } from '../support/decider.ts';

const scope = 'problem:5';
const form = { name: 'A Plus B', sname: 'aplusb', score: 100, timeLimit: 1_000, memoryLimit: 256, case: null };
const details = (problemCase: string | null) => ({ type: 'ProblemDetailsSet', scope, data: { problemId: 5, name: 'A Plus B', sname: 'aplusb', case: problemCase } });
const limits = { type: 'ProblemJudgingConfigured', scope, data: { problemId: 5, score: 100, timeLimit: 1_000, memoryLimit: 256 } };
const testdata = (count: number) => ({ type: 'ProblemTestdataUploaded', scope, data: { problemId: 5, testdataHash: 'a'.repeat(64), case: String(count) } });
const zip = (count: number) => ({ testdata: { hash: 'a'.repeat(64), testCount: count } });

describe('problem decider', () => {
  it('creates with its form, its files and (for the seed) shown; only once', () => {
    given(problemDecider).when({ kind: 'create', problemId: 5, form, files: {}, show: false }).then([details(null), limits]);
    given(problemDecider)
      .when({ kind: 'create', problemId: 5, form: { ...form, case: '7' }, files: { ...zip(7), statement: { hash: 'b'.repeat(64), size: 9 } }, show: true })
      .then([
        details('7'),
        limits,
        testdata(7),
        { type: 'ProblemStatementUploaded', scope, data: { problemId: 5, pdfHash: 'b'.repeat(64), size: 9 } },
        { type: 'ProblemVisibilityChanged', scope, data: { problemId: 5, show: true } },
      ]);
    given(problemDecider, [details(null)]).when({ kind: 'create', problemId: 5, form, files: {}, show: false }).thenRefused('Problem 5 exists');
  });

  it('keeps the test count of uploaded test data: an empty case keeps it, another one is refused, a new zip replaces it', () => {
    const withData = [details('3'), limits, testdata(3)];
    given(problemDecider, withData).when({ kind: 'update', problemId: 5, form, files: {} }).then([details('3'), limits]);
    given(problemDecider, withData).when({ kind: 'update', problemId: 5, form: { ...form, case: '3' }, files: {} }).then([details('3'), limits]);
    given(problemDecider, withData)
      .when({ kind: 'update', problemId: 5, form: { ...form, case: '4' }, files: {} })
      .thenRefused('case is "4" but the uploaded test data has 3 tests; upload a new zip to change it');
    given(problemDecider, withData).when({ kind: 'update', problemId: 5, form: { ...form, case: '4' }, files: zip(4) }).then([details('4'), limits, testdata(4)]);
    // Without test data the admin's case stands.
    given(problemDecider, [details(null)]).when({ kind: 'update', problemId: 5, form: { ...form, case: '9' }, files: {} }).then([details('9'), limits]);
  });

  it('refuses every change to a problem that does not exist or was deleted', () => {
    const deleted = [details(null), { type: 'ProblemDeleted', scope, data: { problemId: 5 } }];
    const commands = [
      { kind: 'update', problemId: 5, form, files: {} },
      { kind: 'show', problemId: 5, show: true },
      { kind: 'delete', problemId: 5 },
      { kind: 'setExamples', problemId: 5, examples: [] },
      { kind: 'attachmentUploaded', problemId: 5, hash: 'c'.repeat(64), size: 1 },
    ] as const;
    for (const command of commands) {
      given(problemDecider).when(command).thenRefused('Problem not found');
      given(problemDecider, deleted).when(command).thenRefused('Problem not found');
    }
  });

  it('shows, deletes and records examples and attachments in the problem scope', () => {
    given(problemDecider, [details(null)]).when({ kind: 'show', problemId: 5, show: false }).then([{ type: 'ProblemVisibilityChanged', scope, data: { problemId: 5, show: false } }]);
    given(problemDecider, [details(null)]).when({ kind: 'delete', problemId: 5 }).then([{ type: 'ProblemDeleted', scope, data: { problemId: 5 } }]);
    given(problemDecider, [details(null)])
      .when({ kind: 'setExamples', problemId: 5, examples: [{ input: '1 2', output: '3' }] })
      .then([{ type: 'ProblemExamplesSet', scope, data: { problemId: 5, examples: [{ input: '1 2', output: '3' }] } }]);
    given(problemDecider, [details(null)])
      .when({ kind: 'attachmentUploaded', problemId: 5, hash: 'c'.repeat(64), size: 10 })
      .then([{ type: 'ProblemAttachmentUploaded', scope, data: { problemId: 5, hash: 'c'.repeat(64), size: 10 } }]);
  });
});
