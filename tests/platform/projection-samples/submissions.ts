import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { SampleStreams } from './index.ts';

const created = (submissionId: number, problemId: number, options: { userId?: number; contestId?: number; language?: 'c' | 'cpp' | 'python' } = {}): NewEvent => {
  const userId = options.userId ?? 1;
  const contestId = options.contestId ?? null;
  const language = options.language ?? 'cpp';
  return {
    type: 'SubmissionCreated',
    scope: contestId === null ? `user:${userId}` : `contest:${contestId}`,
    data: {
      submissionId,
      userId,
      problemId,
      contestId,
      language,
      sourceCode: `// submission ${submissionId}\nint main() { return 0; }\n`,
      fileName: language === 'python' ? `${problemId}.py` : `a.${language}`,
    },
  };
};

const tested = (submissionId: number, judging: number, testNumber: number, scope: string): NewEvent => ({
  type: 'TestcaseJudged',
  scope,
  data: { submissionId, judging, testNumber, outcome: { status: 'ACCEPTED', timeUsed: 3 * testNumber, memUsed: 1_024 } },
});

const judged = (submissionId: number, judging: number, scope: string, outcome: 'accept' | 'reject' | 'compileError'): NewEvent => ({
  type: 'SubmissionJudged',
  scope,
  data: {
    submissionId,
    judging,
    status: outcome,
    result: outcome === 'accept' ? 'PP' : outcome === 'reject' ? 'P-' : 'Compilation Error',
    score: outcome === 'accept' ? 100 : outcome === 'reject' ? 50 : 0,
    timeUsed: outcome === 'compileError' ? 0 : 6,
    memUsed: outcome === 'compileError' ? 0 : 1_024,
    errmsg: outcome === 'compileError' ? 'a.cpp:1: error: expected ;' : null,
    subtaskResults:
      outcome === 'compileError'
        ? []
        : [
            {
              subtaskIndex: 1,
              score: outcome === 'accept' ? 2 : 1,
              fullScore: 2,
              verdicts: [
                { testcaseIndex: 1, status: 'ACCEPTED', percent: 1, timeUsed: 3, memUsed: 1_024 },
                { testcaseIndex: 2, status: outcome === 'accept' ? 'ACCEPTED' : 'REJECTED', percent: outcome === 'accept' ? 1 : 0, timeUsed: 6, memUsed: 1_024 },
              ],
            },
          ],
    judgedBy: 'worker-a',
    attempts: 1,
  },
});

const rejudge = (submissionId: number, scope: string): NewEvent => ({ type: 'RejudgeRequested', scope, data: { submissionId, requestedBy: 9 } });

const registered = (userId: number, role: 'user' | 'admin'): NewEvent => ({
  type: 'UserRegistered',
  scope: `user:${userId}`,
  data: { userId, username: `submitter${userId}`, showName: `Submitter ${userId}`, role },
});

/**
 * Sample streams for the submissions projection (see projection-redelivery.test.ts): judged, shared,
 * rejudged with a stale report of the older judging arriving late, a contest submission, one still
 * waiting, and a deleted problem taking its submissions with it. For the passed counts: users 1-3 sign
 * up, user 3 solves problem 3 and is then made an admin (no longer counted); user 2's accept in contest 8
 * counts until the contest is deleted.
 */
export const submissionsSamples: SampleStreams = [
  ['user-1', [registered(1, 'user')]],
  ['user-2', [registered(2, 'user')]],
  ['user-3', [registered(3, 'user')]],
  ['submission-1', [created(1, 1), tested(1, 1, 1, 'user:1'), tested(1, 1, 2, 'user:1'), judged(1, 1, 'user:1', 'accept'), { type: 'SubmissionShared', scope: 'user:1', data: { submissionId: 1, public: true } }]],
  [
    'submission-2',
    [
      created(2, 1, { userId: 2, contestId: 5 }),
      tested(2, 1, 1, 'contest:5'),
      judged(2, 1, 'contest:5', 'reject'),
      rejudge(2, 'contest:5'), // judging 4
      judged(2, 1, 'contest:5', 'accept'), // stale: the judging a rejudge replaced
      tested(2, 1, 2, 'contest:5'), // stale too
      tested(2, 4, 1, 'contest:5'),
      judged(2, 4, 'contest:5', 'reject'),
    ],
  ],
  ['submission-3', [created(3, 2, { userId: 3, language: 'c' }), judged(3, 1, 'user:3', 'compileError')]],
  [
    'submission-4',
    [
      created(4, 1, { userId: 3, language: 'python' }),
      rejudge(4, 'user:3'), // judging 2
      rejudge(4, 'user:3'), // judging 3
      judged(4, 2, 'user:3', 'accept'), // stale
      tested(4, 3, 1, 'user:3'), // grading
      { type: 'SubmissionShared', scope: 'user:3', data: { submissionId: 4, public: true } },
      { type: 'SubmissionShared', scope: 'user:3', data: { submissionId: 4, public: false } },
    ],
  ],
  ['submission-5', [created(5, 3, { userId: 2 })]],
  ['submission-6', [created(6, 2, { userId: 1 }), tested(6, 1, 1, 'user:1')]],
  ['problem-2', [{ type: 'ProblemDeleted', scope: 'problem:2', data: { problemId: 2 } }]],
  ['submission-7', [created(7, 3, { userId: 3 }), judged(7, 1, 'user:3', 'accept')]],
  ['submission-8', [created(8, 3, { userId: 2, contestId: 8 }), judged(8, 1, 'contest:8', 'accept')]],
  ['user-3', [{ type: 'UserUpdated', scope: 'user:3', data: { userId: 3, username: 'submitter3', showName: 'Submitter 3', role: 'admin' } }]],
  ['contest-8', [{ type: 'ContestDeleted', scope: 'contest:8', data: { contestId: 8 } }]],
];
