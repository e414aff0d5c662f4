/**
 * The Contest group through the public API: contests and their problems, sign-ups, scoring in every grading
 * mode, the scoreboard policy, freezes, replays and hidden contest problems. Submissions go through the
 * real upload route (so the contest upload rules run); verdicts and rejudges are appended to the log as the
 * judge would, and each helper waits for the read models it feeds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcementContract } from '@otog/schemas/api/announcement';
import { contestContract as contract, type Contest, type ContestInput, type Scoreboard, type ScoreboardColumns } from '@otog/schemas/api/contest';
import type { RouteContract } from '@otog/schemas/api/contract';
import { problemContract } from '@otog/schemas/api/problem';
import { submissionContract, type Submission } from '@otog/schemas/api/submission';
import type { GradingMode, ScoreboardPolicy } from '@otog/schemas/common/contest';
import { contestKit, finished, HOUR, iso, MINUTE, nowSecond, pause, pending, running, SOURCE, type Status } from './support/contest-kit.ts';
import { startStack, type CallOptions, type Stack, type TestUser } from './support/stack.ts';

let stack: Stack;
let admin: TestUser;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.createUser({ role: 'admin' });
}, 60_000);
afterAll(() => stack?.stop());

// ---------------------------------------------------------------------------------------------------------
// Helpers

const { settings, createContest, addProblems, patch, signUp, problem, settle, upload, submit, judge, rejudge } = contestKit(() => ({ stack, admin }));

/** The board in columns as GET /contest/:id/scoreboard/columns should give it for this OTOG-shaped board. */
function columnsOf(scoreboard: Scoreboard): ScoreboardColumns {
  const { id, name, mode, gradingMode, scoreboardPolicy, timeStart, timeEnd, announce, freezeAt } = scoreboard.contest;
  const problems = scoreboard.contest.contestProblem.map(({ problem: { id, name, score } }) => ({ id, name, score })).sort((a, b) => a.id - b.id);
  const grid = <T>(value: (cell: Cell | undefined) => T) =>
    scoreboard.userContest.flatMap((entry) => problems.map((item) => value(entry.contestScores.find((cell) => cell.problemId === item.id))));
  const pending = grid((cell) => cell?.pending ?? 0);
  return {
    contest: { id, name, mode, gradingMode, scoreboardPolicy, timeStart, timeEnd, announce, freezeAt },
    problems,
    frozenAt: scoreboard.frozenAt ?? null,
    userId: scoreboard.userContest.map((entry) => entry.user.id),
    showName: scoreboard.userContest.map((entry) => entry.user.showName),
    rank: scoreboard.userContest.map((entry, index) => entry.rank ?? index + 1),
    totalScore: scoreboard.userContest.map((entry) => entry.totalScore),
    maxPenalty: scoreboard.userContest.map((entry) => entry.maxPenalty),
    score: grid((cell) => cell?.score ?? null),
    ...(pending.some((count) => count > 0) ? { pending } : {}),
  };
}

/** The OTOG-shaped board; every read also checks that the columns route gives the same board. */
async function board(contestId: number, as: TestUser | null = admin, query: Record<string, string> = {}): Promise<Scoreboard> {
  const scoreboard = await stack.expectCall(contract.getContestScoreboard, 200, { as, params: { contestId }, query });
  expect(await stack.expectCall(contract.getContestScoreboardColumns, 200, { as, params: { contestId }, query })).toEqual(columnsOf(scoreboard));
  return scoreboard;
}
const ownScores = (contestId: number, as: TestUser | null) => stack.expectCall(contract.getUserContestScores, 200, { as, params: { contestId } });
const historyOf = (contestId: number, userId: number, as: TestUser | null) =>
  stack.expectCall(contract.getUserContestScoreHistory, 200, { as, params: { contestId, userId } });
const prizesOf = (contestId: number, as: TestUser | null = admin) => stack.expectCall(contract.getContestPrize, 200, { as, params: { contestId } });
/** The ranked rows without the user summaries. */
const rows = (scoreboard: Scoreboard) => scoreboard.userContest.map(({ userId, rank, totalScore, maxPenalty, contestScores }) => ({ userId, rank, totalScore, maxPenalty, contestScores }));
type Cell = Scoreboard['userContest'][number]['contestScores'][number];
const row = (user: TestUser, rank: number, totalScore: number, maxPenalty: number, contestScores: Cell[] = []) => ({ userId: user.id, rank, totalScore, maxPenalty, contestScores });
/** A scoreboard cell (pending only on a frozen board). */
const cell = (problemId: number, score: number, penalty: number, pending?: number): Cell => ({ problemId, score, penalty, ...(pending ? { pending } : {}) });
/** Non-acm penalty: whole seconds from the contest start to the submission. */
const seconds = (contest: Contest, submission: Submission) => Math.floor((Date.parse(submission.creationDate) - Date.parse(contest.timeStart)) / 1000);
const minutes = (contest: Contest, submission: Submission) => Math.floor((Date.parse(submission.creationDate) - Date.parse(contest.timeStart)) / MINUTE);
const HIDDEN_BOARD = { message: 'The scoreboard is not available' };
const prize = (submission: Submission, user: TestUser) => ({ id: submission.id, problem: { id: submission.problem.id }, user: { id: user.id, showName: user.showName } });
/** Up to four fresh role-user accounts, made one after another so their ids ascend. */
async function users(count: 1 | 2 | 3 | 4): Promise<[TestUser, TestUser, TestUser, TestUser]> {
  const made: TestUser[] = [];
  for (let index = 0; index < count; index += 1) made.push(await stack.createUser());
  return made as [TestUser, TestUser, TestUser, TestUser];
}

// ---------------------------------------------------------------------------------------------------------

describe('creating, editing and deleting contests', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await stack.createUser();
  });

  it('POST /contest answers the new row (name trimmed, announce and freezeAt null) and it reads back', async () => {
    const body = settings({ name: '  Weekly Round  ', gradingMode: 'acm', scoreboardPolicy: 'AFTER_CONTEST', mode: 'rated' });
    const created = await stack.expectCall(contract.createContest, 200, { as: admin, body });
    expect(created).toEqual({ id: expect.any(Number), ...body, name: 'Weekly Round', announce: null, freezeAt: null });
    expect(await stack.expectCall(contract.getContest, 200, { params: { contestId: created.id } })).toEqual(created);
    const withOffset = await createContest({ timeStart: '2030-01-01T07:00:00+07:00', timeEnd: '2030-01-01T09:00:00+07:00', announce: 'hi', freezeAt: '2030-01-01T01:30:00Z' });
    expect(withOffset).toMatchObject({ timeStart: '2030-01-01T00:00:00.000Z', timeEnd: '2030-01-01T02:00:00.000Z', announce: 'hi', freezeAt: '2030-01-01T01:30:00.000Z' });
  });

  it('POST /contest refuses bad bodies with 400', async () => {
    const base = settings();
    const message = async (body: unknown) => (await stack.expectCall(contract.createContest, 400, { as: admin, body })).message;
    expect(await message({ ...base, timeEnd: base.timeStart })).toContain('timeEnd must be after timeStart');
    expect(await message({ ...base, timeEnd: iso(Date.parse(base.timeStart) - 1) })).toContain('timeEnd must be after timeStart');
    expect(await message({ ...base, freezeAt: iso(Date.parse(base.timeStart) - 1) })).toContain('freezeAt must be between timeStart and timeEnd');
    expect(await message({ ...base, freezeAt: iso(Date.parse(base.timeEnd) + 1) })).toContain('freezeAt must be between timeStart and timeEnd');
    expect(await message({ ...base, name: '   ' })).toContain('name must not be empty');
    for (const bad of [{ mode: 'weird' }, { gradingMode: 'ioi' }, { scoreboardPolicy: 'ALWAYS' }, { name: '' }, { timeStart: 'yesterday' }]) {
      await message({ ...base, ...bad });
    }
    for (const field of ['name', 'mode', 'gradingMode', 'scoreboardPolicy', 'timeStart', 'timeEnd'] as const) {
      const { [field]: _omitted, ...rest } = base;
      await message(rest);
    }
  });

  it('POST /contest is for admins (401 anonymous, 403 user)', async () => {
    await stack.expectCall(contract.createContest, 401, { body: settings() });
    await stack.expectCall(contract.createContest, 403, { as: user, body: settings() });
  });

  it('PUT replaces the settings; an omitted announce and freezeAt stay, null clears announce', async () => {
    const contest = await createContest({ announce: 'rules', name: 'Before' });
    const freezeAt = iso(Date.parse(contest.timeStart) + MINUTE);
    await patch(contest.id, { freezeAt });
    const replacement = settings({ name: 'After', gradingMode: 'bestSubtask', scoreboardPolicy: 'NOT_VISIBLE', timeStart: contest.timeStart, timeEnd: contest.timeEnd });
    const put = await stack.expectCall(contract.updateContest, 200, { as: admin, params: { contestId: contest.id }, body: replacement });
    expect(put).toEqual({ id: contest.id, ...replacement, announce: 'rules', freezeAt });
    expect(await stack.expectCall(contract.getContest, 200, { params: { contestId: contest.id } })).toEqual(put);
    const cleared = await stack.expectCall(contract.updateContest, 200, { as: admin, params: { contestId: contest.id }, body: { ...replacement, announce: null } });
    expect(cleared).toEqual({ ...put, announce: null });
    // The omitted freezeAt stays, so a start after it breaks the time rule.
    const late = { ...replacement, timeStart: iso(Date.parse(freezeAt) + MINUTE) };
    const refused = await stack.expectCall(contract.updateContest, 400, { as: admin, params: { contestId: contest.id }, body: late });
    expect(refused).toEqual({ message: 'freezeAt must be between timeStart and timeEnd' });
    await stack.expectCall(contract.updateContest, 403, { as: user, params: { contestId: contest.id }, body: replacement });
  });

  it('PATCH changes only what it carries; the merged settings must keep the time rules', async () => {
    const contest = await createContest({ name: 'Patched' });
    const announce = JSON.stringify([{ type: 'paragraph', children: [{ text: 'Good luck' }] }]);
    expect(await patch(contest.id, { announce })).toEqual({ ...contest, announce });
    expect(await stack.expectCall(contract.getContest, 200, { params: { contestId: contest.id } })).toEqual({ ...contest, announce });
    const refuse = async (body: Partial<ContestInput>) => (await stack.expectCall(contract.patchContest, 400, { as: admin, params: { contestId: contest.id }, body })).message;
    expect(await refuse({ timeEnd: iso(Date.parse(contest.timeStart) - MINUTE) })).toBe('timeEnd must be after timeStart');
    expect(await refuse({ timeStart: contest.timeEnd })).toBe('timeEnd must be after timeStart');
    expect(await refuse({ freezeAt: iso(Date.parse(contest.timeEnd) + MINUTE) })).toBe('freezeAt must be between timeStart and timeEnd');
    expect(await refuse({ timeStart: iso(Date.parse(contest.timeEnd) + MINUTE), timeEnd: contest.timeEnd })).toContain('timeEnd must be after timeStart');
    expect(await stack.expectCall(contract.getContest, 200, { params: { contestId: contest.id } })).toEqual({ ...contest, announce });
  });

  it('DELETE answers the row, then 404; its submissions leave every list', async () => {
    const alice = await stack.createUser();
    const p = await problem('Doomed');
    const contest = await createContest({ name: 'Doomed' }, [p]);
    const submission = await submit(alice, contest.id, p);
    await judge(submission, 'accept', 100);
    expect(await stack.expectCall(contract.deleteContest, 200, { as: admin, params: { contestId: contest.id } })).toEqual(contest);
    const notFound = { message: 'Contest not found' };
    expect(await stack.expectCall(contract.getContest, 404, { params: { contestId: contest.id } })).toEqual(notFound);
    expect(await stack.expectCall(contract.deleteContest, 404, { as: admin, params: { contestId: contest.id } })).toEqual(notFound);
    expect(await stack.expectCall(contract.getContestScoreboard, 404, { as: admin, params: { contestId: contest.id } })).toEqual(notFound);
    await stack.expectCall(submissionContract.getContestSubmissions, 404, { as: alice, params: { contestId: contest.id } });
    await stack.expectCall(submissionContract.getSubmission, 404, { as: admin, params: { submissionId: submission.id } });
    expect(await stack.expectCall(submissionContract.getSubmissions, 200, { as: alice, query: { userId: alice.id } })).toEqual([]);
    expect(await stack.expectCall(submissionContract.getSubmissionsByUserId, 200, { as: admin, params: { userId: alice.id } })).toEqual([]);
    await stack.expectCall(contract.deleteContest, 403, { as: alice, params: { contestId: 1 } });
  });

  it('answers 404 for unknown contests and 400 for malformed ids on every contest route', async () => {
    const contestId = 1_999_999_999;
    const notFound = { message: 'Contest not found' };
    const reads = [contract.getContest, contract.getContestDetail, contract.getUserContestScores, contract.getContestScoreboard, contract.getContestPrize, contract.getContestForAdmin];
    for (const route of reads) expect(await stack.expectCall(route, 404, { as: admin, params: { contestId } }), route.path).toEqual(notFound);
    const p = await problem('Lonely');
    const cases: Array<[RouteContract, CallOptions]> = [
      [contract.getContestProblem, { params: { contestId, problemId: p } }],
      [contract.getUserContestScoreHistory, { params: { contestId, userId: admin.id } }],
      [contract.updateContest, { params: { contestId }, body: settings() }],
      [contract.patchContest, { params: { contestId }, body: { name: 'x' } }],
      [contract.deleteContest, { params: { contestId } }],
      [contract.toggleProblemToContest, { params: { contestId, problemId: p }, body: { show: true } }],
      [contract.putProblemToContest, { params: { contestId }, body: [{ problemId: p }] }],
      [contract.contestSignUp, { params: { contestId }, body: { userId: admin.id } }],
      [contract.revealScoreboard, { params: { contestId } }],
    ];
    for (const [route, options] of cases) expect(await stack.expectCall(route, 404, { as: admin, ...options }), route.path).toEqual(notFound);
    for (const bad of ['abc', '0', '-1', '1.5', '2147483648']) {
      for (const route of reads) await stack.expectCall(route, 400, { as: admin, params: { contestId: bad } });
      await stack.expectCall(contract.deleteContest, 400, { as: admin, params: { contestId: bad } });
      await stack.expectCall(contract.getContestProblem, 400, { as: admin, params: { contestId: 1, problemId: bad } });
    }
  });
});

describe('contest lists', () => {
  let old: Contest, now: Contest, soon: Contest, later: Contest;
  beforeAll(async () => {
    old = await createContest({ name: 'Lists Alpha', ...finished() });
    later = await createContest({ name: 'Lists Delta', timeStart: iso(nowSecond() + 3 * HOUR), timeEnd: iso(nowSecond() + 4 * HOUR) });
    now = await createContest({ name: 'lists BETA', ...running() });
    soon = await createContest({ name: 'Lists Gamma', ...pending() });
  });

  it('GET /contest/list: newest first with the total; limit and skip page it', async () => {
    const all = await stack.expectCall(contract.listContest, 200, { query: { limit: 1_000 } });
    expect(all.data.map((contest) => contest.id)).toEqual([...all.data.map((contest) => contest.id)].sort((a, b) => b - a));
    expect(all.total).toBe(all.data.length);
    expect(all.data.slice(0, 4)).toEqual([soon, now, later, old]);
    expect(await stack.expectCall(contract.listContest, 200, { query: { limit: 2, skip: 1 } })).toEqual({ data: [now, later], total: all.total });
    expect((await stack.expectCall(contract.listContest, 200, {})).data).toHaveLength(Math.min(10, all.total));
    await stack.expectCall(contract.listContest, 400, { query: { limit: -1 } });
  });

  it('GET /contest/now: running and upcoming contests, earliest start first; never finished ones', async () => {
    const current = await stack.expectCall(contract.getCurrentContests, 200, {});
    const mine = current.filter((contest) => [old.id, now.id, soon.id, later.id].includes(contest.id));
    expect(mine).toEqual([now, soon, later]);
    expect(current.every((contest) => Date.parse(contest.timeEnd) >= Date.now() - MINUTE)).toBe(true);
    const starts = current.map((contest) => Date.parse(contest.timeStart));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('GET /contest/admin/list searches by exact id or by part of the name in any case', async () => {
    const search = (text: string) => stack.expectCall(contract.getContestsForAdmin, 200, { as: admin, query: { search: text } });
    expect(await search(String(now.id))).toEqual({ data: [now], total: 1 });
    expect(await search('LISTS')).toEqual({ data: [soon, now, later, old], total: 4 });
    expect(await search('sts be')).toEqual({ data: [now], total: 1 });
    expect(await search('no such contest')).toEqual({ data: [], total: 0 });
    // LIKE wildcards are plain characters; surrounding space is ignored.
    expect(await search('%')).toEqual({ data: [], total: 0 });
    expect(await search('lists_beta')).toEqual({ data: [], total: 0 });
    expect(await search('  lists beta  ')).toEqual({ data: [now], total: 1 });
    expect((await stack.expectCall(contract.getContestsForAdmin, 200, { as: admin, query: { search: 'lists', limit: 1, skip: 3 } }))).toEqual({ data: [old], total: 4 });
    await stack.expectCall(contract.getContestsForAdmin, 401, {});
    await stack.expectCall(contract.getContestsForAdmin, 403, { as: await stack.createUser() });
  });

  it('GET /contest/admin/:id gives the contest with its problems as full rows, newest problem first', async () => {
    const ids = [await problem('Admin One'), await problem('Admin Two', { show: false }), await problem('Admin Three', { score: 250 })];
    await addProblems(now.id, [ids[1]!, ids[0]!, ids[2]!]);
    const answer = await stack.expectCall(contract.getContestForAdmin, 200, { as: admin, params: { contestId: now.id } });
    const full = await Promise.all(ids.map((problemId) => stack.expectCall(problemContract.getProblem, 200, { as: admin, params: { problemId } })));
    expect(answer).toEqual({ ...now, contestProblem: [...full].reverse().map((problem) => ({ contestId: now.id, problemId: problem.id, problem })) });
    await stack.expectCall(contract.getContestForAdmin, 403, { as: await stack.createUser(), params: { contestId: now.id } });
  });
});

describe('contest problems', () => {
  let contest: Contest, upcoming: Contest;
  let ids: number[];
  let user: TestUser;
  const detail = (contestId: number, as: TestUser | null = admin) => stack.expectCall(contract.getContestDetail, 200, { as, params: { contestId } });
  const problemIds = async (contestId: number) => (await detail(contestId)).contestProblem.map((item) => item.problem.id);
  beforeAll(async () => {
    user = await stack.createUser();
    ids = [await problem('Alpha'), await problem('Beta', { score: 300 }), await problem('Gamma', { show: false }), await problem('Delta')];
    contest = await createContest({ name: 'Problems' });
    upcoming = await createContest({ name: 'Upcoming', ...pending() }, [ids[0]!]);
  });

  it('PUT /contest/:id/problems adds problems, skipping ones already in; an unknown problem refuses the whole body', async () => {
    expect(await stack.expectCall(contract.putProblemToContest, 200, { as: admin, params: { contestId: contest.id }, body: [{ problemId: ids[1]! }, { problemId: ids[0]! }, { problemId: ids[1]! }] })).toEqual({});
    await addProblems(contest.id, [ids[0]!, ids[2]!]);
    expect(await problemIds(contest.id)).toEqual([ids[0], ids[1], ids[2]]);
    expect(await stack.expectCall(contract.putProblemToContest, 400, { as: admin, params: { contestId: contest.id }, body: [{ problemId: ids[3]! }, { problemId: 1_999_999_999 }] })).toEqual({
      message: 'No such problem: 1999999999',
    });
    expect(await problemIds(contest.id)).toEqual([ids[0], ids[1], ids[2]]);
    await stack.expectCall(contract.putProblemToContest, 400, { as: admin, params: { contestId: contest.id }, body: [{ problemId: 'x' }] });
    await stack.expectCall(contract.putProblemToContest, 403, { as: user, params: { contestId: contest.id }, body: [] });
  });

  it('PATCH /contest/:id/problem/:pid adds (show: true) and removes (show: false)', async () => {
    const toggle = (problemId: number, show: boolean, status: 200 | 404 = 200) =>
      stack.expectCall(contract.toggleProblemToContest, status, { as: admin, params: { contestId: contest.id, problemId }, body: { show } });
    expect(await toggle(ids[3]!, true)).toEqual({ show: true });
    expect(await problemIds(contest.id)).toEqual(ids);
    expect(await toggle(ids[0]!, false)).toEqual({ show: false });
    expect(await toggle(ids[0]!, false)).toEqual({ show: false });
    expect(await problemIds(contest.id)).toEqual([ids[1], ids[2], ids[3]]);
    expect(await toggle(1_999_999_999, true, 404)).toEqual({ message: 'Problem not found' });
    await stack.expectCall(contract.toggleProblemToContest, 400, { as: admin, params: { contestId: contest.id, problemId: ids[0]! }, body: {} });
    await stack.expectCall(contract.toggleProblemToContest, 403, { as: user, params: { contestId: contest.id, problemId: ids[0]! }, body: { show: true } });
    await toggle(ids[0]!, true);
  });

  it('GET detail: the contest, its problems (id, name, score) and how many announcements it has', async () => {
    const announce = (contestId: number, value: string) => stack.expectCall(announcementContract.createAnnouncement, 201, { as: admin, query: { contestId }, body: { value } });
    await announce(contest.id, 'first');
    const second = await announce(contest.id, 'second');
    await stack.expectCall(announcementContract.showAnnouncement, 200, { as: admin, params: { announcementId: second.id }, body: { show: true } });
    await announce(upcoming.id, 'elsewhere');
    const names = ['Alpha', 'Beta', 'Gamma', 'Delta'];
    const expected = {
      ...contest,
      contestProblem: ids.map((id, index) => ({ problem: { id, name: names[index]!, score: index === 1 ? 300 : 100 } })),
      _count: { announcements: 2 },
    };
    for (const as of [admin, user, null]) expect(await detail(contest.id, as)).toEqual(expected);
  });

  it('GET /contest/:id/problem/:pid gives the full row (hidden too) of a problem in the contest, else 404', async () => {
    for (const problemId of ids) {
      const full = await stack.expectCall(problemContract.getProblem, 200, { as: admin, params: { problemId } });
      expect(await stack.expectCall(contract.getContestProblem, 200, { as: user, params: { contestId: contest.id, problemId } })).toEqual(full);
    }
    const outside = await problem('Outside');
    expect(await stack.expectCall(contract.getContestProblem, 404, { as: admin, params: { contestId: contest.id, problemId: outside } })).toEqual({ message: 'Problem not found' });
    expect(await stack.expectCall(contract.getContestProblem, 404, { as: admin, params: { contestId: contest.id, problemId: 1_999_999_999 } })).toEqual({ message: 'Problem not found' });
  });

  it('before the start, detail and problems are for admins only (403)', async () => {
    const notStarted = { message: 'The contest has not started yet' };
    for (const as of [user, null]) {
      expect(await stack.expectCall(contract.getContestDetail, 403, { as, params: { contestId: upcoming.id } })).toEqual(notStarted);
      expect(await stack.expectCall(contract.getContestProblem, 403, { as, params: { contestId: upcoming.id, problemId: ids[0]! } })).toEqual(notStarted);
    }
    expect((await detail(upcoming.id)).contestProblem).toEqual([{ problem: { id: ids[0], name: 'Alpha', score: 100 } }]);
    await stack.expectCall(contract.getContestProblem, 200, { as: admin, params: { contestId: upcoming.id, problemId: ids[0]! } });
    expect(await stack.expectCall(contract.getContest, 200, { as: user, params: { contestId: upcoming.id } })).toEqual(upcoming);
  });
});

describe('sign-up and contest uploads', () => {
  let contest: Contest;
  let p: number, outside: number;
  let alice: TestUser, bob: TestUser, other: TestUser;
  beforeAll(async () => {
    [alice, bob, other] = await users(3);
    p = await problem('Signup');
    outside = await problem('Not In It');
    contest = await createContest({ name: 'Signup' }, [p]);
  });

  it('an admin signs a user up; again is harmless; the user is on the board with 0', async () => {
    const participation = { userId: bob.id, contestId: contest.id, rank: null, ratingAfterUpdate: null };
    expect(await signUp(contest.id, bob)).toEqual(participation);
    expect(await signUp(contest.id, bob)).toEqual(participation);
    await signUp(contest.id, admin);
    const scoreboard = await board(contest.id, other);
    expect(rows(scoreboard)).toEqual([row(bob, 1, 0, 0)]);
    expect(scoreboard.userContest[0]!.user).toEqual({ id: bob.id, showName: bob.showName, role: 'user', rating: null });
    expect(scoreboard.contest.userContest.map((item) => item.userId)).toEqual([admin.id, bob.id].sort((a, b) => a - b));
    expect(await stack.expectCall(contract.contestSignUp, 404, { as: admin, params: { contestId: contest.id }, body: { userId: 1_999_999_999 } })).toEqual({ message: 'User not found' });
    await stack.expectCall(contract.contestSignUp, 403, { as: alice, params: { contestId: contest.id }, body: { userId: alice.id } });
    await stack.expectCall(contract.contestSignUp, 400, { as: admin, params: { contestId: contest.id }, body: { userId: 'me' } });
  });

  it('the first contest submission makes a user a participant', async () => {
    expect((await board(contest.id)).contest.userContest.map((item) => item.userId)).not.toContain(alice.id);
    const created = await submit(alice, contest.id, p);
    expect(created).toMatchObject({ contestId: contest.id, status: 'waiting', userId: alice.id });
    const scoreboard = await board(contest.id);
    expect(scoreboard.contest.userContest.map((item) => item.userId)).toContain(alice.id);
    expect(rows(scoreboard)).toEqual([row(alice, 1, 0, 0), row(bob, 1, 0, 0)].sort((a, b) => a.userId - b.userId));
  });

  it('uploads only to problems of the contest, and for users only while it runs (admins any time)', async () => {
    const message = async (user: TestUser, contestId: number, problemId: number) => {
      const response = await upload(user, contestId, problemId);
      expect(response.statusCode, response.body).toBe(400);
      return (response.json() as { message: string }).message;
    };
    expect(await message(alice, contest.id, outside)).toBe('Problem is not in contest or public!');
    expect(await message(admin, contest.id, outside)).toBe('Problem is not in contest or public!');
    const early = await createContest({ name: 'Early', ...pending() }, [p]);
    const late = await createContest({ name: 'Late', ...finished() }, [p]);
    for (const closed of [early, late]) {
      expect(await message(alice, closed.id, p)).toBe('The contest is not running');
      expect(await message(alice, closed.id, outside)).toBe('Problem is not in contest or public!');
      const tried = await submit(admin, closed.id, p);
      await judge(tried, 'accept', 100);
      const scoreboard = await board(closed.id);
      expect(scoreboard.userContest).toEqual([]);
      expect(scoreboard.contest.userContest.map((item) => item.userId)).toEqual([admin.id]);
    }
    expect((await upload(alice, 1_999_999_999, p)).statusCode).toBe(404);
  });
});

describe('scoring and the scoreboard', () => {
  describe('classic', () => {
    let contest: Contest;
    let p1: number, p2: number;
    let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
    const s: Record<string, Submission> = {};
    /** The penalty of the named submission. */
    const pen = (key: string) => seconds(contest, s[key]!);
    beforeAll(async () => {
      [alice, bob, carol, dave] = await users(4);
      p1 = await problem('Classic One');
      p2 = await problem('Classic Two', { score: 50 });
      contest = await createContest({ name: 'Classic' }, [p1, p2]);
      s.admin = await submit(admin, contest.id, p1);
      await judge(s.admin, 'accept', 100);
      for (const [key, user, problemId, status, score] of [
        ['a1', alice, p1, 'reject', 40],
        ['a2', alice, p1, 'accept', 100],
        ['a3', alice, p2, 'reject', 30],
        ['b1', bob, p1, 'accept', 100],
        ['b2', bob, p1, 'reject', 20],
        ['c1', carol, p1, 'compileError', 0],
      ] as const) {
        s[key] = await submit(user, contest.id, problemId);
        await judge(s[key], status, score);
      }
      await signUp(contest.id, dave);
    });

    it('ranks the role-user participants by total, then the largest penalty; the latest verdict counts', async () => {
      const scoreboard = await board(contest.id);
      expect(rows(scoreboard)).toEqual([
        row(alice, 1, 130, pen('a3'), [cell(p1, 100, pen('a2')), cell(p2, 30, pen('a3'))]),
        row(bob, 2, 20, pen('b2'), [cell(p1, 20, pen('b2'))]),
        ...[row(carol, 3, 0, 0), row(dave, 3, 0, 0)].sort((a, b) => a.userId - b.userId),
      ]);
      expect(scoreboard.frozenAt).toBeNull();
      expect(scoreboard.contest.contestProblem.map((item) => item.problemId)).toEqual([p1, p2]);
      expect(scoreboard.contest.userContest.map((item) => item.userId)).toEqual([admin.id, alice.id, bob.id, carol.id, dave.id].sort((a, b) => a - b));
      expect(rows(await board(contest.id, null))).toEqual(rows(scoreboard));
    });

    it('GET /contest/:id/score: the caller’s own cells; anonymous callers get []', async () => {
      expect(await ownScores(contest.id, alice)).toEqual([cell(p1, 100, pen('a2')), cell(p2, 30, pen('a3'))]);
      expect(await ownScores(contest.id, null)).toEqual([]);
      expect(await ownScores(contest.id, dave)).toEqual([]);
    });

    it('score history: one row per judged submission with the running score; contestScoreId names the cell', async () => {
      const entry = (cellId: number, submission: Submission, score: number, own: number) => ({
        contestScoreId: cellId,
        submissionId: submission.id,
        score,
        submission: { creationDate: submission.creationDate, submissionResult: { score: own, subtaskResults: [{ subtaskIndex: 1, score: own, fullScore: 100 }] } },
      });
      const history = await historyOf(contest.id, alice.id, bob);
      expect(history).toEqual([
        { id: s.a1!.id, contestId: contest.id, userId: alice.id, problemId: p1, score: 100, latestSubmission: s.a2!.creationDate, contestScoreHistory: [entry(s.a1!.id, s.a1!, 40, 40), entry(s.a1!.id, s.a2!, 100, 100)] },
        { id: s.a3!.id, contestId: contest.id, userId: alice.id, problemId: p2, score: 30, latestSubmission: s.a3!.creationDate, contestScoreHistory: [entry(s.a3!.id, s.a3!, 30, 30)] },
      ]);
      expect(await historyOf(contest.id, carol.id, alice)).toEqual([]);
    });

    it('prizes: first blood among role-user contestants (admins never win); one-man solve needs a single solver', async () => {
      expect(await prizesOf(contest.id, carol)).toEqual({ firstBlood: [prize(s.a2!, alice)], oneManSolve: [] });
    });

    it('a rejudge changes the board, the history and the prizes exactly', async () => {
      await rejudge(s.a2!);
      // While it waits, the earlier verdict is alice's latest; a late report of the first judging changes nothing.
      await judge(s.a2!, 'accept', 100, undefined, true);
      expect(rows(await board(contest.id))[0]).toEqual(row(alice, 1, 70, pen('a3'), [cell(p1, 40, pen('a1')), cell(p2, 30, pen('a3'))]));
      await judge(s.a2!, 'reject', 10);
      expect(rows(await board(contest.id)).slice(0, 2)).toEqual([
        row(alice, 1, 40, pen('a3'), [cell(p1, 10, pen('a2')), cell(p2, 30, pen('a3'))]),
        row(bob, 2, 20, pen('b2'), [cell(p1, 20, pen('b2'))]),
      ]);
      const history = await historyOf(contest.id, alice.id, alice);
      expect(history[0]!.contestScoreHistory.map((item) => [item.submissionId, item.score])).toEqual([[s.a1!.id, 40], [s.a2!.id, 10]]);
      expect(await prizesOf(contest.id, carol)).toEqual({ firstBlood: [prize(s.b1!, bob)], oneManSolve: [prize(s.b1!, bob)] });
    });

    it('only the contest’s problems count: a removed problem leaves the board and the scores', async () => {
      await stack.expectCall(contract.toggleProblemToContest, 200, { as: admin, params: { contestId: contest.id, problemId: p2 }, body: { show: false } });
      expect(rows(await board(contest.id)).slice(0, 2)).toEqual([
        row(bob, 1, 20, pen('b2'), [cell(p1, 20, pen('b2'))]),
        row(alice, 2, 10, pen('a2'), [cell(p1, 10, pen('a2'))]),
      ]);
      expect(await ownScores(contest.id, alice)).toEqual([cell(p1, 10, pen('a2'))]);
    });
  });

  it('equal rows share a rank (1, 1, 3)', async () => {
    const [first, second, third] = await users(3);
    const p = await problem('Ties');
    const contest = await createContest({ name: 'Ties' }, [p]);
    await signUp(contest.id, first!);
    await signUp(contest.id, second!);
    const zero = await submit(third!, contest.id, p);
    await judge(zero, 'reject', 0);
    expect(rows(await board(contest.id))).toEqual([
      row(first!, 1, 0, 0),
      row(second!, 1, 0, 0),
      row(third!, 3, 0, seconds(contest, zero), [cell(p, 0, seconds(contest, zero))]),
    ]);
  });

  it('acm: solved problems score in full; penalty = minutes to the first accept + 20 per reject before it, in seconds, summed', async () => {
    const [alice, bob, carol] = await users(3);
    const a1 = await problem('Acm One');
    const a2 = await problem('Acm Two', { score: 200 });
    const contest = await createContest({ name: 'Acm', gradingMode: 'acm' }, [a1, a2]);
    const run = async (user: TestUser, problemId: number, status: Status) => {
      const submission = await submit(user, contest.id, problemId);
      await judge(submission, status, status === 'accept' ? 100 : 0);
      return submission;
    };
    const ar = await run(alice, a1, 'reject');
    await run(alice, a1, 'compileError');
    const ak = await run(alice, a1, 'accept');
    const ax = await run(alice, a1, 'reject');
    const ak2 = await run(alice, a2, 'accept');
    await run(bob, a1, 'reject');
    await run(bob, a1, 'reject');
    const bk = await run(bob, a1, 'accept');
    await run(bob, a2, 'reject');
    await run(carol, a2, 'reject');
    const aliceA1 = 60 * (minutes(contest, ak) + 20);
    const aliceA2 = 60 * minutes(contest, ak2);
    const bobA1 = 60 * (minutes(contest, bk) + 40);
    expect(rows(await board(contest.id))).toEqual([
      row(alice, 1, 300, aliceA1 + aliceA2, [cell(a1, 100, aliceA1), cell(a2, 200, aliceA2)]),
      row(bob, 2, 100, bobA1, [cell(a1, 100, bobA1), cell(a2, 0, 0)]),
      row(carol, 3, 0, 0, [cell(a2, 0, 0)]),
    ]);
    const history = await historyOf(contest.id, alice.id, admin);
    expect(history[0]).toMatchObject({ id: ar.id, problemId: a1, score: 100, latestSubmission: ak.creationDate });
    expect(history[0]!.contestScoreHistory.map((item) => [item.submissionId, item.score])).toEqual([[ar.id, 0], [ak.id, 100], [ax.id, 100]]);
    // A rejudge that takes alice's only accept away leaves A1 unsolved; a new full score counts at once.
    await rejudge(ak);
    await judge(ak, 'reject', 0);
    const scope = `problem:${a2}`;
    const configured = await stack.deps.store.append(`problem-${a2}`, [{ type: 'ProblemJudgingConfigured', scope, data: { problemId: a2, score: 150, timeLimit: 1_000, memoryLimit: 256 } }]);
    await settle(configured.lastPosition, scope, ['problems', 'contest_scores']);
    expect(rows(await board(contest.id)).slice(0, 2)).toEqual([
      row(alice, 1, 150, aliceA2, [cell(a1, 0, 0), cell(a2, 150, aliceA2)]),
      row(bob, 2, 100, bobA1, [cell(a1, 100, bobA1), cell(a2, 0, 0)]),
    ]);
  });

  it('acm: equal totals and penalties rank the earlier last accept first; nothing solved ties', async () => {
    const [alice, bob, carol, dave] = await users(4);
    const p = await problem('Acm Tiebreak');
    const contest = await createContest({ name: 'Acm tiebreak', gradingMode: 'acm' }, [p]);
    const fromAlice = await submit(alice, contest.id, p);
    const fromBob = await submit(bob, contest.id, p);
    await judge(fromBob, 'accept', 100);
    await judge(fromAlice, 'accept', 100);
    await signUp(contest.id, carol);
    await signUp(contest.id, dave);
    // The same minute almost always (then only the accept time separates them); else bob's penalty is larger.
    expect(rows(await board(contest.id))).toEqual([
      row(alice, 1, 100, 60 * minutes(contest, fromAlice), [cell(p, 100, 60 * minutes(contest, fromAlice))]),
      row(bob, 2, 100, 60 * minutes(contest, fromBob), [cell(p, 100, 60 * minutes(contest, fromBob))]),
      row(carol, 3, 0, 0),
      row(dave, 3, 0, 0),
    ]);
  });

  it('editing the grading mode or the start rescores the contest', async () => {
    const [alice] = await users(1);
    const p = await problem('Rescored');
    const contest = await createContest({ name: 'Rescored' }, [p]);
    const high = await submit(alice, contest.id, p);
    await judge(high, 'reject', 80);
    const low = await submit(alice, contest.id, p);
    await judge(low, 'reject', 20);
    expect(rows(await board(contest.id))).toEqual([row(alice, 1, 20, seconds(contest, low), [cell(p, 20, seconds(contest, low))])]);
    const edited = await patch(contest.id, { gradingMode: 'bestSubmission', timeStart: iso(Date.parse(contest.timeStart) - HOUR) });
    await settle(await stack.deps.store.headPosition(), `contest:${contest.id}`, ['contest_scores']);
    expect(rows(await board(contest.id))).toEqual([row(alice, 1, 80, seconds(edited, high), [cell(p, 80, seconds(edited, high))])]);
    expect(seconds(edited, high)).toBe(seconds(contest, high) + 3_600);
  });

  for (const [mode, aliceScore, decider] of [['bestSubmission', 50, 0], ['bestSubtask', 100, 1]] as const) {
    it(`${mode}: the best ${mode === 'bestSubmission' ? 'submission' : 'subtask results, scaled to problem.score,'} counts`, async () => {
      const [alice, bob] = await users(2);
      const p = await problem(`Best ${mode}`);
      const contest = await createContest({ name: mode, gradingMode: mode as GradingMode }, [p]);
      const made: Submission[] = [];
      const runs: Array<[number, Array<[number, number]>]> = [[50, [[5, 5], [0, 5]]], [50, [[0, 5], [5, 5]]], [30, [[3, 5], [0, 5]]]];
      for (const [score, subtasks] of runs) {
        made.push(await submit(alice, contest.id, p));
        await judge(made.at(-1)!, 'reject', score, subtasks);
      }
      const zero = await submit(bob, contest.id, p);
      await judge(zero, 'reject', 0, [[0, 5], [0, 5]]);
      expect(rows(await board(contest.id))).toEqual([
        row(alice, 1, aliceScore, seconds(contest, made[decider]!), [cell(p, aliceScore, seconds(contest, made[decider]!))]),
        row(bob, 2, 0, 0, [cell(p, 0, 0)]),
      ]);
      const history = await historyOf(contest.id, alice.id, alice);
      expect(history[0]!.latestSubmission).toBe(made[decider]!.creationDate);
      expect(history[0]!.contestScoreHistory.map((item) => item.score)).toEqual(mode === 'bestSubmission' ? [50, 50, 50] : [50, 100, 100]);
      const subtaskResults = [{ subtaskIndex: 1, score: 5, fullScore: 5 }, { subtaskIndex: 2, score: 0, fullScore: 5 }];
      expect(history[0]!.contestScoreHistory[0]!.submission.submissionResult).toEqual({ score: 50, subtaskResults });
    });
  }

  it('prizes: admins are not solvers; a problem solved by one user is a one-man solve', async () => {
    const [alice, bob] = await users(2);
    const [q1, q2] = [await problem('Prize One'), await problem('Prize Two')];
    const contest = await createContest({ name: 'Prizes' }, [q1, q2]);
    const made: Record<string, Submission> = {};
    for (const [key, user, problemId, status] of [
      ['admin', admin, q1, 'accept'],
      ['a1', alice, q1, 'reject'],
      ['a2', alice, q1, 'accept'],
      ['b1', bob, q1, 'accept'],
      ['b2', bob, q2, 'accept'],
      ['a3', alice, q2, 'accept'],
      ['a4', alice, q2, 'accept'],
    ] as const) {
      made[key] = await submit(user, contest.id, problemId);
      await judge(made[key], status, status === 'accept' ? 100 : 0);
    }
    expect(await prizesOf(contest.id, null)).toEqual({ firstBlood: [prize(made.a2!, alice), prize(made.b2!, bob)], oneManSolve: [] });
    await rejudge(made.b1!);
    await judge(made.b1!, 'reject', 0);
    expect(await prizesOf(contest.id, null)).toEqual({ firstBlood: [prize(made.a2!, alice), prize(made.b2!, bob)], oneManSolve: [prize(made.a2!, alice)] });
  });
});

describe('the scoreboard policy', () => {
  const POLICIES: ScoreboardPolicy[] = ['DURING_CONTEST', 'AFTER_CONTEST', 'NOT_VISIBLE'];
  const STATES = { pending, running, finished } as const;
  const OPEN: Record<ScoreboardPolicy, Array<keyof typeof STATES>> = { DURING_CONTEST: ['running', 'finished'], AFTER_CONTEST: ['finished'], NOT_VISIBLE: [] };
  let alice: TestUser, bob: TestUser, carol: TestUser;
  const contests = new Map<string, { contest: Contest; fromAlice: Submission; fromBob: Submission }>();
  beforeAll(async () => {
    [alice, bob, carol] = await users(3);
    const p = await problem('Policy');
    for (const policy of POLICIES) {
      for (const [state, times] of Object.entries(STATES)) {
        const contest = await createContest({ name: `Policy ${policy} ${state}`, scoreboardPolicy: policy }, [p]);
        const fromAlice = await submit(alice, contest.id, p);
        await judge(fromAlice, 'accept', 100);
        const fromBob = await submit(bob, contest.id, p);
        contests.set(`${policy}/${state}`, { contest: await patch(contest.id, times()), fromAlice, fromBob });
      }
    }
  }, 120_000);

  for (const policy of POLICIES) {
    for (const state of Object.keys(STATES) as Array<keyof typeof STATES>) {
      const open = OPEN[policy].includes(state);
      it(`${policy}, ${state}: ${open ? 'open' : 'hidden'} to users, open to admins`, async () => {
        const { contest, fromAlice, fromBob } = contests.get(`${policy}/${state}`)!;
        const params = { contestId: contest.id };
        const history = { contestId: contest.id, userId: alice.id };
        for (const as of [bob, carol, null]) {
          if (open) {
            expect(rows(await board(contest.id, as)).map((item) => item.userId)).toEqual([alice.id, bob.id]);
            expect((await historyOf(contest.id, alice.id, as)).map((item) => item.score)).toEqual([100]);
            expect(await prizesOf(contest.id, as)).toEqual({ firstBlood: [prize(fromAlice, alice)], oneManSolve: [prize(fromAlice, alice)] });
          } else {
            expect(await stack.expectCall(contract.getContestScoreboard, 403, { as, params })).toEqual(HIDDEN_BOARD);
            expect(await stack.expectCall(contract.getContestScoreboardColumns, 403, { as, params })).toEqual(HIDDEN_BOARD);
            expect(await stack.expectCall(contract.getContestScoreboardChanges, 403, { as, params, query: { since: 'W/"any"' } })).toEqual(HIDDEN_BOARD);
            expect(await stack.expectCall(contract.getUserContestScoreHistory, 403, { as, params: history })).toEqual(HIDDEN_BOARD);
            expect(await stack.expectCall(contract.getContestPrize, 403, { as, params })).toEqual(HIDDEN_BOARD);
          }
        }
        expect(rows(await board(contest.id)).map((item) => item.userId)).toEqual([alice.id, bob.id]);
        await historyOf(contest.id, alice.id, admin);
        await prizesOf(contest.id);
        // Your own history is always yours to see.
        expect((await historyOf(contest.id, alice.id, alice)).map((item) => item.score)).toEqual([100]);

        const list = async (as: TestUser, query: Record<string, number> = {}) =>
          (await stack.expectCall(submissionContract.getContestSubmissions, 200, { as, params, query })).map((item) => item.id);
        expect(await list(bob)).toEqual(open ? [fromBob.id, fromAlice.id] : [fromBob.id]);
        expect(await list(bob, { userId: alice.id })).toEqual(open ? [fromAlice.id] : []);
        expect(await list(bob, { userId: bob.id })).toEqual([fromBob.id]);
        expect(await list(admin)).toEqual([fromBob.id, fromAlice.id]);
      });
    }
  }
});

describe('a frozen scoreboard', () => {
  let contest: Contest;
  let freezeAt: string;
  let alice: TestUser, bob: TestUser, carol: TestUser;
  let p: number;
  const s: Record<string, Submission> = {};
  beforeAll(async () => {
    [alice, bob, carol] = await users(3);
    p = await problem('Frozen');
    contest = await createContest({ name: 'Frozen' }, [p]);
    s.a1 = await submit(alice, contest.id, p);
    await judge(s.a1, 'accept', 100);
    s.b1 = await submit(bob, contest.id, p);
    await judge(s.b1, 'reject', 30);
    await pause(20);
    freezeAt = iso(Date.now());
    await pause(20);
    expect(await patch(contest.id, { freezeAt })).toEqual({ ...contest, freezeAt });
    s.b2 = await submit(bob, contest.id, p);
    await judge(s.b2, 'accept', 100);
    s.a2 = await submit(alice, contest.id, p);
    await judge(s.a2, 'reject', 0);
    s.c1 = await submit(carol, contest.id, p);
  });

  const frozenRows = () => [
    row(alice, 1, 100, seconds(contest, s.a1!), [cell(p, 100, seconds(contest, s.a1!), 1)]),
    row(bob, 2, 30, seconds(contest, s.b1!), [cell(p, 30, seconds(contest, s.b1!), 1)]),
    row(carol, 3, 0, 0, [cell(p, 0, 0, 1)]),
  ];
  const liveRows = () => [
    row(bob, 1, 100, seconds(contest, s.b2!), [cell(p, 100, seconds(contest, s.b2!))]),
    row(carol, 2, 0, 0),
    row(alice, 3, 0, seconds(contest, s.a2!), [cell(p, 0, seconds(contest, s.a2!))]),
  ];

  it('users see the board as it stood at freezeAt, later submissions as pending; admins see it live', async () => {
    for (const as of [alice, bob, null]) {
      const frozen = await board(contest.id, as);
      expect(frozen.frozenAt).toBe(freezeAt);
      expect(rows(frozen)).toEqual(frozenRows());
    }
    const live = await board(contest.id);
    expect(live.frozenAt).toBeNull();
    expect(rows(live)).toEqual(liveRows());
  });

  it('score histories and prizes of others are frozen too; your own scores are live', async () => {
    const frozenHistory = await historyOf(contest.id, alice.id, bob);
    expect(frozenHistory).toMatchObject([{ id: s.a1!.id, score: 100, latestSubmission: s.a1!.creationDate }]);
    expect(frozenHistory[0]!.contestScoreHistory.map((item) => [item.contestScoreId, item.submissionId, item.score])).toEqual([[s.a1!.id, s.a1!.id, 100]]);
    const own = await historyOf(contest.id, alice.id, alice);
    expect(own[0]!.contestScoreHistory.map((item) => [item.submissionId, item.score])).toEqual([[s.a1!.id, 100], [s.a2!.id, 0]]);
    expect(await ownScores(contest.id, alice)).toEqual([cell(p, 0, seconds(contest, s.a2!))]);
    expect(await prizesOf(contest.id, bob)).toEqual({ firstBlood: [prize(s.a1!, alice)], oneManSolve: [prize(s.a1!, alice)] });
    expect(await prizesOf(contest.id, admin)).toEqual({ firstBlood: [prize(s.a1!, alice)], oneManSolve: [] });
  });

  it('other users’ submissions after the freeze stay out of the contest submission list', async () => {
    const list = async (as: TestUser) => (await stack.expectCall(submissionContract.getContestSubmissions, 200, { as, params: { contestId: contest.id } })).map((item) => item.id);
    expect(await list(alice)).toEqual([s.a2!.id, s.a1!.id, s.b1!.id].sort((a, b) => b - a));
    expect(await list(admin)).toEqual([s.c1!.id, s.a2!.id, s.b2!.id, s.b1!.id, s.a1!.id]);
  });

  it('a replay past the freeze is refused to users; up to it is allowed', async () => {
    expect(await stack.expectCall(contract.getContestScoreboard, 403, { as: bob, params: { contestId: contest.id }, query: { at: iso(Date.now()) } })).toEqual(HIDDEN_BOARD);
    expect(await stack.expectCall(contract.getContestScoreboardColumns, 403, { as: bob, params: { contestId: contest.id }, query: { at: iso(Date.now()) } })).toEqual(HIDDEN_BOARD);
    expect(rows(await board(contest.id, bob, { at: freezeAt }))).toEqual([
      row(alice, 1, 100, seconds(contest, s.a1!), [cell(p, 100, seconds(contest, s.a1!))]),
      row(bob, 2, 30, seconds(contest, s.b1!), [cell(p, 30, seconds(contest, s.b1!))]),
    ]);
  });

  it('POST /contest/:id/reveal (admins) shows everyone the live board; without a freeze it is a 400', async () => {
    await stack.expectCall(contract.revealScoreboard, 403, { as: bob, params: { contestId: contest.id } });
    await stack.expectCall(contract.revealScoreboard, 401, { params: { contestId: contest.id } });
    expect(await stack.expectCall(contract.revealScoreboard, 200, { as: admin, params: { contestId: contest.id } })).toEqual({ ...contest, freezeAt });
    expect(await stack.expectCall(contract.revealScoreboard, 200, { as: admin, params: { contestId: contest.id } })).toEqual({ ...contest, freezeAt });
    const revealed = await board(contest.id, bob);
    expect(revealed.frozenAt).toBeNull();
    expect(rows(revealed)).toEqual(liveRows());
    expect(await prizesOf(contest.id, bob)).toEqual({ firstBlood: [prize(s.a1!, alice)], oneManSolve: [] });
    const plain = await createContest({ name: 'Never frozen' });
    expect(await stack.expectCall(contract.revealScoreboard, 400, { as: admin, params: { contestId: plain.id } })).toEqual({ message: 'The contest has no freeze to reveal' });
  });

  it('a new freeze moment freezes the board again; a freeze still to come does not', async () => {
    const future = iso(Date.now() + 30 * MINUTE);
    await patch(contest.id, { freezeAt: future });
    const before = await board(contest.id, bob);
    expect(before.frozenAt).toBeNull();
    expect(rows(before)).toEqual(liveRows());
    const again = iso(Date.parse(freezeAt) + 1);
    await patch(contest.id, { freezeAt: again });
    expect((await board(contest.id, bob)).frozenAt).toBe(again);
  });

  it('freezeAt: null removes a freeze nobody revealed', async () => {
    const frozenSince = iso(nowSecond() - MINUTE);
    const other = await createContest({ name: 'Unfreeze', freezeAt: frozenSince }, [p]);
    expect((await board(other.id, bob)).frozenAt).toBe(frozenSince);
    await patch(other.id, { freezeAt: null });
    expect((await board(other.id, bob)).frozenAt).toBeNull();
  });

  // A reveal names the freeze it lifted: with no freeze left the contest is simply not frozen (it once answered 500).
  it('a revealed freeze can be removed: the contest, the lists and the board still read', async () => {
    const unfrozen = await createContest({ name: 'Revealed then unfrozen', freezeAt: iso(nowSecond() - MINUTE) }, [p]);
    try {
      await stack.expectCall(contract.revealScoreboard, 200, { as: admin, params: { contestId: unfrozen.id } });
      expect(await patch(unfrozen.id, { freezeAt: null })).toEqual({ ...unfrozen, freezeAt: null });
      expect(await stack.expectCall(contract.getContest, 200, { params: { contestId: unfrozen.id } })).toEqual({ ...unfrozen, freezeAt: null });
      expect((await stack.expectCall(contract.listContest, 200, {})).data[0]).toEqual({ ...unfrozen, freezeAt: null });
      expect((await board(unfrozen.id, bob)).frozenAt).toBeNull();
    } finally {
      await stack.expectCall(contract.deleteContest, 200, { as: admin, params: { contestId: unfrozen.id } });
    }
  });
});

describe('replaying the scoreboard', () => {
  let contest: Contest;
  let at: string;
  let alice: TestUser, bob: TestUser, carol: TestUser, dave: TestUser;
  const s: Record<string, Submission> = {};
  beforeAll(async () => {
    [alice, bob, carol, dave] = await users(4);
    const p = await problem('Replay');
    contest = await createContest({ name: 'Replay' }, [p]);
    s.a1 = await submit(alice, contest.id, p);
    await judge(s.a1, 'accept', 100);
    s.b1 = await submit(bob, contest.id, p);
    await judge(s.b1, 'reject', 40);
    s.d1 = await submit(dave, contest.id, p);
    await judge(s.d1, 'accept', 100);
    // Rejudged before the moment, judged again only after it: waiting then.
    await rejudge(s.d1);
    await pause(20);
    at = iso(Date.now());
    await pause(20);
    s.c1 = await submit(carol, contest.id, p);
    await judge(s.c1, 'accept', 100);
    await rejudge(s.a1);
    await judge(s.a1, 'reject', 20);
    await judge(s.d1, 'reject', 10);
  });

  const entry = (user: TestUser, rank: number, submission: Submission, score: number) =>
    row(user, rank, score, seconds(contest, submission), [cell(submission.problem.id, score, seconds(contest, submission))]);

  it('judged=then: the verdicts known at that moment; later submissions and contestants do not count', async () => {
    const replay = await board(contest.id, admin, { at, judged: 'then' });
    expect(replay.frozenAt).toBeNull();
    expect(rows(replay)).toEqual([entry(alice, 1, s.a1!, 100), entry(bob, 2, s.b1!, 40), row(dave, 3, 0, 0)]);
  });

  it('judged=now (the default): today’s verdicts of the submissions made by then', async () => {
    const expected = [entry(bob, 1, s.b1!, 40), entry(alice, 2, s.a1!, 20), entry(dave, 3, s.d1!, 10)];
    expect(rows(await board(contest.id, admin, { at, judged: 'now' }))).toEqual(expected);
    expect(rows(await board(contest.id, admin, { at }))).toEqual(expected);
    expect(rows(await board(contest.id, bob, { at }))).toEqual(expected);
    expect(rows(await board(contest.id, bob, { at, judged: 'then' }))).toEqual([entry(alice, 1, s.a1!, 100), entry(bob, 2, s.b1!, 40), row(dave, 3, 0, 0)]);
    expect(rows(await board(contest.id))).toEqual([entry(carol, 1, s.c1!, 100), ...expected.map((item) => ({ ...item, rank: item.rank + 1 }))]);
  });

  it('before the start the board is empty (admins) or not yet available (users); malformed queries are 400s', async () => {
    const before = iso(Date.parse(contest.timeStart) - MINUTE);
    expect(rows(await board(contest.id, admin, { at: before, judged: 'then' }))).toEqual([]);
    expect(await stack.expectCall(contract.getContestScoreboard, 403, { as: bob, params: { contestId: contest.id }, query: { at: before } })).toEqual(HIDDEN_BOARD);
    await stack.expectCall(contract.getContestScoreboard, 400, { as: admin, params: { contestId: contest.id }, query: { at: 'yesterday' } });
    await stack.expectCall(contract.getContestScoreboard, 400, { as: admin, params: { contestId: contest.id }, query: { at, judged: 'later' } });
  });
});

describe('hidden problems in contests', () => {
  it('a participant reads a hidden contest problem while the contest runs; nobody else, and not after it', async () => {
    const [alice, bob] = await users(2);
    const hidden = await problem('Hidden Gem', { show: false });
    const contest = await createContest({ name: 'Hidden' }, [hidden]);
    const read = (as: TestUser | null, status: 200 | 403) => stack.expectCall(problemContract.getProblem, status, { as, params: { problemId: hidden } });
    expect(await read(alice, 403)).toEqual({ message: 'This problem is hidden' });
    await submit(alice, contest.id, hidden);
    expect(await read(alice, 200)).toMatchObject({ id: hidden, name: 'Hidden Gem', show: false });
    expect(await read(bob, 403)).toEqual({ message: 'This problem is hidden' });
    await read(null, 403);
    await read(admin, 200);
    // A signed-up participant reads it too, until the problem leaves the contest.
    await signUp(contest.id, bob);
    await read(bob, 200);
    await stack.expectCall(contract.toggleProblemToContest, 200, { as: admin, params: { contestId: contest.id, problemId: hidden }, body: { show: false } });
    await read(bob, 403);
    await read(alice, 403);
    await addProblems(contest.id, [hidden]);
    const refused = await stack.call(submissionContract.uploadFile, { as: alice, params: { problemId: hidden }, form: SOURCE });
    expect(refused.statusCode).toBe(400);
    const inContest = (as: TestUser, status: 200 | 403) =>
      stack.expectCall(contract.getContestProblem, status, { as, params: { contestId: contest.id, problemId: hidden } });
    await inContest(bob, 200);
    await patch(contest.id, finished());
    expect(await read(alice, 403)).toEqual({ message: 'This problem is hidden' });
    // Over, the contest no longer opens its hidden problem either.
    expect(await inContest(bob, 403)).toEqual({ message: 'This problem is hidden' });
    await inContest(admin, 200);
    await patch(contest.id, pending());
    await read(alice, 403);
    await read(admin, 200);
  });
});
