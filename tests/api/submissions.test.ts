/**
 * The Submission group without a judge: verdicts are appended here as the worker would (SubmissionJudged
 * with the judging number), so folding, rejudge staleness and every route's rules are tested directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@otog/platform/db/pool';
import type { AppendResult, NewEvent } from '@otog/platform/eventstore/event-store';
import { canSeeSubmission, checkUpload, globalListFilter, visibleProblemsFilter } from '@otog/api/modules/submissions/rules';
import { createSubmissionQueries } from '@otog/projections';
import { subtaskRows } from '@otog/api/modules/submissions/present';
import { submissionContract as contract, type Submission } from '@otog/schemas/api/submission';
import type { Notice } from '@otog/platform/notices/notice';
import { until } from '../support/until.ts';
import { DEFAULT_API_SETTINGS } from '@otog/api/http/settings';
import { startStack, type CallOptions, type Stack, type TestUser } from './support/stack.ts';

let stack: Stack;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
/** A shown problem, a hidden one. */
let shown: number;
let hidden: number;

const MAX_BYTES = 10 * 1024;
const C_SOURCE = '#include <stdio.h>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);}\n';
const PY_SOURCE = 'a, b = map(int, input().split())\nprint(a + b)\n';

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.createUser({ role: 'admin' });
  alice = await stack.createUser();
  bob = await stack.createUser();
  shown = await problem({ name: 'A Plus B', show: true });
  hidden = await problem({ name: 'Secret 100%_done', show: false });
}, 60_000);
afterAll(() => stack?.stop());

/** A problem made from its events (the problem routes are another module's). */
async function problem(options: { name: string; show: boolean; score?: number }): Promise<number> {
  const problemId = Number(await stack.deps.pool.oneFirst(sql.unsafe`SELECT nextval('problem_ids')`));
  const scope = `problem:${problemId}`;
  const appended = await stack.deps.store.append(`problem-${problemId}`, [
    { type: 'ProblemDetailsSet', scope, data: { problemId, name: options.name, sname: null, case: null } },
    { type: 'ProblemJudgingConfigured', scope, data: { problemId, score: options.score ?? 100, timeLimit: 1_000, memoryLimit: 256 } },
    { type: 'ProblemVisibilityChanged', scope, data: { problemId, show: options.show } },
  ]);
  await stack.deps.projections.waitFor('problems', { ...appended.lastPosition, scope }, 10_000);
  return problemId;
}

/** Shows or hides a problem from its event, as the admin's PATCH /problem/:id would. */
async function setShow(problemId: number, show: boolean): Promise<void> {
  const scope = `problem:${problemId}`;
  const appended = await stack.deps.store.append(`problem-${problemId}`, [{ type: 'ProblemVisibilityChanged', scope, data: { problemId, show } }]);
  await stack.deps.projections.waitFor('problems', { ...appended.lastPosition, scope }, 10_000);
}

type Form = NonNullable<CallOptions['form']>;
const cFile = (content: string | Uint8Array = C_SOURCE, filename = 'main.c'): Form => ({
  fields: { language: 'c' },
  files: { sourceCode: { filename, content, contentType: 'text/x-csrc' } },
});

function submit(user: TestUser, problemId: number, form: Form = cFile(), query: Record<string, string | number> = {}) {
  return stack.expectCall(contract.uploadFile, 200, { as: user, params: { problemId }, form, query });
}

async function refused(status: 400 | 401 | 403 | 404 | 429, user: TestUser | null, problemId: number | string, form: Form, query: Record<string, string | number> = {}) {
  return (await stack.expectCall(contract.uploadFile, status, { as: user, params: { problemId }, form, query })).message;
}

/** Appends to a submission's stream and waits for the submissions projection. */
async function appendToSubmission(submissionId: number, scope: string, events: Array<Omit<NewEvent, 'scope'>>): Promise<void> {
  const appended = await stack.deps.store.append(
    `submission-${submissionId}`,
    events.map((event) => ({ ...event, scope })),
  );
  await stack.deps.projections.waitFor('submissions', { ...appended.lastPosition, scope }, 10_000);
}

const scopeOf = (submission: Submission) => (submission.contestId === null ? `user:${submission.userId}` : `contest:${submission.contestId}`);

/** What a worker reports at the end of a judging: 'PP-' scored 67 (one subtask of three tests). */
function judgedEvent(submissionId: number, judging: number, outcome: 'accept' | 'reject' = 'reject'): Omit<NewEvent, 'scope'> {
  const last = outcome === 'accept' ? 'ACCEPTED' : 'REJECTED';
  return {
    type: 'SubmissionJudged',
    data: {
      submissionId,
      judging,
      status: outcome,
      result: outcome === 'accept' ? 'PPP' : 'PP-',
      score: outcome === 'accept' ? 100 : 67,
      timeUsed: 12,
      memUsed: 2_048,
      errmsg: null,
      subtaskResults: [
        {
          subtaskIndex: 1,
          score: outcome === 'accept' ? 3 : 2,
          fullScore: 3,
          verdicts: [
            { testcaseIndex: 1, status: 'ACCEPTED', percent: 1, timeUsed: 5, memUsed: 2_000 },
            { testcaseIndex: 2, status: 'ACCEPTED', percent: 1, timeUsed: 12, memUsed: 2_048 },
            { testcaseIndex: 3, status: last, percent: outcome === 'accept' ? 1 : 0, timeUsed: 7, memUsed: 1_900 },
          ],
        },
      ],
      judgedBy: 'test-worker',
      attempts: 1,
    },
  };
}

/** A contest submission straight from its event: the API cannot make one until contests exist. */
async function contestSubmission(user: TestUser, problemId: number, contestId: number): Promise<number> {
  const submissionId = Number(await stack.deps.pool.oneFirst(sql.unsafe`SELECT nextval('submission_ids')`));
  await appendToSubmission(submissionId, `contest:${contestId}`, [
    {
      type: 'SubmissionCreated',
      data: { submissionId, userId: user.id, problemId, contestId, language: 'cpp', sourceCode: '// contest\n', fileName: 'a.cpp' },
    },
  ]);
  return submissionId;
}

const get = (submissionId: number, as: TestUser | null = admin) => stack.expectCall(contract.getSubmission, 200, { as, params: { submissionId } });
const ids = (rows: readonly Submission[]) => rows.map((row) => row.id);

describe('POST /submission/problem/:problemId', () => {
  it('an Idempotency-Key makes a retried upload answer the first submission instead of making another', async () => {
    const withKey = (user: TestUser, problemId: number, key: string) =>
      stack.call(contract.uploadFile, { as: user, params: { problemId }, form: cFile(), headers: { 'idempotency-key': key } });
    const key = `retry-${Date.now()}`;
    const first = await withKey(alice, shown, key);
    expect(first.statusCode, first.body).toBe(200);
    // A retry, and two at the same moment: all the same submission.
    const again = await Promise.all([withKey(alice, shown, key), withKey(alice, shown, key)]);
    expect(again.map((response) => [response.statusCode, response.json().id])).toEqual([
      [200, first.json().id],
      [200, first.json().id],
    ]);
    expect(Number(await stack.deps.pool.oneFirst(sql.unsafe`SELECT count(*) FROM event_log WHERE type = 'SubmissionCreated' AND data->>'submissionId' = ${String(first.json().id)}`))).toBe(1);
    // A retry after the submission changed answers it as it is now (here shared), not as it was made.
    await stack.expectCall(contract.shareSubmission, 200, { as: alice, params: { submissionId: first.json().id }, body: { show: true } });
    expect((await withKey(alice, shown, key)).json()).toEqual({ ...first.json(), public: true });
    // Keys are per user; another key is another submission; a key reused for another problem is a conflict.
    expect((await withKey(bob, shown, key)).json().id).not.toBe(first.json().id);
    expect((await withKey(alice, shown, `${key}-2`)).json().id).not.toBe(first.json().id);
    await withKey(admin, shown, `${key}-admin`);
    const reused = await withKey(admin, hidden, `${key}-admin`);
    expect([reused.statusCode, reused.json().message]).toEqual([409, 'This Idempotency-Key was already used for a submission to another problem or contest']);
    for (const bad of ['', 'has space', 'x'.repeat(256), 'ไทย']) {
      const response = await stack.app.inject({ method: 'POST', url: `/api/submission/problem/${shown}`, headers: { authorization: `Bearer ${alice.token}`, 'idempotency-key': bad } });
      expect(response.statusCode, bad).toBe(400);
    }
  });

  it('accepts C, C++ and Python files (also the editor’s file names) and the code as a text field', async () => {
    const cases: Array<[Form, string]> = [
      [cFile(), 'c'],
      [{ fields: { language: 'cpp' }, files: { sourceCode: { filename: 'sol.cpp', content: '// cpp\n' } } }, 'cpp'],
      [{ fields: { language: 'cpp' }, files: { sourceCode: { filename: 'SOL.CC', content: '// cc\n' } } }, 'cpp'],
      [{ fields: { language: 'python' }, files: { sourceCode: { filename: 'code.py', content: PY_SOURCE } } }, 'python'],
      [{ fields: { language: 'python' }, files: { sourceCode: { filename: `${shown}.py`, content: PY_SOURCE } } }, 'python'],
      // OTOG's editor names a Python file {problemId}.python (OTOG itself refused it).
      [{ fields: { language: 'python' }, files: { sourceCode: { filename: `${shown}.python`, content: PY_SOURCE } } }, 'python'],
      [{ fields: { language: 'python', sourceCode: PY_SOURCE } }, 'python'],
      // No language field: the extension says it.
      [{ files: { sourceCode: { filename: 'x.cpp', content: '// inferred\n' } } }, 'cpp'],
    ];
    for (const [form, language] of cases) {
      const created = await submit(alice, shown, form);
      expect(created, JSON.stringify(form.files ?? form.fields)).toMatchObject({
        status: 'waiting',
        language,
        contestId: null,
        public: false,
        userId: alice.id,
        problem: { id: shown, name: 'A Plus B', timeLimit: 1_000, memoryLimit: 256, score: 100 },
        user: { id: alice.id, username: alice.username, showName: alice.showName, role: 'user', rating: null },
        submissionResult: null,
      });
      // The new row's own columns, as OTOG's create returns them.
      const { problemId, sourceCode, updateDate, ...row } = created;
      expect({ problemId, updateDate }).toEqual({ problemId: shown, updateDate: created.creationDate });
      expect(sourceCode.length).toBeGreaterThan(0);
      // Read-your-writes: readable at once.
      expect(await get(created.id, alice)).toEqual(row);
    }
  });

  it('stores the source and appends SubmissionCreated in the user’s scope with the actor', async () => {
    const created = await submit(alice, shown, cFile(C_SOURCE, 'plus.c'));
    const [event, ...rest] = await stack.deps.store.readStream(`submission-${created.id}`);
    expect(rest).toEqual([]);
    expect(event).toMatchObject({
      type: 'SubmissionCreated',
      scope: `user:${alice.id}`,
      streamPosition: 1,
      meta: { actor: alice.id },
      data: { submissionId: created.id, userId: alice.id, problemId: shown, contestId: null, language: 'c', sourceCode: C_SOURCE, fileName: 'plus.c' },
    });
    const code = await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: alice, params: { submissionId: created.id } });
    expect(code.sourceCode).toBe(C_SOURCE);
    // The judge queue has it.
    await stack.runtime.judgeTasks!.waitFor({ ...event!, scope: event!.scope }, 10_000);
    expect(await stack.deps.pool.maybeOneFirst(sql.unsafe`SELECT state FROM judge_tasks WHERE submission_id = ${created.id}`)).toBe('queued');
  });

  it('answers with the author as the account is now, not as the access token says', async () => {
    const renamed = `Bob Renamed ${bob.id}`;
    await stack.deps.pool.query(sql.unsafe`UPDATE accounts SET show_name = ${renamed} WHERE id = ${bob.id}`);
    try {
      expect((await submit(bob, shown)).user).toEqual({ id: bob.id, username: bob.username, showName: renamed, role: 'user', rating: null });
    } finally {
      await stack.deps.pool.query(sql.unsafe`UPDATE accounts SET show_name = ${bob.showName} WHERE id = ${bob.id}`);
    }
  });

  it('announces "submission N changed" to its owner once the read model has it (after-commit notice)', async () => {
    const heard: Notice[] = [];
    const off = stack.runtime.notices.subscribe((notice) => heard.push(notice));
    try {
      await stack.runtime.notices.ready();
      const created = await submit(alice, shown);
      await until('the notice arrives', () => heard.some((notice) => notice.key === String(created.id)));
      expect(heard.find((notice) => notice.key === String(created.id))).toMatchObject({ topic: 'submission', data: { userId: alice.id } });
    } finally {
      off();
    }
  });

  it('refuses a missing file, other languages and extensions that contradict the language', async () => {
    expect(await refused(400, alice, shown, { fields: { language: 'c' } })).toBe('File is required!');
    // A browser's empty file input: an unnamed, empty part.
    expect(await refused(400, alice, shown, { fields: { language: 'c' }, files: { sourceCode: { filename: '', content: '' } } })).toBe('File is required!');
    // A named file with nothing in it, or only blanks: nothing to judge.
    for (const content of ['', ' \n\t\n']) {
      expect(await refused(400, alice, shown, { fields: { language: 'c' }, files: { sourceCode: { filename: 'main.c', content } } })).toBe('The source code is empty');
    }
    const language = 'Only C C++ and Python are allowed!';
    const bad: Form[] = [
      { fields: { language: 'java' }, files: { sourceCode: { filename: 'Main.java', content: 'class Main {}' } } },
      { fields: { language: 'java' }, files: { sourceCode: { filename: 'a.c', content: C_SOURCE } } },
      { fields: { language: 'cpp' }, files: { sourceCode: { filename: 'a.py', content: PY_SOURCE } } },
      { fields: { language: 'python' }, files: { sourceCode: { filename: 'a.c', content: C_SOURCE } } },
      { fields: { language: 'c' }, files: { sourceCode: { filename: 'a.txt', content: C_SOURCE } } },
      { fields: { language: 'c' }, files: { sourceCode: { filename: 'noextension', content: C_SOURCE } } },
      { fields: { language: 'java', sourceCode: 'class Main {}' } },
      { fields: { sourceCode: C_SOURCE } },
    ];
    for (const form of bad) expect(await refused(400, alice, shown, form), JSON.stringify(form)).toBe(language);
  });

  it('refuses files over the size limit, and takes one of exactly the limit', async () => {
    expect(await refused(400, alice, shown, cFile('x'.repeat(MAX_BYTES + 1)))).toBe('File is too large!');
    expect(await refused(400, alice, shown, cFile('x'.repeat(200_000)))).toBe('File is too large!');
    expect(await refused(400, alice, shown, { fields: { language: 'c', sourceCode: 'x'.repeat(MAX_BYTES + 1) } })).toBe('File is too large!');
    // Multi-byte characters count as bytes.
    expect(await refused(400, alice, shown, cFile('ก'.repeat(MAX_BYTES / 3 + 1)))).toBe('File is too large!');
    const exact = await submit(alice, shown, cFile('/'.repeat(MAX_BYTES)));
    expect(exact.status).toBe('waiting');
  });

  it('refuses source that is not UTF-8 text', async () => {
    expect(await refused(400, alice, shown, cFile(new Uint8Array([0x69, 0x6e, 0x74, 0xff, 0xfe, 0x0a])))).toBe('Source code must be UTF-8 text');
    expect(await refused(400, alice, shown, cFile('int main(){}\u0000'))).toBe('Source code must be UTF-8 text');
  });

  it('refuses a hidden problem to users (admins may), an unknown problem and contests (none exist yet)', async () => {
    expect(await refused(400, alice, hidden, cFile())).toBe('Problem is not in contest or public!');
    expect((await submit(admin, hidden)).user.role).toBe('admin');
    expect(await refused(404, alice, 999_999, cFile())).toBe('Problem not found');
    expect(await refused(404, alice, shown, cFile(), { contestId: 1 })).toBe('Contest not found');
    expect(await refused(404, admin, hidden, cFile(), { contestId: 7 })).toBe('Contest not found');
  });

  it('refuses bad ids, non-multipart bodies and anonymous callers', async () => {
    for (const problemId of ['abc', '0', '-3', '1.5', '2147483648']) await refused(400, alice, problemId, cFile());
    for (const contestId of ['abc', '0', '2147483648']) await refused(400, alice, shown, cFile(), { contestId });
    await stack.expectCall(contract.uploadFile, 400, { as: alice, params: { problemId: shown }, body: { language: 'c', sourceCode: C_SOURCE } });
    await stack.expectCall(contract.uploadFile, 400, { as: alice, params: { problemId: shown } });
    await refused(401, null, shown, cFile());
    await stack.expectCall(contract.uploadFile, 401, { as: 'not-a-token', params: { problemId: shown }, form: cFile() });
  });
});

describe('folding the judge’s reports', () => {
  it('waiting → grading → judged; a rejudge clears the result and a stale report of the old judging changes nothing', async () => {
    const created = await submit(bob, shown);
    const scope = scopeOf(created);
    await appendToSubmission(created.id, scope, [
      { type: 'TestcaseJudged', data: { submissionId: created.id, judging: 1, testNumber: 1, outcome: { status: 'ACCEPTED', timeUsed: 5, memUsed: 2_000 } } },
    ]);
    expect((await get(created.id)).status).toBe('grading');

    await appendToSubmission(created.id, scope, [judgedEvent(created.id, 1)]);
    const judged = await get(created.id);
    expect(judged.status).toBe('reject');
    expect(judged.submissionResult).toEqual({ id: created.id, score: 67, timeUsed: 12, memUsed: 2_048, result: 'PP-', errmsg: null });

    const detail = await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: admin, params: { submissionId: created.id } });
    const base = created.id * 1_000_000;
    expect(detail.submissionResult?.subtaskResults).toEqual([
      {
        id: base + 1,
        submissionResultId: created.id,
        score: 2,
        fullScore: 3,
        subtaskIndex: 1,
        verdicts: [
          { id: base + 1, subtaskId: base + 1, status: 'ACCEPTED', percent: 1, timeUsed: 5, memUsed: 2_000, testcaseIndex: 1 },
          { id: base + 2, subtaskId: base + 1, status: 'ACCEPTED', percent: 1, timeUsed: 12, memUsed: 2_048, testcaseIndex: 2 },
          { id: base + 3, subtaskId: base + 1, status: 'REJECTED', percent: 0, timeUsed: 7, memUsed: 1_900, testcaseIndex: 3 },
        ],
      },
    ]);

    const rejudged = await stack.expectCall(contract.rejudgeSubmission, 200, { as: admin, params: { submissionId: created.id } });
    expect(rejudged).toEqual({ ...judged, status: 'waiting', submissionResult: null });
    const events = await stack.deps.store.readStream(`submission-${created.id}`);
    const request = events.at(-1)!;
    expect(request).toMatchObject({ type: 'RejudgeRequested', scope, data: { submissionId: created.id, requestedBy: admin.id }, meta: { actor: admin.id } });

    // The first judging's late reports (a worker that had not heard of the rejudge) are stale.
    await appendToSubmission(created.id, scope, [
      { type: 'TestcaseJudged', data: { submissionId: created.id, judging: 1, testNumber: 2, outcome: { status: 'ACCEPTED', timeUsed: 5, memUsed: 2_000 } } },
      judgedEvent(created.id, 1, 'accept'),
    ]);
    expect(await get(created.id)).toEqual(rejudged);

    await appendToSubmission(created.id, scope, [judgedEvent(created.id, request.streamPosition, 'accept')]);
    const again = await get(created.id);
    expect(again.status).toBe('accept');
    expect(again.submissionResult).toMatchObject({ score: 100, result: 'PPP' });
    // A late TestcaseJudged of the finished judging does not reopen it.
    await appendToSubmission(created.id, scope, [
      { type: 'TestcaseJudged', data: { submissionId: created.id, judging: request.streamPosition, testNumber: 3, outcome: { status: 'ACCEPTED', timeUsed: 1, memUsed: 1 } } },
    ]);
    expect((await get(created.id)).status).toBe('accept');
  });

  it('a deleted problem takes its submissions with it', async () => {
    const doomed = await problem({ name: 'Doomed', show: true });
    const created = await submit(alice, doomed);
    const scope = `problem:${doomed}`;
    const appended = await stack.deps.store.append(`problem-${doomed}`, [{ type: 'ProblemDeleted', scope, data: { problemId: doomed } }]);
    await stack.deps.projections.waitFor('submissions', { ...appended.lastPosition, scope }, 10_000);
    await stack.expectCall(contract.getSubmission, 404, { as: admin, params: { submissionId: created.id } });
  });
});

describe('lists', () => {
  let problem2: number;
  let aliceOwn: number[];
  let bobOwn: number[];
  let adminOwn: number;
  let aliceContest: number;

  beforeAll(async () => {
    problem2 = await problem({ name: 'Graph Coloring', show: true });
    aliceOwn = [(await submit(alice, problem2)).id, (await submit(alice, problem2)).id];
    bobOwn = [(await submit(bob, problem2)).id];
    adminOwn = (await submit(admin, problem2)).id;
    aliceContest = await contestSubmission(alice, problem2, 42);
  });

  const list = (as: TestUser | null, query: Record<string, string | number> = {}) => stack.expectCall(contract.getSubmissions, 200, { as, query });
  const onProblem2 = (rows: readonly Submission[]) => ids(rows.filter((row) => row.problem.id === problem2));

  it('GET /submission: anonymous and users see non-contest submissions of non-admins, newest first', async () => {
    for (const as of [null, bob]) {
      const rows = await list(as, { problemSearch: 'graph' });
      expect(onProblem2(rows)).toEqual([...bobOwn, ...aliceOwn].sort((a, b) => b - a));
      expect(rows.every((row) => row.user.role === 'user' && row.contestId === null)).toBe(true);
    }
  });

  it('GET /submission: admins see every non-contest submission; userId narrows it', async () => {
    expect(onProblem2(await list(admin, { problemSearch: 'GRAPH' }))).toEqual([adminOwn, ...bobOwn, ...aliceOwn].sort((a, b) => b - a));
    expect(onProblem2(await list(admin, { userId: alice.id }))).toEqual([...aliceOwn].reverse());
    expect(onProblem2(await list(admin, { userId: admin.id }))).toEqual([adminOwn]);
  });

  it('GET /submission: your own list (userId = you) includes your contest submissions; another’s does not', async () => {
    expect(onProblem2(await list(alice, { userId: alice.id }))).toEqual([aliceContest, ...[...aliceOwn].reverse()]);
    expect(onProblem2(await list(bob, { userId: alice.id }))).toEqual([...aliceOwn].reverse());
    expect(onProblem2(await list(null, { userId: alice.id }))).toEqual([...aliceOwn].reverse());
    // Admins' submissions stay out of others' lists even when asked for by id.
    expect(onProblem2(await list(bob, { userId: admin.id }))).toEqual([]);
  });

  it('GET /submission: problemSearch matches a part of the name, case-insensitively, with % and _ literal', async () => {
    const secret = await submit(admin, hidden);
    expect(ids(await list(admin, { problemSearch: '100%_' }))).toContain(secret.id);
    expect((await list(admin, { problemSearch: '100%_' })).every((row) => row.problem.id === hidden)).toBe(true);
    expect(await list(admin, { problemSearch: '%' })).toEqual((await list(admin, { problemSearch: '100%' })));
    expect(await list(admin, { problemSearch: 'no such problem' })).toEqual([]);
  });

  it('shows the user as they are now (accounts), not as when they submitted', async () => {
    const renamed = `Bob Renamed ${bob.id}`;
    await stack.deps.pool.query(sql.unsafe`UPDATE accounts SET show_name = ${renamed} WHERE id = ${bob.id}`);
    try {
      expect((await get(bobOwn[0]!)).user.showName).toBe(renamed);
    } finally {
      await stack.deps.pool.query(sql.unsafe`UPDATE accounts SET show_name = ${bob.showName} WHERE id = ${bob.id}`);
    }
  });

  it('GET /submission/user/:userId: admins and the user see contest submissions, others do not', async () => {
    const forAlice = (as: TestUser | null) => stack.expectCall(contract.getSubmissionsByUserId, 200, { as, params: { userId: alice.id } });
    expect(onProblem2(await forAlice(admin))).toEqual([aliceContest, ...[...aliceOwn].reverse()]);
    expect(onProblem2(await forAlice(alice))).toEqual([aliceContest, ...[...aliceOwn].reverse()]);
    expect(onProblem2(await forAlice(bob))).toEqual([...aliceOwn].reverse());
    expect(onProblem2(await forAlice(null))).toEqual([...aliceOwn].reverse());
    expect((await forAlice(null)).every((row) => row.userId === alice.id)).toBe(true);
  });

  it('GET /submission/user/:userId/problem/:problemId: one problem, 10 by default', async () => {
    const call = (as: TestUser, query: Record<string, number> = {}) =>
      stack.expectCall(contract.getSubmissionsByUserIdAndProblemId, 200, { as, params: { userId: alice.id, problemId: problem2 }, query });
    expect(ids(await call(alice))).toEqual([aliceContest, ...[...aliceOwn].reverse()]);
    expect(ids(await call(bob))).toEqual([...aliceOwn].reverse());
    expect(ids(await call(admin, { limit: 1, offset: aliceContest }))).toEqual([aliceOwn[1]]);
    // alice has many on the shown problem from the upload tests.
    expect((await call(alice)).length).toBeLessThanOrEqual(10);
    const many = await stack.expectCall(contract.getSubmissionsByUserIdAndProblemId, 200, { as: alice, params: { userId: alice.id, problemId: shown } });
    expect(many).toHaveLength(10);
    expect(many.every((row) => row.problem.id === shown && row.userId === alice.id)).toBe(true);
    await stack.expectCall(contract.getSubmissionsByUserIdAndProblemId, 401, { params: { userId: alice.id, problemId: shown } });
  });

  it('GET /submission/latest and /submission/problem/:problemId/latest: the caller’s newest, with source and result', async () => {
    const latest = await stack.expectCall(contract.getLatestSubmissionByUserId, 200, { as: alice });
    expect(latest.submission?.id).toBe(Math.max(...aliceOwn, aliceContest));
    expect(latest.submission?.sourceCode).toBe('// contest\n');
    const forProblem = await stack.expectCall(contract.getLatestSubmissionByProblemId, 200, { as: bob, params: { problemId: problem2 } });
    expect(forProblem.submission?.id).toBe(bobOwn[0]);
    expect(forProblem.submission?.sourceCode).toBe(C_SOURCE);
    const fresh = await stack.createUser();
    expect(await stack.expectCall(contract.getLatestSubmissionByUserId, 200, { as: fresh })).toEqual({ submission: null });
    expect(await stack.expectCall(contract.getLatestSubmissionByProblemId, 200, { as: alice, params: { problemId: hidden } })).toEqual({ submission: null });
    await stack.expectCall(contract.getLatestSubmissionByUserId, 401, {});
    await stack.expectCall(contract.getLatestSubmissionByProblemId, 401, { params: { problemId: problem2 } });
    await stack.expectCall(contract.getLatestSubmissionByProblemId, 400, { as: alice, params: { problemId: 'x' } });
  });

  it('cursor pagination: 89 by default; pages chain by the last id without duplicates or gaps', async () => {
    // Enough submissions for more than one default page, straight from events (one transaction).
    const bulk = await problem({ name: 'Bulk', show: true });
    const created: number[] = [];
    let last: AppendResult | undefined;
    await stack.deps.pool.transaction(async (tx) => {
      for (let i = 0; i < 95; i += 1) {
        const submissionId = Number(await tx.oneFirst(sql.unsafe`SELECT nextval('submission_ids')`));
        created.push(submissionId);
        last = await stack.deps.store.appendInTransaction(tx, `submission-${submissionId}`, [
          {
            type: 'SubmissionCreated',
            scope: `user:${bob.id}`,
            data: { submissionId, userId: bob.id, problemId: bulk, contestId: null, language: 'c', sourceCode: `// ${i}\n`, fileName: 'a.c' },
          },
        ]);
      }
    });
    await stack.deps.projections.waitFor('submissions', { ...last!.lastPosition, scope: `user:${bob.id}` }, 10_000);

    const all = ids(await list(admin, { limit: 1_000 }));
    expect(all).toEqual([...all].sort((a, b) => b - a));
    expect(all).toEqual(expect.arrayContaining(created));
    expect(await list(admin)).toHaveLength(89);

    for (const limit of [1, 7, 89]) {
      const seen: number[] = [];
      let offset: number | undefined;
      for (;;) {
        const page = ids(await list(admin, { limit, ...(offset === undefined ? {} : { offset }) }));
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(limit);
        seen.push(...page);
        offset = page.at(-1);
      }
      expect(seen, `limit ${limit}`).toEqual(all);
    }
    const bulkPage = ids(await list(admin, { problemSearch: 'bulk', offset: created[50]!, limit: 10 }));
    expect(bulkPage).toEqual(created.slice(40, 50).reverse());
  });

  it('refuses malformed pagination, ids and search values with 400', async () => {
    const bad: Array<Record<string, string | number>> = [
      { limit: 0 },
      { limit: 1_001 },
      { limit: 'ten' },
      { limit: 2.5 },
      { offset: 0 },
      { offset: -1 },
      { offset: 'abc' },
      { offset: 2_147_483_648 },
      { userId: 'me' },
      { userId: 0 },
      { problemSearch: 'x'.repeat(201) },
    ];
    for (const query of bad) await stack.expectCall(contract.getSubmissions, 400, { as: admin, query });
    for (const userId of ['abc', '0', '2147483648']) await stack.expectCall(contract.getSubmissionsByUserId, 400, { params: { userId } });
    await stack.expectCall(contract.getSubmissionsByUserId, 400, { params: { userId: alice.id }, query: { limit: 0 } });
    await stack.expectCall(contract.getSubmissionsByUserIdAndProblemId, 400, { as: alice, params: { userId: alice.id, problemId: 'p' } });
    await stack.expectCall(contract.getSubmissionsByUserIdAndProblemId, 400, { as: alice, params: { userId: alice.id, problemId: shown }, query: { offset: 'x' } });
    for (const submissionId of ['abc', '0', '-1', '1e3x', '2147483648']) {
      await stack.expectCall(contract.getSubmission, 400, { params: { submissionId } });
      await stack.expectCall(contract.getSubmissionWithSourceCode, 400, { params: { submissionId } });
      await stack.expectCall(contract.shareSubmission, 400, { as: alice, params: { submissionId }, body: { show: true } });
      await stack.expectCall(contract.rejudgeSubmission, 400, { as: admin, params: { submissionId } });
    }
    await stack.expectCall(contract.getSubmissions, 401, { as: 'garbage' });
  });

  it('contest lists answer 404 "Contest not found" until contests exist; bad ids 400; the admin one is for admins', async () => {
    for (const as of [alice, admin]) {
      expect(await stack.expectCall(contract.getContestSubmissions, 404, { as, params: { contestId: 42 }, query: { userId: alice.id } })).toEqual({
        message: 'Contest not found',
      });
    }
    expect(await stack.expectCall(contract.getContestSubmissionsForAdmin, 404, { as: admin, params: { contestId: 42 }, query: { userSearch: 'a' } })).toEqual({
      message: 'Contest not found',
    });
    await stack.expectCall(contract.getContestSubmissionsForAdmin, 403, { as: alice, params: { contestId: 42 } });
    await stack.expectCall(contract.getContestSubmissionsForAdmin, 401, { params: { contestId: 42 } });
    await stack.expectCall(contract.getContestSubmissions, 401, { params: { contestId: 42 } });
    await stack.expectCall(contract.getContestSubmissions, 400, { as: alice, params: { contestId: 'x' } });
    await stack.expectCall(contract.getContestSubmissions, 400, { as: alice, params: { contestId: 42 }, query: { problemId: 'x' } });
    await stack.expectCall(contract.getContestSubmissionsForAdmin, 400, { as: admin, params: { contestId: 0 } });
    await stack.expectCall(contract.getContestSubmissionsForAdmin, 400, { as: admin, params: { contestId: 42 }, query: { limit: 5_000 } });
  });

  describe('GET /submission/:submissionId', () => {
    it('answers the submission (no source) to anyone; 404 for an unknown id', async () => {
      const row = await get(bobOwn[0]!, null);
      expect(row).toMatchObject({ id: bobOwn[0], userId: bob.id, problem: { id: problem2, name: 'Graph Coloring' } });
      expect(row).not.toHaveProperty('sourceCode');
      expect(await stack.expectCall(contract.getSubmission, 404, { params: { submissionId: 2_000_000_000 } })).toEqual({ message: 'Submission not found' });
    });

    it('hides another user’s contest submission from non-admins', async () => {
      expect((await get(aliceContest, alice)).contestId).toBe(42);
      expect((await get(aliceContest, admin)).contestId).toBe(42);
      await stack.expectCall(contract.getSubmission, 404, { as: bob, params: { submissionId: aliceContest } });
      await stack.expectCall(contract.getSubmission, 404, { params: { submissionId: aliceContest } });
    });
  });

  describe('code and sharing', () => {
    const code = (submissionId: number, as: TestUser | null) => stack.call(contract.getSubmissionWithSourceCode, { as, params: { submissionId } });

    it('GET /code: the owner and admins; 403 for others and anonymous; 404 unknown', async () => {
      const [mine] = aliceOwn;
      expect((await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: alice, params: { submissionId: mine! } })).sourceCode).toBe(C_SOURCE);
      expect((await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: admin, params: { submissionId: mine! } })).id).toBe(mine);
      expect(await stack.expectCall(contract.getSubmissionWithSourceCode, 403, { as: bob, params: { submissionId: mine! } })).toEqual({ message: 'Forbidden' });
      await stack.expectCall(contract.getSubmissionWithSourceCode, 403, { params: { submissionId: mine! } });
      await stack.expectCall(contract.getSubmissionWithSourceCode, 404, { as: admin, params: { submissionId: 2_000_000_000 } });
      expect((await code(mine!, alice)).json()).toMatchObject({ submissionResult: null });
    });

    it('PATCH /share: the owner shares, then anyone may read the code; unsharing closes it again', async () => {
      const mine = aliceOwn[0]!;
      expect(await stack.expectCall(contract.shareSubmission, 200, { as: alice, params: { submissionId: mine }, body: { show: true } })).toEqual({ public: true });
      expect((await get(mine, null)).public).toBe(true);
      expect((await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: bob, params: { submissionId: mine } })).sourceCode).toBe(C_SOURCE);
      expect((await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { params: { submissionId: mine } })).userId).toBe(alice.id);
      // Sharing again is a no-op (no new event).
      const before = (await stack.deps.store.readStream(`submission-${mine}`)).length;
      await stack.expectCall(contract.shareSubmission, 200, { as: alice, params: { submissionId: mine }, body: { show: true } });
      expect((await stack.deps.store.readStream(`submission-${mine}`)).length).toBe(before);
      // An admin may unshare anyone's.
      expect(await stack.expectCall(contract.shareSubmission, 200, { as: admin, params: { submissionId: mine }, body: { show: false } })).toEqual({ public: false });
      expect((await code(mine, bob)).statusCode).toBe(403);
      const events = await stack.deps.store.readStream(`submission-${mine}`);
      expect(events.filter((e) => e.type === 'SubmissionShared').map((e) => [e.data, e.meta])).toEqual([
        [{ submissionId: mine, public: true }, { actor: alice.id }],
        [{ submissionId: mine, public: false }, { actor: admin.id }],
      ]);
    });

    it('PATCH /share: 403 for another user, 404 unknown, 401 anonymous, 400 without show', async () => {
      expect(await stack.expectCall(contract.shareSubmission, 403, { as: bob, params: { submissionId: aliceOwn[0]! }, body: { show: true } })).toEqual({ message: 'Forbidden' });
      await stack.expectCall(contract.shareSubmission, 404, { as: alice, params: { submissionId: 2_000_000_000 }, body: { show: true } });
      await stack.expectCall(contract.shareSubmission, 401, { params: { submissionId: aliceOwn[0]! }, body: { show: true } });
      for (const body of [{}, { show: 'yes' }, undefined]) await stack.expectCall(contract.shareSubmission, 400, { as: alice, params: { submissionId: aliceOwn[0]! }, body });
    });
  });

  describe('rejudge', () => {
    it('PATCH /submission/:id/rejudge: admins only; 404 unknown', async () => {
      await stack.expectCall(contract.rejudgeSubmission, 403, { as: alice, params: { submissionId: aliceOwn[0]! } });
      await stack.expectCall(contract.rejudgeSubmission, 401, { params: { submissionId: aliceOwn[0]! } });
      expect(await stack.expectCall(contract.rejudgeSubmission, 404, { as: admin, params: { submissionId: 2_000_000_000 } })).toEqual({ message: 'Submission not found' });
    });

    it('PATCH /submission/problem/:id/rejudge: every submission of the problem, contest ones too, back to waiting', async () => {
      const all = [...aliceOwn, ...bobOwn, adminOwn, aliceContest];
      for (const submissionId of all) {
        const row = await get(submissionId);
        await appendToSubmission(submissionId, scopeOf(row), [judgedEvent(submissionId, 1, 'accept')]);
        expect((await get(submissionId)).status).toBe('accept');
      }
      const answer = await stack.expectCall(contract.rejudgeProblem, 200, { as: admin, params: { problemId: problem2 } });
      expect(answer.message).toMatch(/5 submissions/);
      for (const submissionId of all) {
        const row = await get(submissionId);
        expect(row, String(submissionId)).toMatchObject({ status: 'waiting', submissionResult: null });
        const last = (await stack.deps.store.readStream(`submission-${submissionId}`)).at(-1)!;
        expect(last).toMatchObject({ type: 'RejudgeRequested', scope: scopeOf(row), data: { submissionId, requestedBy: admin.id } });
      }
      // The judge queue takes them again.
      const states = await stack.deps.pool.anyFirst(sql.unsafe`
        SELECT state FROM judge_tasks WHERE submission_id = ANY(${sql.array(all, 'int4')})`);
      expect(states).toHaveLength(all.length);
    });

    it('PATCH /submission/problem/:id/rejudge: 404 unknown problem, admins only, 400 bad id', async () => {
      expect(await stack.expectCall(contract.rejudgeProblem, 404, { as: admin, params: { problemId: 999_999 } })).toEqual({ message: 'Problem not found' });
      await stack.expectCall(contract.rejudgeProblem, 403, { as: alice, params: { problemId: problem2 } });
      await stack.expectCall(contract.rejudgeProblem, 400, { as: admin, params: { problemId: 'abc' } });
      // A problem nobody submitted to: nothing to do.
      const empty = await problem({ name: 'Empty', show: true });
      expect((await stack.expectCall(contract.rejudgeProblem, 200, { as: admin, params: { problemId: empty } })).message).toMatch(/0 submissions/);
    });
  });
});

describe('submissions to hidden problems', () => {
  // `owner` submitted to `later` while it was shown, then it was hidden; their `open` ones stay shown.
  let owner: TestUser;
  let other: TestUser;
  let open: number;
  let later: number;
  let shownIds: number[];
  let hiddenIds: number[];
  let adminHidden: number;

  const NOT_FOUND = { message: 'Submission not found' };
  const newestFirst = (list: readonly number[]) => [...list].sort((a, b) => b - a);
  const nonAdmins = () => [null, owner, other];

  beforeAll(async () => {
    owner = await stack.createUser();
    other = await stack.createUser();
    open = await problem({ name: 'Open Problem', show: true });
    later = await problem({ name: 'Later Hidden', show: true });
    shownIds = [(await submit(owner, open)).id, (await submit(owner, open)).id];
    hiddenIds = [(await submit(owner, later)).id, (await submit(owner, later)).id];
    await appendToSubmission(hiddenIds[0]!, `user:${owner.id}`, [judgedEvent(hiddenIds[0]!, 1)]);
    await setShow(later, false);
    adminHidden = (await submit(admin, later)).id;
  });

  it('GET /submission/:id: 404 to anonymous, other users and the owner; admins see it; shown problems unaffected', async () => {
    for (const as of nonAdmins()) {
      for (const submissionId of [...hiddenIds, adminHidden]) {
        expect(await stack.expectCall(contract.getSubmission, 404, { as, params: { submissionId } }), `${as?.username} ${submissionId}`).toEqual(NOT_FOUND);
      }
      for (const submissionId of shownIds) expect((await get(submissionId, as)).problem.id).toBe(open);
    }
    expect(await get(hiddenIds[0]!, admin)).toMatchObject({ userId: owner.id, problem: { id: later, name: 'Later Hidden' }, submissionResult: { score: 67 } });
    expect((await get(adminHidden, admin)).problem.id).toBe(later);
  });

  it('GET /code and PATCH /share: 404 to non-admins even once shared; admins read and share; shown problems unaffected', async () => {
    expect(await stack.expectCall(contract.shareSubmission, 200, { as: admin, params: { submissionId: hiddenIds[0]! }, body: { show: true } })).toEqual({ public: true });
    for (const as of nonAdmins()) {
      for (const submissionId of hiddenIds) {
        expect(await stack.expectCall(contract.getSubmissionWithSourceCode, 404, { as, params: { submissionId } }), `${as?.username} ${submissionId}`).toEqual(NOT_FOUND);
      }
    }
    for (const as of [owner, other]) {
      expect(await stack.expectCall(contract.shareSubmission, 404, { as, params: { submissionId: hiddenIds[1]! }, body: { show: true } })).toEqual(NOT_FOUND);
    }
    expect((await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: admin, params: { submissionId: hiddenIds[1]! } })).sourceCode).toBe(C_SOURCE);
    expect(await stack.expectCall(contract.shareSubmission, 200, { as: admin, params: { submissionId: hiddenIds[1]! }, body: { show: false } })).toEqual({ public: false });
    expect((await stack.expectCall(contract.getSubmissionWithSourceCode, 200, { as: owner, params: { submissionId: shownIds[0]! } })).sourceCode).toBe(C_SOURCE);
    await stack.expectCall(contract.getSubmissionWithSourceCode, 403, { as: other, params: { submissionId: shownIds[0]! } });
  });

  it('GET /submission and /submission/user/:id(/problem/:id): left out for non-admins, in SQL (pages stay full); admins see them', async () => {
    const all = { limit: 1_000 };
    const byUser = (as: TestUser | null, query: Record<string, number> = all) =>
      stack.expectCall(contract.getSubmissionsByUserId, 200, { as, params: { userId: owner.id }, query });
    const global = (as: TestUser | null, query: Record<string, string | number> = {}) => stack.expectCall(contract.getSubmissions, 200, { as, query: { ...all, ...query } });
    const onLater = (as: TestUser) => stack.expectCall(contract.getSubmissionsByUserIdAndProblemId, 200, { as, params: { userId: owner.id, problemId: later } });

    for (const as of nonAdmins()) {
      const who = as?.username ?? 'anonymous';
      expect(ids(await byUser(as)), who).toEqual(newestFirst(shownIds));
      expect(ids(await global(as, { userId: owner.id })), who).toEqual(newestFirst(shownIds));
      const everyone = await global(as);
      expect(everyone.filter((row) => row.problem.id === later), who).toEqual([]);
      expect(ids(everyone), who).toEqual(expect.arrayContaining(shownIds));
      expect(await global(as, { problemSearch: 'later hidden' }), who).toEqual([]);
      // The newest of the owner's are hidden: a page of one still holds the newest visible one.
      expect(ids(await byUser(as, { limit: 1 })), who).toEqual([shownIds[1]]);
      expect(ids(await global(as, { userId: owner.id, limit: 1 })), who).toEqual([shownIds[1]]);
    }
    for (const as of [owner, other]) expect(await onLater(as)).toEqual([]);

    const everyOwned = newestFirst([...shownIds, ...hiddenIds]);
    expect(ids(await byUser(admin))).toEqual(everyOwned);
    expect(ids(await global(admin, { userId: owner.id }))).toEqual(everyOwned);
    expect(ids(await global(admin, { problemSearch: 'later hidden' }))).toEqual(newestFirst([...hiddenIds, adminHidden]));
    expect(ids(await onLater(admin))).toEqual(newestFirst(hiddenIds));
  });

  it('GET /submission/latest and /problem/:id/latest: the newest the caller may see', async () => {
    expect((await stack.expectCall(contract.getLatestSubmissionByUserId, 200, { as: owner })).submission?.id).toBe(shownIds[1]);
    expect(await stack.expectCall(contract.getLatestSubmissionByProblemId, 200, { as: owner, params: { problemId: later } })).toEqual({ submission: null });
    expect((await stack.expectCall(contract.getLatestSubmissionByProblemId, 200, { as: owner, params: { problemId: open } })).submission?.id).toBe(shownIds[1]);
    expect((await stack.expectCall(contract.getLatestSubmissionByUserId, 200, { as: admin })).submission).toMatchObject({ id: adminHidden, problem: { id: later } });
    expect((await stack.expectCall(contract.getLatestSubmissionByProblemId, 200, { as: admin, params: { problemId: later } })).submission?.id).toBe(adminHidden);
  });

  it('the list query lets through the hidden problems the contest context allows', async () => {
    const queries = createSubmissionQueries(stack.deps.pool);
    const list = (hiddenAllowed: number[]) => queries.list({ userId: owner.id, visibleProblems: { hiddenAllowed } }, { limit: 100 });
    expect((await list([])).map((row) => row.id)).toEqual(newestFirst(shownIds));
    expect((await list([later])).map((row) => row.id)).toEqual(newestFirst([...shownIds, ...hiddenIds]));
  });

  it('showing the problem again shows its submissions again', async () => {
    await setShow(later, true);
    try {
      expect((await get(hiddenIds[1]!, other)).problem).toMatchObject({ id: later, name: 'Later Hidden' });
      expect(ids(await stack.expectCall(contract.getSubmissionsByUserId, 200, { params: { userId: owner.id } }))).toEqual(newestFirst([...shownIds, ...hiddenIds]));
    } finally {
      await setShow(later, false);
    }
  });
});

describe('upload rate limit', () => {
  let limited: Stack;
  beforeAll(async () => {
    limited = await startStack({ settings: { rateLimits: { ...DEFAULT_API_SETTINGS.rateLimits, submit: { max: 2, windowMs: 60_000 } } } });
  }, 60_000);
  afterAll(() => limited?.stop());

  it('counts uploads per user: the third in the window is a 429, another user is not affected', async () => {
    const [first, second] = [await limited.createUser(), await limited.createUser()];
    const problemId = 1;
    const scope = `problem:${problemId}`;
    const appended = await limited.deps.store.append(`problem-${problemId}`, [
      { type: 'ProblemDetailsSet', scope, data: { problemId, name: 'Limited', sname: null, case: null } },
      { type: 'ProblemVisibilityChanged', scope, data: { problemId, show: true } },
    ]);
    await limited.deps.projections.waitFor('problems', { ...appended.lastPosition, scope }, 10_000);
    const send = (user: TestUser) => limited.expectCall(contract.uploadFile, 200, { as: user, params: { problemId }, form: cFile() });
    await send(first);
    await send(first);
    const refusal = await limited.expectCall(contract.uploadFile, 429, { as: first, params: { problemId }, form: cFile() });
    expect(refusal.message).toMatch(/Too many requests/);
    await send(second);
  });
});

describe('rules (pure)', () => {
  it('checkUpload: language from the field or the extension; both must agree', () => {
    const check = (language: string | undefined, fileName: string | null, source: string | undefined = 'x') => checkUpload({ language, fileName, source, maxBytes: 10 });
    expect(check('cpp', 'a.cc')).toEqual({ ok: true, language: 'cpp', sourceCode: 'x', fileName: 'a.cc' });
    expect(check(undefined, 'a.PY')).toMatchObject({ ok: true, language: 'python' });
    expect(check('python', null)).toMatchObject({ ok: true, language: 'python', fileName: null });
    expect(check('c', 'a.cpp')).toMatchObject({ ok: false });
    expect(check(undefined, null)).toMatchObject({ ok: false, message: 'Only C C++ and Python are allowed!' });
    expect(checkUpload({ language: 'c', fileName: 'a.c', source: undefined, maxBytes: 10 })).toMatchObject({ ok: false, message: 'File is required!' });
    expect(check('c', 'a.c', 'x'.repeat(11))).toMatchObject({ ok: false, message: 'File is too large!' });
    expect(check('c', `${'n'.repeat(300)}.c`)).toMatchObject({ ok: false });
  });

  const user = { id: 5, username: 'u', showName: 'U', role: 'user' as const, rating: null };
  const adminUser = { ...user, id: 6, role: 'admin' as const };

  it('globalListFilter: OTOG’s visibility by caller', () => {
    const shownOnly = { visibleProblems: { hiddenAllowed: [] } };
    expect(globalListFilter(null, {})).toEqual({ nonContest: true, ofUsersOnly: true, ...shownOnly });
    expect(globalListFilter(user, { userId: 5, problemSearch: '  ' })).toEqual({ userId: 5, ...shownOnly });
    expect(globalListFilter(user, { userId: 7 })).toEqual({ userId: 7, nonContest: true, ofUsersOnly: true, ...shownOnly });
    expect(globalListFilter(adminUser, { problemSearch: 'ab' })).toEqual({ problemSearch: 'ab', nonContest: true });
  });

  it('hidden problems: admins, and users the contest context allows (never anonymous)', () => {
    const context = { runningContestProblemIds: new Set([3]) };
    expect(visibleProblemsFilter(adminUser)).toEqual({});
    expect(visibleProblemsFilter(null, context)).toEqual({ visibleProblems: { hiddenAllowed: [] } });
    expect(visibleProblemsFilter(user, context)).toEqual({ visibleProblems: { hiddenAllowed: [3] } });
    const facts = { userId: 5, problemId: 3, problemShow: false, contestId: null, public: true };
    expect(canSeeSubmission(user, facts)).toBe(false);
    expect(canSeeSubmission(null, facts, context)).toBe(false);
    expect(canSeeSubmission(adminUser, facts)).toBe(true);
    expect(canSeeSubmission(user, facts, context)).toBe(true);
    expect(canSeeSubmission(null, { ...facts, problemShow: true })).toBe(true);
  });

  it('subtaskRows: subtasks and verdicts sorted, ids derived from the submission id', () => {
    const rows = subtaskRows(7, [
      { subtaskIndex: 2, score: 0, fullScore: 1, verdicts: [{ testcaseIndex: 1, status: 'RUNTIME_ERROR', percent: 0, timeUsed: 1, memUsed: 2, runtimeErrorKind: 'MEMORY_LIMIT_EXCEEDED' }] },
      {
        subtaskIndex: 1,
        score: 1,
        fullScore: 1,
        verdicts: [
          { testcaseIndex: 2, status: 'ACCEPTED', percent: 1, timeUsed: 1, memUsed: 2 },
          { testcaseIndex: 1, status: 'ACCEPTED', percent: 1, timeUsed: 1, memUsed: 2 },
        ],
      },
    ]);
    expect(rows.map((r) => [r.id, r.subtaskIndex, r.verdicts.map((v) => [v.id, v.testcaseIndex, v.subtaskId])])).toEqual([
      [7_000_001, 1, [[7_000_001, 1, 7_000_001], [7_000_002, 2, 7_000_001]]],
      [7_000_002, 2, [[7_000_003, 1, 7_000_002]]],
    ]);
    expect(rows[1]!.verdicts[0]!.runtimeErrorKind).toBe('MEMORY_LIMIT_EXCEEDED');
  });
});
