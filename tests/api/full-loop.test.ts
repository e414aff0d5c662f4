/**
 * The whole product loop through the public API with a real judge worker in the sandbox: register and sign
 * in, an admin creates a problem with its test data, the user submits C, C++ and Python (named as OTOG's
 * editor names it) solutions, a wrong answer and a compile error, the verdicts arrive, the admin replaces
 * the test data and rejudges the problem, and every submission is judged again against the new data.
 */
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authContract } from '@otog/schemas/api/auth';
import { problemContract } from '@otog/schemas/api/problem';
import { submissionContract as contract, type Submission } from '@otog/schemas/api/submission';
import { startStack, type Stack, type TestUser } from './support/stack.ts';

const FINAL = new Set(['accept', 'reject', 'compileError', 'judgeError']);
const JUDGING_DEADLINE_MS = 120_000;

const SOURCES = {
  c: { language: 'c', filename: 'plus.c', code: '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}\n' },
  cpp: { language: 'cpp', filename: 'plus.cpp', code: '#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n' },
  // OTOG's web editor submits `{problemId}.{language}`.
  python: { language: 'python', filename: '', code: 'a, b = map(int, input().split())\nprint(a + b)\n' },
  // Right except when a = 2 (the second test).
  wrong: { language: 'cpp', filename: 'wrong.cpp', code: '#include <cstdio>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a==2?0:a+b);}\n' },
  broken: { language: 'cpp', filename: 'broken.cpp', code: 'int main() { return missing_symbol; }\n' },
} as const;
type Name = keyof typeof SOURCES;

/** Tests i: "i i+1" → 2i+1; `override` replaces some expected outputs. */
function testdata(cases: number, override: Record<number, string> = {}): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (let i = 1; i <= cases; i += 1) {
    files[`${i}.in`] = strToU8(`${i} ${i + 1}\n`);
    files[`${i}.sol`] = strToU8(override[i] ?? `${2 * i + 1}\n`);
  }
  return zipSync(files);
}

let stack: Stack;
let admin: TestUser;
/** The registered user's access token (from POST /auth/login). */
let token: string;
let userId: number;
let problemId: number;
const submitted = new Map<Name, number>();

beforeAll(async () => {
  stack = await startStack({ worker: { firstUid: 61300 } });
  admin = await stack.createUser({ role: 'admin' });
}, 120_000);
afterAll(() => stack?.stop());

/** Polls GET /submission/:id (100 ms apart) until every one has a final status. */
async function judged(ids: readonly number[]): Promise<Map<number, Submission>> {
  const deadline = Date.now() + JUDGING_DEADLINE_MS;
  const done = new Map<number, Submission>();
  for (;;) {
    for (const submissionId of ids) {
      if (done.has(submissionId)) continue;
      const row = await stack.expectCall(contract.getSubmission, 200, { as: token, params: { submissionId } });
      if (FINAL.has(row.status)) done.set(submissionId, row);
    }
    if (done.size === ids.length) return done;
    if (Date.now() > deadline) throw new Error(`not judged within ${JUDGING_DEADLINE_MS} ms: ${ids.filter((id) => !done.has(id)).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const summary = (row: Submission | undefined) =>
  row && { status: row.status, result: row.submissionResult?.result, score: row.submissionResult?.score };

describe('the submission loop with a real judge', () => {
  it('registers and signs in a user', async () => {
    const username = `loop_${process.pid}`;
    const password = 'correct horse battery';
    await stack.expectCall(authContract.register, 201, { body: { username, showName: `Loop ${process.pid}`, password } });
    const session = await stack.expectCall(authContract.login, 200, { body: { username, password } });
    expect(session.user).toMatchObject({ username, role: 'user' });
    token = session.accessToken;
    userId = session.user.id;
  });

  it('an admin creates a problem with its test data and shows it', async () => {
    const created = await stack.expectCall(problemContract.createProblem, 201, {
      as: admin,
      form: {
        fields: { name: 'A Plus B', sname: 'aplusb', score: '100', timeLimit: '1', memoryLimit: '256' },
        files: { zip: { filename: 'aplusb.zip', content: testdata(3), contentType: 'application/zip' } },
      },
    });
    expect(created).toMatchObject({ name: 'A Plus B', score: 100, timeLimit: 1_000, memoryLimit: 256, show: false, case: '3' });
    problemId = created.id;
    // Hidden: users may not submit yet.
    const early = await stack.expectCall(contract.uploadFile, 400, {
      as: token,
      params: { problemId },
      form: { fields: { language: 'c' }, files: { sourceCode: { filename: 'a.c', content: SOURCES.c.code } } },
    });
    expect(early.message).toBe('Problem is not in contest or public!');
    await stack.expectCall(problemContract.showProblem, 200, { as: admin, params: { problemId }, body: { show: true } });
  });

  it('the user submits C, C++, Python, a wrong answer and a compile error', async () => {
    for (const [name, source] of Object.entries(SOURCES) as Array<[Name, (typeof SOURCES)[Name]]>) {
      const filename = source.filename || `${problemId}.${source.language}`;
      const created = await stack.expectCall(contract.uploadFile, 200, {
        as: token,
        params: { problemId },
        form: { fields: { language: source.language }, files: { sourceCode: { filename, content: source.code } } },
      });
      expect(created).toMatchObject({ status: 'waiting', language: source.language, userId, problem: { id: problemId }, submissionResult: null });
      submitted.set(name, created.id);
    }
  });

  it('the judge grades them: exact result strings, scores and statuses', async () => {
    const rows = await judged([...submitted.values()]);
    const of = (name: Name) => summary(rows.get(submitted.get(name)!));
    expect(of('c')).toEqual({ status: 'accept', result: 'PPP', score: 100 });
    expect(of('cpp')).toEqual({ status: 'accept', result: 'PPP', score: 100 });
    expect(of('python')).toEqual({ status: 'accept', result: 'PPP', score: 100 });
    expect(of('wrong')).toEqual({ status: 'reject', result: 'P-P', score: 67 });
    expect(of('broken')).toEqual({ status: 'compileError', result: 'Compilation Error', score: 0 });
    expect(rows.get(submitted.get('broken')!)?.submissionResult?.errmsg).toMatch(/missing_symbol/);
  });

  it('the code view has the source, the subtask results and their verdicts', async () => {
    const detail = await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: token, params: { submissionId: submitted.get('wrong')! } });
    expect(detail.sourceCode).toBe(SOURCES.wrong.code);
    const [subtask, ...others] = detail.submissionResult!.subtaskResults;
    expect(others).toEqual([]);
    expect(subtask).toMatchObject({ subtaskIndex: 1, fullScore: 100, submissionResultId: detail.id });
    expect(subtask!.score).toBeCloseTo(200 / 3, 5);
    expect(subtask!.verdicts.map((v) => [v.testcaseIndex, v.status, v.percent, v.subtaskId])).toEqual([
      [1, 'ACCEPTED', 1, subtask!.id],
      [2, 'REJECTED', 0, subtask!.id],
      [3, 'ACCEPTED', 1, subtask!.id],
    ]);
    const broken = await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: token, params: { submissionId: submitted.get('broken')! } });
    expect(broken.submissionResult).toMatchObject({ result: 'Compilation Error', subtaskResults: [] });
    // Private code: another user may not read it.
    const other = await stack.createUser();
    await stack.expectCall(contract.getSubmissionWithSourceCode, 403, { as: other, params: { submissionId: submitted.get('c')! } });
  });

  it('the lists show the results', async () => {
    const mine = await stack.expectCall(contract.getSubmissions, 200, { as: token, query: { userId } });
    expect(mine.map((row) => row.id)).toEqual([...submitted.values()].sort((a, b) => b - a));
    const byName = new Map(mine.map((row) => [row.id, row]));
    expect(summary(byName.get(submitted.get('python')!))).toEqual({ status: 'accept', result: 'PPP', score: 100 });
    const latest = await stack.expectCall(contract.getLatestSubmissionByProblemId, 200, { as: token, params: { problemId } });
    expect(latest.submission?.id).toBe(submitted.get('broken'));
  });

  it('new test data and a problem rejudge: every submission waits, then is judged again against the new data', async () => {
    // Test 2 now expects 0: the answers that were right become wrong there, the wrong one becomes right.
    await stack.expectCall(problemContract.updateProblem, 200, {
      as: admin,
      params: { problemId },
      form: {
        fields: { name: 'A Plus B', sname: 'aplusb', score: '100', timeLimit: '1', memoryLimit: '256' },
        files: { zip: { filename: 'aplusb-v2.zip', content: testdata(3, { 2: '0\n' }), contentType: 'application/zip' } },
      },
    });
    const answer = await stack.expectCall(contract.rejudgeProblem, 200, { as: admin, params: { problemId } });
    expect(answer.message).toMatch(/5 submissions/);

    // Right after the answer: every result is cleared (the judge may have started on some: grading).
    const cleared = await stack.expectCall(contract.getSubmissions, 200, { as: token, query: { userId } });
    expect(cleared).toHaveLength(submitted.size);
    for (const row of cleared) {
      expect(['waiting', 'grading'], `submission ${row.id}`).toContain(row.status);
      expect(row.submissionResult).toBeNull();
    }

    const rows = await judged([...submitted.values()]);
    const of = (name: Name) => summary(rows.get(submitted.get(name)!));
    expect(of('c')).toEqual({ status: 'reject', result: 'P-P', score: 67 });
    expect(of('cpp')).toEqual({ status: 'reject', result: 'P-P', score: 67 });
    expect(of('python')).toEqual({ status: 'reject', result: 'P-P', score: 67 });
    expect(of('wrong')).toEqual({ status: 'accept', result: 'PPP', score: 100 });
    expect(of('broken')).toEqual({ status: 'compileError', result: 'Compilation Error', score: 0 });

    // Every list agrees.
    const lists = [
      await stack.expectCall(contract.getSubmissions, 200, { as: token, query: { userId } }),
      await stack.expectCall(contract.getSubmissions, 200, { query: { problemSearch: 'plus b' } }),
      await stack.expectCall(contract.getSubmissionsByUserIdAndProblemId, 200, { as: admin, params: { userId, problemId } }),
    ];
    for (const list of lists) {
      expect(list).toHaveLength(submitted.size);
      for (const row of list) expect(summary(row)).toEqual(summary(rows.get(row.id)));
    }

    // The log holds both judgings; the second one is the one shown.
    const events = await stack.deps.store.readStream(`submission-${submitted.get('wrong')!}`);
    const rejudge = events.find((event) => event.type === 'RejudgeRequested')!;
    expect(rejudge.data).toEqual({ submissionId: submitted.get('wrong'), requestedBy: admin.id });
    const verdicts = events.filter((event) => event.type === 'SubmissionJudged').map((event) => (event.data as { judging: number; result: string }));
    expect(verdicts.map((v) => [v.judging, v.result])).toEqual([
      [1, 'P-P'],
      [rejudge.streamPosition, 'PPP'],
    ]);
  });
});
