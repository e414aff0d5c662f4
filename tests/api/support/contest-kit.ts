/**
 * Contests through the public API for the contest suites: contests and their problems, submissions through
 * the real upload route, and verdicts and rejudges appended to the log as the judge would, each helper
 * waiting for the read models it feeds.
 */
import { afterAll, beforeAll } from 'vitest';
import { startContestEndScheduler, type ContestEndScheduler } from '@otog/api/modules/contests/contest-end-scheduler';
import { sql } from '@otog/platform/db/pool';
import { createLogger } from '@otog/platform/log/logger';
import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { Position } from '@otog/platform/eventstore/position';
import { contestContract as contract, type Contest, type ContestInput } from '@otog/schemas/api/contest';
import { submissionContract, type Submission } from '@otog/schemas/api/submission';
import { startStack, type CallOptions, type Stack, type TestUser } from './stack.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const iso = (ms: number) => new Date(ms).toISOString();
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Whole seconds, so the times a test computes with are exactly the stored ones. */
export const nowSecond = () => Math.floor(Date.now() / 1000) * 1000;
export const running = () => ({ timeStart: iso(nowSecond() - HOUR), timeEnd: iso(nowSecond() + HOUR) });
export const pending = () => ({ timeStart: iso(nowSecond() + HOUR), timeEnd: iso(nowSecond() + 2 * HOUR) });
export const finished = () => ({ timeStart: iso(nowSecond() - 2 * HOUR), timeEnd: iso(nowSecond() - HOUR) });

/** A C++ source file for the upload route. */
export const SOURCE: NonNullable<CallOptions['form']> = { fields: { language: 'cpp' }, files: { sourceCode: { filename: 'a.cpp', content: 'int main(){}\n' } } };
export type Status = 'accept' | 'reject' | 'compileError';

/** The read models the helpers wait for. */
const CONTEST_READ_MODELS = ['contests', 'contest_scores', 'ratings'];

/** The helpers, reading the suite's stack and admin when called (they are set in its beforeAll). */
export function contestKit(env: () => { stack: Stack; admin: TestUser }) {
  const stackOf = () => env().stack;
  const adminOf = () => env().admin;
  const settings = (overrides: Partial<ContestInput> = {}): ContestInput =>
    ({ name: 'Contest', mode: 'unrated', gradingMode: 'classic', scoreboardPolicy: 'DURING_CONTEST', ...running(), ...overrides });

  async function createContest(overrides: Partial<ContestInput> = {}, problemIds: number[] = []): Promise<Contest> {
    const contest = await stackOf().expectCall(contract.createContest, 200, { as: adminOf(), body: settings(overrides) });
    if (problemIds.length > 0) await addProblems(contest.id, problemIds);
    return contest;
  }
  const addProblems = (contestId: number, problemIds: number[]) =>
    stackOf().expectCall(contract.putProblemToContest, 200, { as: adminOf(), params: { contestId }, body: problemIds.map((problemId) => ({ problemId })) });
  const patch = (contestId: number, body: Partial<ContestInput>) => stackOf().expectCall(contract.patchContest, 200, { as: adminOf(), params: { contestId }, body });
  const signUp = (contestId: number, user: TestUser) => stackOf().expectCall(contract.contestSignUp, 200, { as: adminOf(), params: { contestId }, body: { userId: user.id } });

  /** A problem made from its events (the problem routes are another module's). */
  async function problem(name: string, options: { show?: boolean; score?: number } = {}): Promise<number> {
    const problemId = Number(await stackOf().deps.pool.oneFirst(sql.unsafe`SELECT nextval('problem_ids')`));
    const scope = `problem:${problemId}`;
    const appended = await stackOf().deps.store.append(`problem-${problemId}`, [
      { type: 'ProblemDetailsSet', scope, data: { problemId, name, sname: null, case: null } },
      { type: 'ProblemJudgingConfigured', scope, data: { problemId, score: options.score ?? 100, timeLimit: 1_000, memoryLimit: 256 } },
      { type: 'ProblemVisibilityChanged', scope, data: { problemId, show: options.show ?? true } },
    ]);
    await settle(appended.lastPosition, scope, ['problems', ...CONTEST_READ_MODELS]);
    return problemId;
  }

  async function settle(position: Position, scope: string, projections: string[]): Promise<void> {
    for (const name of projections) await stackOf().deps.projections.waitFor(name, { ...position, scope }, 10_000);
  }

  const upload = (user: TestUser, contestId: number, problemId: number) =>
    stackOf().call(submissionContract.uploadFile, { as: user, params: { problemId }, query: { contestId }, form: SOURCE });

  /** A contest submission through the upload route; waits until the contest read models have it. */
  async function submit(user: TestUser, contestId: number, problemId: number): Promise<Submission> {
    const created = await stackOf().expectCall(submissionContract.uploadFile, 200, { as: user, params: { problemId }, query: { contestId }, form: SOURCE });
    const [event] = await stackOf().deps.store.readStream(`submission-${created.id}`);
    await settle(event!, event!.scope, CONTEST_READ_MODELS);
    return created;
  }

  async function appendToSubmission(submission: Submission, events: Array<Omit<NewEvent, 'scope'>>): Promise<void> {
    const scope = `contest:${submission.contestId}`;
    const appended = await stackOf().deps.store.append(`submission-${submission.id}`, events.map((event) => ({ ...event, scope })));
    await settle(appended.lastPosition, scope, ['submissions', ...CONTEST_READ_MODELS]);
  }

  /** Subtasks as [raw points, full points]; by default one subtask worth 100 scoring `score`. */
  async function judge(submission: Submission, status: Status, score: number, subtasks: Array<[number, number]> = [[score, 100]], stale = false) {
    const stream = await stackOf().deps.store.readStream(`submission-${submission.id}`);
    const requests = stream.filter((event) => event.type === 'SubmissionCreated' || event.type === 'RejudgeRequested');
    // stale: a late report of the first judging, overtaken by a rejudge.
    const judging = (stale ? requests[0] : requests.at(-1))!.streamPosition;
    const subtaskResults =
      status === 'compileError' ? [] : subtasks.map(([raw, full], index) => ({ subtaskIndex: index + 1, score: raw, fullScore: full, verdicts: [] }));
    const result = { status, result: status, score, timeUsed: 5, memUsed: 1_024, errmsg: null, subtaskResults };
    await appendToSubmission(submission, [{ type: 'SubmissionJudged', data: { submissionId: submission.id, judging, ...result, judgedBy: 'test', attempts: 1 } }]);
  }
  const rejudge = (submission: Submission) => appendToSubmission(submission, [{ type: 'RejudgeRequested', data: { submissionId: submission.id, requestedBy: adminOf().id } }]);

  return { settings, createContest, addProblems, patch, signUp, problem, settle, upload, submit, appendToSubmission, judge, rejudge };
}

/**
 * For a test file whose contests end while it runs: starts a stack, an admin and the contest-end scheduler
 * (polling every `pollMs`) before its tests, hands the first two to `started`, and stops all after them.
 */
export function withContestEnds(name: string, pollMs: number, started: (stack: Stack, admin: TestUser) => void): void {
  let stack: Stack | undefined;
  let scheduler: ContestEndScheduler | undefined;
  beforeAll(async () => {
    stack = await startStack();
    started(stack, await stack.createUser({ role: 'admin' }));
    scheduler = startContestEndScheduler({ pool: stack.deps.pool, store: stack.deps.store, logger: createLogger({ name, level: 'silent' }), pollMs });
  }, 60_000);
  afterAll(async () => {
    await scheduler?.stop();
    await stack?.stop();
  });
}
