/**
 * A contest end to end with a real judge worker in the sandbox: an admin makes two hidden problems and a
 * running bestSubmission contest, three users submit real C++ and Python (right, partly right, not
 * compiling), the scoreboard, score histories and prizes come out right; then the admin replaces one
 * problem's test data and rejudges it, and the board and prizes move to the new right values.
 */
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contestContract, type Scoreboard } from '@otog/schemas/api/contest';
import { problemContract } from '@otog/schemas/api/problem';
import { submissionContract } from '@otog/schemas/api/submission';
import { startStack, type Stack, type TestUser } from './support/stack.ts';

const FINAL = new Set(['accept', 'reject', 'compileError', 'judgeError']);
const DEADLINE_MS = 120_000;
const HOUR = 3_600_000;

const SOURCES = {
  plus: { language: 'cpp', code: '#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n' },
  plusPython: { language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)\n' },
  // Wrong on test 2 (a = 2): right again once the test data says 0 there.
  plusWrong: { language: 'cpp', code: '#include <cstdio>\nint main(){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a==2?0:a+b);}\n' },
  broken: { language: 'cpp', code: 'int main() { return missing_symbol; }\n' },
  double: { language: 'python', code: 'n = int(input())\nprint(2 * n)\n' },
  // Wrong on test 2 (n = 2).
  doubleWrong: { language: 'python', code: 'n = int(input())\nprint(0 if n == 2 else 2 * n)\n' },
} as const;
type Source = keyof typeof SOURCES;

const zip = (files: Record<string, string>) => zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));
/** Tests i: "i i+1" → 2i+1, with some expected outputs replaced. */
const plusData = (override: Record<number, string> = {}) =>
  zip(Object.fromEntries([1, 2, 3].flatMap((i) => [[`${i}.in`, `${i} ${i + 1}\n`], [`${i}.sol`, override[i] ?? `${2 * i + 1}\n`]])));
const doubleData = () => zip({ '1.in': '1\n', '1.sol': '2\n', '2.in': '2\n', '2.sol': '4\n' });

let stack: Stack;
let admin: TestUser;
let users: TestUser[];
let contestId: number;
let plus: number;
let double: number;
const submitted: Array<{ user: TestUser; problem: number; source: Source; id: number }> = [];

beforeAll(async () => {
  stack = await startStack({ worker: { firstUid: 61400 } });
  admin = await stack.createUser({ role: 'admin' });
  users = [await stack.createUser(), await stack.createUser(), await stack.createUser()];
}, 120_000);
afterAll(() => stack?.stop());

async function createProblem(name: string, score: number, data: Uint8Array): Promise<number> {
  const created = await stack.expectCall(problemContract.createProblem, 201, {
    as: admin,
    form: {
      fields: { name, sname: name.toLowerCase(), score: String(score), timeLimit: '1', memoryLimit: '256' },
      files: { zip: { filename: 'data.zip', content: data, contentType: 'application/zip' } },
    },
  });
  return created.id;
}

async function submit(user: TestUser, problem: number, source: Source): Promise<number> {
  const { language, code } = SOURCES[source];
  const created = await stack.expectCall(submissionContract.uploadFile, 200, {
    as: user,
    params: { problemId: problem },
    query: { contestId },
    form: { fields: { language }, files: { sourceCode: { filename: `${problem}.${language}`, content: code } } },
  });
  expect(created.contestId).toBe(contestId);
  submitted.push({ user, problem, source, id: created.id });
  return created.id;
}

/** Polls until every contest submission has a final status, then until the board has folded them. */
async function allJudged(): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const rows = await stack.expectCall(submissionContract.getContestSubmissionsForAdmin, 200, { as: admin, params: { contestId } });
    if (rows.length === submitted.length && rows.every((row) => FINAL.has(row.status))) break;
    if (Date.now() > deadline) throw new Error(`not judged in time: ${rows.map((row) => `${row.id}:${row.status}`).join(' ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const head = await stack.deps.store.headPosition();
  await stack.deps.projections.waitFor('contest_scores', { ...head, scope: `contest:${contestId}` }, 20_000);
}

const board = () => stack.expectCall(contestContract.getContestScoreboard, 200, { as: users[0]!, params: { contestId } });
const standing = (scoreboard: Scoreboard) =>
  scoreboard.userContest.map((row) => ({
    user: users.indexOf(users.find((user) => user.id === row.userId)!),
    rank: row.rank,
    total: row.totalScore,
    scores: Object.fromEntries(row.contestScores.map((cell) => [cell.problemId === plus ? 'plus' : 'double', cell.score])),
  }));
const idOf = (user: number, source: Source) => submitted.find((s) => s.user === users[user] && s.source === source)!.id;

describe('a contest with a real judge', () => {
  it('an admin makes two hidden problems and a running contest with them', async () => {
    plus = await createProblem('Plus', 100, plusData());
    double = await createProblem('Double', 50, doubleData());
    const now = Date.now();
    const contest = await stack.expectCall(contestContract.createContest, 200, {
      as: admin,
      body: {
        name: 'รอบสด',
        mode: 'unrated',
        gradingMode: 'bestSubmission',
        scoreboardPolicy: 'DURING_CONTEST',
        timeStart: new Date(now - HOUR).toISOString(),
        timeEnd: new Date(now + HOUR).toISOString(),
        announce: null,
      },
    });
    contestId = contest.id;
    await stack.expectCall(contestContract.putProblemToContest, 200, { as: admin, params: { contestId }, body: [{ problemId: plus }, { problemId: double }] });
    // Hidden problems open to the contest's users only once they take part.
    await stack.expectCall(problemContract.getProblem, 403, { as: users[0]!, params: { problemId: plus } });
  });

  it('three users submit C++ and Python; an admin tries the contest too', async () => {
    await submit(users[0]!, plus, 'plus');
    await submit(users[0]!, double, 'double');
    await submit(users[1]!, plus, 'plusWrong');
    await submit(users[1]!, plus, 'plusPython');
    await submit(users[2]!, double, 'doubleWrong');
    await submit(users[2]!, plus, 'broken');
    await submit(admin, plus, 'plus');
    expect(await stack.expectCall(problemContract.getProblem, 200, { as: users[0]!, params: { problemId: plus } })).toMatchObject({ id: plus });
    await allJudged();
  });

  it('the scoreboard ranks the users by their best scores; the admin is not on it', async () => {
    expect(standing(await board())).toEqual([
      { user: 0, rank: 1, total: 150, scores: { plus: 100, double: 50 } },
      { user: 1, rank: 2, total: 100, scores: { plus: 100 } },
      { user: 2, rank: 3, total: 25, scores: { double: 25 } },
    ]);
    const history = await stack.expectCall(contestContract.getUserContestScoreHistory, 200, { as: users[0]!, params: { contestId, userId: users[1]!.id } });
    expect(history.map((cell) => [cell.problemId, cell.score, cell.contestScoreHistory.map((row) => row.score)])).toEqual([[plus, 100, [67, 100]]]);
    expect(await stack.expectCall(contestContract.getUserContestScores, 200, { as: users[2]!, params: { contestId } })).toEqual([
      { problemId: double, score: 25, penalty: expect.any(Number) },
    ]);
  });

  it('prizes: first blood on each problem, and a one-man solve of the problem only one user solved', async () => {
    const prizes = await stack.expectCall(contestContract.getContestPrize, 200, { as: users[2]!, params: { contestId } });
    expect(prizes.firstBlood.map((prize) => [prize.problem?.id, prize.id, prize.user?.id])).toEqual([
      [plus, idOf(0, 'plus'), users[0]!.id],
      [double, idOf(0, 'double'), users[0]!.id],
    ]);
    expect(prizes.oneManSolve.map((prize) => [prize.problem?.id, prize.id])).toEqual([[double, idOf(0, 'double')]]);
  });

  it('new test data for Plus and a rejudge: right answers become partly right, the wrong one right, and the board follows', async () => {
    await stack.expectCall(problemContract.updateProblem, 200, {
      as: admin,
      params: { problemId: plus },
      form: {
        fields: { name: 'Plus', sname: 'plus', score: '100', timeLimit: '1', memoryLimit: '256' },
        files: { zip: { filename: 'data-v2.zip', content: plusData({ 2: '0\n' }), contentType: 'application/zip' } },
      },
    });
    await stack.expectCall(submissionContract.rejudgeProblem, 200, { as: admin, params: { problemId: plus } });
    await allJudged();

    expect(standing(await board())).toEqual([
      { user: 0, rank: 1, total: 117, scores: { plus: 67, double: 50 } },
      { user: 1, rank: 2, total: 100, scores: { plus: 100 } },
      { user: 2, rank: 3, total: 25, scores: { double: 25 } },
    ]);
    const history = await stack.expectCall(contestContract.getUserContestScoreHistory, 200, { as: admin, params: { contestId, userId: users[1]!.id } });
    expect(history.map((cell) => [cell.problemId, cell.score, cell.contestScoreHistory.map((row) => row.score)])).toEqual([[plus, 100, [100, 100]]]);

    const prizes = await stack.expectCall(contestContract.getContestPrize, 200, { as: admin, params: { contestId } });
    expect(prizes.firstBlood.map((prize) => [prize.problem?.id, prize.id])).toEqual([
      [plus, idOf(1, 'plusWrong')],
      [double, idOf(0, 'double')],
    ]);
    expect(prizes.oneManSolve.map((prize) => [prize.problem?.id, prize.id])).toEqual([
      [plus, idOf(1, 'plusWrong')],
      [double, idOf(0, 'double')],
    ]);
  });
});
