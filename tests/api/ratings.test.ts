/**
 * Ratings end to end: a rated contest is run through the public API, its end passes and the end scheduler
 * confirms it, and the ratings appear on profiles, the rating graph's route, the scoreboard and wherever
 * OTOG's shapes carry a user's rating; a rejudge after the end re-rates; an unrated contest changes nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { authContract } from '@otog/schemas/api/auth';
import { contestContract, type Contest } from '@otog/schemas/api/contest';
import { submissionContract, type Submission } from '@otog/schemas/api/submission';
import { userContract } from '@otog/schemas/api/user';
import { until } from '../support/until.ts';
import { contestKit, withContestEnds, HOUR, iso, nowSecond } from './support/contest-kit.ts';
import type { Stack, TestUser } from './support/stack.ts';

let stack: Stack;
let admin: TestUser;
const { createContest, problem, submit, judge, rejudge, settle } = contestKit(() => ({ stack, admin }));

withContestEnds('ratings-test', 500, (started, startedAdmin) => {
  stack = started;
  admin = startedAdmin;
});

const profile = (user: TestUser) => stack.expectCall(userContract.profile, 200, { as: user, params: { userId: user.id } });
const ratingOf = async (user: TestUser) => (await profile(user)).rating;

/** Waits until the contest's ContestEnded is appended and the ratings projection has folded it. */
async function endConfirmed(contest: Contest): Promise<void> {
  await until(
    `contest ${contest.id} to be confirmed ended`,
    async () => (await stack.deps.store.readStream(`contest-${contest.id}`)).some((event) => event.type === 'ContestEnded'),
    15_000,
  );
  const stream = await stack.deps.store.readStream(`contest-${contest.id}`);
  await settle(stream.at(-1)!, `contest:${contest.id}`, ['ratings']);
}

describe('a rated contest', () => {
  let contest: Contest;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let carolsSubmission: Submission;

  beforeAll(async () => {
    [alice, bob, carol] = [await stack.createUser(), await stack.createUser(), await stack.createUser()];
    const p = await problem('Rated');
    contest = await createContest({ name: 'Rated round', mode: 'rated', timeStart: iso(nowSecond() - HOUR), timeEnd: iso(nowSecond() + 3_000) }, [p]);
    await judge(await submit(alice, contest.id, p), 'accept', 100);
    await judge(await submit(bob, contest.id, p), 'reject', 50);
    carolsSubmission = await submit(carol, contest.id, p);
    await judge(carolsSubmission, 'reject', 0);
    expect(await ratingOf(alice)).toBeNull();
    await endConfirmed(contest);
  });

  it('rates its participants once it ends: profiles, the rating route, login and the scoreboard', async () => {
    const [a, b, c] = [await profile(alice), await profile(bob), await profile(carol)];
    expect(a.userContest).toEqual([{ rank: 1, ratingAfterUpdate: a.rating, contest: { id: contest.id, name: 'Rated round', timeStart: contest.timeStart } }]);
    expect(b.userContest.map((row) => row.rank)).toEqual([2]);
    expect(c.userContest.map((row) => row.rank)).toEqual([3]);
    expect(a.rating!).toBeGreaterThan(1500);
    expect(c.rating!).toBeLessThan(1500);
    expect(a.rating! + c.rating!).toBeCloseTo(3000, -1);

    const graph = await stack.expectCall(userContract.ratingHistory, 200, { as: bob, params: { userId: alice.id } });
    expect(graph).toEqual([{ contestId: contest.id, name: 'Rated round', timeStart: contest.timeStart, timeEnd: expect.any(String), rank: 1, rating: a.rating }]);
    expect(Date.parse(graph[0]!.timeEnd)).toBe(Date.parse(contest.timeEnd));

    const login = await stack.expectCall(authContract.login, 200, { body: { username: alice.username, password: alice.password } });
    expect(login.user.rating).toBe(a.rating);

    const board = await stack.expectCall(contestContract.getContestScoreboard, 200, { as: admin, params: { contestId: contest.id } });
    expect(board.userContest.map((row) => [row.userId, row.rank, row.ratingAfterUpdate, row.user.rating])).toEqual([
      [alice.id, 1, a.rating, a.rating],
      [bob.id, 2, b.rating, b.rating],
      [carol.id, 3, c.rating, c.rating],
    ]);
    expect(board.contest.userContest.find((row) => row.userId === carol.id)).toMatchObject({ rank: 3, ratingAfterUpdate: c.rating });

    const submission = await stack.expectCall(submissionContract.getSubmission, 200, { as: admin, params: { submissionId: carolsSubmission.id } });
    expect(submission.user.rating).toBe(c.rating);
  });

  it('a rejudge after the end re-rates the contest', async () => {
    const before = { alice: await ratingOf(alice), bob: await ratingOf(bob), carol: await ratingOf(carol) };
    await rejudge(carolsSubmission);
    await judge(carolsSubmission, 'accept', 100);
    // Carol now has Alice's score, submitted after hers: second, or first with her when in the same second
    // (penalties are whole seconds), as the board says; Bob third.
    const board = await stack.expectCall(contestContract.getContestScoreboard, 200, { as: admin, params: { contestId: contest.id } });
    const carolsRank = board.userContest.find((row) => row.userId === carol.id)!.rank;
    expect([1, 2]).toContain(carolsRank);
    expect((await profile(carol)).userContest.map((row) => row.rank)).toEqual([carolsRank]);
    expect((await profile(bob)).userContest.map((row) => row.rank)).toEqual([3]);
    expect(await ratingOf(carol)).toBeGreaterThan(before.carol!);
    expect(await ratingOf(bob)).toBeLessThan(before.bob!);
  });

  it('an unrated contest that ends changes no rating', async () => {
    const before = await Promise.all([alice, bob, carol].map(ratingOf));
    const p = await problem('Unrated');
    const unrated = await createContest({ name: 'Practice round', mode: 'unrated', timeStart: iso(nowSecond() - HOUR), timeEnd: iso(nowSecond() + 2_000) }, [p]);
    await judge(await submit(alice, unrated.id, p), 'reject', 0);
    await judge(await submit(carol, unrated.id, p), 'accept', 100);
    await endConfirmed(unrated);
    expect(await Promise.all([alice, bob, carol].map(ratingOf))).toEqual(before);
    expect((await profile(alice)).userContest.map((row) => row.contest.id)).toEqual([contest.id]);
  });
});
