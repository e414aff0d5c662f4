/**
 * The kept scoreboards (board-cache.ts): after each kind of change a board shows (a verdict, a sign-up, a
 * show name, a problem's name, the contest's settings, a freeze and its reveal, a rating), both board routes
 * answer what a fresh build of the same view gives, byte for byte, although the board was read (and kept)
 * just before the change. An unchanged board is a 304 for its ETag; compressed answers are the same JSON.
 * A board's changes since an answer bring that answer to the board read whole.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { columnsScoreboard, otogScoreboard } from '@otog/api/modules/contests/board-answers';
import { buildBoard, type KeptView } from '@otog/api/modules/contests/board-cache';
import { contestContract as contract, type Contest } from '@otog/schemas/api/contest';
import { problemContract } from '@otog/schemas/api/problem';
import { userContract } from '@otog/schemas/api/user';
import { applyBoardChanges, shownBoardOf } from '../../web/src/features/contests/scoreboard/board.ts';
import { until } from '../support/until.ts';
import { contestKit, withContestEnds, HOUR, iso, nowSecond } from './support/contest-kit.ts';
import type { Stack, TestUser } from './support/stack.ts';

let stack: Stack;
let admin: TestUser;

withContestEnds('board-cache-test', 300, (started, startedAdmin) => {
  stack = started;
  admin = startedAdmin;
});

const { createContest, patch, signUp, problem, submit, judge, settle } = contestKit(() => ({ stack, admin }));

const LIVE: KeptView = { kind: 'live' };

/** Both routes' answers as `as` sees them, raw (and checked against their contracts by expectResponse). */
async function answers(contestId: number, as: TestUser) {
  const otog = await stack.expectResponse(contract.getContestScoreboard, 200, { as, params: { contestId } });
  const columns = await stack.expectResponse(contract.getContestScoreboardColumns, 200, { as, params: { contestId } });
  return { otog: otog.response, columns: columns.response };
}

/** Both routes answer, as `as`, exactly what a fresh build of `view` gives; the OTOG-shaped board is returned. */
async function expectFresh(contestId: number, as: TestUser, view: KeptView = LIVE) {
  const { otog, columns } = await answers(contestId, as);
  const fresh = await buildBoard(stack.deps.pool, contestId, view);
  expect(fresh).not.toBeNull();
  expect(otog.body).toBe(JSON.stringify(otogScoreboard(fresh!.board)));
  expect(columns.body).toBe(JSON.stringify(columnsScoreboard(fresh!.board)));
  return otogScoreboard(fresh!.board);
}

describe('a kept scoreboard', () => {
  let contest: Contest;
  let p1: number;
  let p2: number;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    [alice, bob, carol] = [await stack.createUser(), await stack.createUser(), await stack.createUser()];
    [p1, p2] = [await problem('Cache one'), await problem('Cache two')];
    contest = await createContest({ name: 'Cache round' }, [p1, p2]);
    await judge(await submit(alice, contest.id, p1), 'accept', 100);
    await judge(await submit(bob, contest.id, p1), 'reject', 40);
  });

  it('is a 304 for its ETag while unchanged, and the same JSON gzip- or brotli-compressed', async () => {
    const first = await stack.expectResponse(contract.getContestScoreboard, 200, { as: alice, params: { contestId: contest.id } });
    const etag = String(first.response.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    const again = await stack.call(contract.getContestScoreboard, { as: alice, params: { contestId: contest.id }, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const br = await stack.call(contract.getContestScoreboard, { as: alice, params: { contestId: contest.id }, headers: { 'accept-encoding': 'br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(first.response.body);
    const gzip = await stack.call(contract.getContestScoreboardColumns, { as: alice, params: { contestId: contest.id }, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const columns = await stack.call(contract.getContestScoreboardColumns, { as: alice, params: { contestId: contest.id } });
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(columns.body);
    // The two routes are different answers.
    expect(columns.headers.etag).not.toBe(etag);
    await expectFresh(contest.id, alice);
  });

  it('follows a verdict, and the old ETag is then a full answer', async () => {
    const before = await stack.expectResponse(contract.getContestScoreboard, 200, { as: alice, params: { contestId: contest.id } });
    await judge(await submit(bob, contest.id, p2), 'accept', 100);
    const board = await expectFresh(contest.id, alice);
    expect(board.userContest.find((row) => row.userId === bob.id)?.totalScore).toBe(140);
    const stale = await stack.call(contract.getContestScoreboard, { as: alice, params: { contestId: contest.id }, headers: { 'if-none-match': String(before.response.headers.etag) } });
    expect(stale.statusCode).toBe(200);
  });

  it('follows a sign-up', async () => {
    await expectFresh(contest.id, admin);
    await signUp(contest.id, carol);
    const board = await expectFresh(contest.id, admin);
    expect(board.userContest.map((row) => row.userId)).toContain(carol.id);
  });

  it('follows a show-name change (the accounts, written by commands, not folded)', async () => {
    await expectFresh(contest.id, alice);
    await stack.expectCall(userContract.updateShowName, 200, { as: alice, params: { userId: alice.id }, body: { showName: `Renamed ${alice.id}` } });
    const board = await expectFresh(contest.id, alice);
    expect(board.userContest.find((row) => row.userId === alice.id)?.user.showName).toBe(`Renamed ${alice.id}`);
  });

  it("follows a problem's new name", async () => {
    await expectFresh(contest.id, alice);
    await stack.expectCall(problemContract.updateProblem, 200, {
      as: admin,
      params: { problemId: p2 },
      form: { fields: { name: 'Cache two, renamed', sname: 'c2', score: '100', timeLimit: '1', memoryLimit: '256' } },
    });
    const board = await expectFresh(contest.id, alice);
    expect(board.contest.contestProblem.find((row) => row.problemId === p2)?.problem.name).toBe('Cache two, renamed');
  });

  it("follows the contest's settings", async () => {
    await expectFresh(contest.id, alice);
    await patch(contest.id, { name: 'Cache round, edited' });
    const board = await expectFresh(contest.id, alice);
    expect(board.contest.name).toBe('Cache round, edited');
  });

  it('keeps the frozen board apart from the live one, and a reveal shows everyone the live board', async () => {
    const freezeAt = iso(Date.now());
    await patch(contest.id, { freezeAt });
    await judge(await submit(carol, contest.id, p1), 'accept', 100);
    const frozen = await expectFresh(contest.id, alice, { kind: 'frozen', at: Date.parse(freezeAt) });
    expect(frozen.frozenAt).toBe(new Date(freezeAt).toISOString());
    expect(frozen.userContest.find((row) => row.userId === carol.id)?.contestScores).toEqual([{ problemId: p1, score: 0, penalty: 0, pending: 1 }]);
    const live = await expectFresh(contest.id, admin);
    expect(live.userContest.find((row) => row.userId === carol.id)?.totalScore).toBe(100);
    await stack.expectCall(contract.revealScoreboard, 200, { as: admin, params: { contestId: contest.id } });
    const revealed = await expectFresh(contest.id, alice);
    expect(revealed.frozenAt).toBeNull();
    expect(revealed.userContest.find((row) => row.userId === carol.id)?.totalScore).toBe(100);
  });
});

describe("a kept board's changes", () => {
  let contest: Contest;
  let p1: number;
  let users: TestUser[];

  /** The columns answer as `as` reads it, with its ETag. */
  const columnsNow = async (as: TestUser, contestId = contest.id) => {
    const { response, body } = await stack.expectResponse(contract.getContestScoreboardColumns, 200, { as, params: { contestId } });
    return { etag: String(response.headers.etag), board: body };
  };
  const changesSince = (as: TestUser, since: string, contestId = contest.id) => stack.expectCall(contract.getContestScoreboardChanges, 200, { as, params: { contestId }, query: { since } });

  beforeAll(async () => {
    // Three who submit, three who do not: changes name at most half the rows (more, and the board is read whole).
    users = await Promise.all(Array.from({ length: 6 }, () => stack.createUser()));
    p1 = await problem('Changes one');
    contest = await createContest({ name: 'Changes round' }, [p1, await problem('Changes two')]);
    for (const user of users) await signUp(contest.id, user);
  });

  it('bring the board a reader has to the one read whole, naming only the rows that changed', async () => {
    const [alice, bob, carol] = users as [TestUser, TestUser, TestUser];
    const first = await columnsNow(alice);
    expect(await changesSince(alice, first.etag)).toEqual({ etag: first.etag, changes: null });

    await judge(await submit(bob, contest.id, p1), 'accept', 100);
    const second = await columnsNow(alice);
    expect(second.etag).not.toBe(first.etag);
    const one = await changesSince(alice, first.etag);
    expect(one.etag).toBe(second.etag);
    expect(one.changes?.changed.userId).toEqual([bob.id]);
    // Bob passed Alice and Carol: their ranks moved, their rows did not.
    expect(applyBoardChanges(shownBoardOf(first.board, first.etag), one.changes!, one.etag)).toEqual(shownBoardOf(second.board, second.etag));

    await judge(await submit(carol, contest.id, p1), 'reject', 30);
    await judge(await submit(alice, contest.id, p1), 'accept', 100);
    const third = await columnsNow(bob);
    // From the first board: every answer made since, joined.
    const two = await changesSince(bob, first.etag);
    expect(two.etag).toBe(third.etag);
    expect(new Set(two.changes?.changed.userId)).toEqual(new Set([alice.id, bob.id, carol.id]));
    expect(applyBoardChanges(shownBoardOf(first.board, first.etag), two.changes!, two.etag)).toEqual(shownBoardOf(third.board, third.etag));
    const fromSecond = await changesSince(bob, second.etag);
    expect(new Set(fromSecond.changes?.changed.userId)).toEqual(new Set([alice.id, carol.id]));

    // More than half the rows changed since the first board: that reader reads the board whole.
    await judge(await submit(users[3]!, contest.id, p1), 'reject', 10);
    const fourth = await columnsNow(bob);
    expect(await changesSince(bob, first.etag)).toEqual({ etag: fourth.etag, changes: null });
    expect((await changesSince(bob, third.etag)).changes?.changed.userId).toEqual([users[3]!.id]);
  });

  it('of a frozen board as a contestant sees it: a submission after the freeze is a pending count, and a live ETag is not of this board', async () => {
    const [dave, erin] = [await stack.createUser(), await stack.createUser()];
    const p = await problem('Changes frozen');
    const frozen = await createContest({ name: 'Changes frozen round' }, [p]);
    for (const user of [dave, erin, ...users]) await signUp(frozen.id, user);
    await judge(await submit(dave, frozen.id, p), 'accept', 100);
    await patch(frozen.id, { freezeAt: iso(Date.now()) });
    const before = await columnsNow(erin, frozen.id);
    expect(before.board.frozenAt).not.toBeNull();
    const live = await columnsNow(admin, frozen.id);
    expect(live.board.frozenAt).toBeNull();

    await judge(await submit(erin, frozen.id, p), 'accept', 100);
    const after = await columnsNow(erin, frozen.id);
    const changes = await changesSince(erin, before.etag, frozen.id);
    expect(changes.etag).toBe(after.etag);
    expect(changes.changes?.changed).toMatchObject({ userId: [erin.id], score: [0], pending: [1] });
    expect(applyBoardChanges(shownBoardOf(before.board, before.etag), changes.changes!, changes.etag)).toEqual(shownBoardOf(after.board, after.etag));
    expect(await changesSince(erin, live.etag, frozen.id)).toEqual({ etag: after.etag, changes: null });
  });

  it('cannot tell from an ETag the server never made: read the whole board', async () => {
    const now = await columnsNow(users[0]!);
    expect(await changesSince(users[0]!, 'W/"made up"')).toEqual({ etag: now.etag, changes: null });
  });

  it('refuses a missing or oversized `since` and an unknown contest', async () => {
    const params = { contestId: contest.id };
    await stack.expectCall(contract.getContestScoreboardChanges, 400, { as: users[0]!, params });
    await stack.expectCall(contract.getContestScoreboardChanges, 400, { as: users[0]!, params, query: { since: 'x'.repeat(201) } });
    await stack.expectCall(contract.getContestScoreboardChanges, 404, { as: users[0]!, params: { contestId: 999_999 }, query: { since: 'W/"a"' } });
  });
});

it('follows a rating: the final ranks and ratings appear on the kept board', async () => {
  const [dave, erin] = [await stack.createUser(), await stack.createUser()];
  const p = await problem('Cache rated');
  const contest = await createContest({ name: 'Cache rated round', mode: 'rated', timeStart: iso(nowSecond() - HOUR), timeEnd: iso(nowSecond() + 2_000) }, [p]);
  await judge(await submit(dave, contest.id, p), 'accept', 100);
  await judge(await submit(erin, contest.id, p), 'reject', 10);
  const before = await expectFresh(contest.id, dave);
  expect(before.userContest.every((row) => row.ratingAfterUpdate === null)).toBe(true);
  await until(
    `contest ${contest.id} to be confirmed ended`,
    async () => (await stack.deps.store.readStream(`contest-${contest.id}`)).some((event) => event.type === 'ContestEnded'),
    15_000,
  );
  const stream = await stack.deps.store.readStream(`contest-${contest.id}`);
  await settle(stream.at(-1)!, `contest:${contest.id}`, ['ratings']);
  const after = await expectFresh(contest.id, dave);
  const row = after.userContest.find((entry) => entry.userId === dave.id);
  expect(row?.ratingAfterUpdate).toEqual(expect.any(Number));
  expect(row?.user.rating).toBe(row?.ratingAfterUpdate);
  expect(after.contest.userContest.find((entry) => entry.userId === dave.id)?.rank).toBe(1);
});
