import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { ContestSettings } from '@otog/schemas/events';
import type { SampleStreams } from './index.ts';

// Ids of their own: every sample is appended to one log in the golden replay and the relay test
// (contests 42-43, problems 54-56, users 21-24, submissions 520-531).
const may4 = (time: string) => `2024-05-04T${time}:00.000Z`;

export const round: ContestSettings = {
  name: 'OTOG Round 42',
  mode: 'rated',
  gradingMode: 'classic',
  scoreboardPolicy: 'DURING_CONTEST',
  timeStart: may4('09:00'),
  timeEnd: may4('12:00'),
  announce: null,
  freezeAt: may4('11:00'),
};
const icpc: ContestSettings = { ...round, name: 'OTOG ICPC mock', gradingMode: 'acm', scoreboardPolicy: 'AFTER_CONTEST', freezeAt: null };

export const contestEvent = (contestId: number, occurredAt: string, type: string, data: Record<string, unknown>): NewEvent => ({
  type,
  scope: `contest:${contestId}`,
  occurredAt,
  data: { contestId, ...data },
});

const scopeOf = (userId: number, contestId: number | null) => (contestId === null ? `user:${userId}` : `contest:${contestId}`);

/** A submission's first event: judging 1 is the stream position of this event. */
export const submitted = (submissionId: number, userId: number, problemId: number, contestId: number | null, occurredAt: string): NewEvent => ({
  type: 'SubmissionCreated',
  scope: scopeOf(userId, contestId),
  occurredAt,
  data: {
    submissionId,
    userId,
    problemId,
    contestId,
    language: submissionId % 2 === 0 ? 'cpp' : 'python',
    sourceCode: submissionId % 2 === 0 ? `// ${submissionId}\nint main() {}\n` : `# ${submissionId}\nprint(input())\n`,
    fileName: submissionId % 2 === 0 ? 'main.cpp' : 'main.py',
  },
});

/**
 * One judging's verdict. Each subtask is [passed tests, tests] with one point per test, so the raw
 * points are the passed tests and the score is scaled to a full score of 100 as the judge does.
 */
export const judged = (submissionId: number, judging: number, scope: string, subtasks: ReadonlyArray<readonly [number, number]>, occurredAt: string): NewEvent => {
  const raw = subtasks.reduce((total, [passed]) => total + passed, 0);
  const full = subtasks.reduce((total, [, tests]) => total + tests, 0);
  return {
    type: 'SubmissionJudged',
    scope,
    occurredAt,
    data: {
      submissionId,
      judging,
      status: raw === full ? 'accept' : 'reject',
      result: subtasks.map(([passed, tests]) => `[${'P'.repeat(passed)}${'-'.repeat(tests - passed)}]`).join(''),
      score: Math.round((raw * 100) / full),
      timeUsed: 40,
      memUsed: 3_072,
      errmsg: null,
      subtaskResults: subtasks.map(([passed, tests], index) => ({
        subtaskIndex: index + 1,
        score: passed,
        fullScore: tests,
        verdicts: Array.from({ length: tests }, (_, test) => ({
          testcaseIndex: test + 1,
          status: test < passed ? 'ACCEPTED' : 'REJECTED',
          percent: test < passed ? 1 : 0,
          timeUsed: 10 + test,
          memUsed: 3_072,
        })),
      })),
      judgedBy: 'worker-b',
      attempts: 1,
    },
  };
};

const compileError = (submissionId: number, judging: number, scope: string, occurredAt: string): NewEvent => ({
  type: 'SubmissionJudged',
  scope,
  occurredAt,
  data: {
    submissionId,
    judging,
    status: 'compileError',
    result: 'Compilation Error',
    score: 0,
    timeUsed: 0,
    memUsed: 0,
    errmsg: "main.cpp:2:13: error: expected ';' before '}' token",
    subtaskResults: [],
    judgedBy: 'worker-b',
    attempts: 1,
  },
});

export const rejudge = (submissionId: number, scope: string, occurredAt: string): NewEvent => ({
  type: 'RejudgeRequested',
  scope,
  occurredAt,
  data: { submissionId, requestedBy: 1 },
});

export const configured = (problemId: number, score: number, occurredAt: string): NewEvent => ({
  type: 'ProblemJudgingConfigured',
  scope: `problem:${problemId}`,
  occurredAt,
  data: { problemId, score, timeLimit: 1_000, memoryLimit: 256 },
});

const c42 = 'contest:42';
const c43 = 'contest:43';

/**
 * Sample streams for the contest_scores projection (see projection-redelivery.test.ts). Two problems are
 * configured at the default full score before the contest. Contest 42 (classic) gets judged submissions
 * with subtask results from three users: a better and a worse one, a rejudge whose stale report of the
 * replaced judging arrives after it, a compile error, one still waiting, and a practice submission that
 * is not the contest's. Then its grading mode becomes bestSubtask and its start moves earlier (both
 * re-score every cell), a rename re-scores nothing, a problem's full score doubles (re-scoring that
 * problem's cells) and a problem with a scored cell is deleted. Contest 43 (acm) is scored and deleted.
 * With the events appended in this order, contest 42 ends with three cells and four history rows.
 */
export const contestScoresSamples: SampleStreams = [
  [
    'contest-42',
    [
      contestEvent(42, '2024-05-01T08:00:00.000Z', 'ContestCreated', { settings: round }),
      contestEvent(42, '2024-05-01T08:01:00.000Z', 'ContestProblemsAdded', { problemIds: [54, 55, 56] }),
      contestEvent(42, '2024-05-01T08:02:00.000Z', 'ContestantSignedUp', { userId: 21 }),
    ],
  ],
  [
    'contest-43',
    [
      contestEvent(43, '2024-05-01T09:00:00.000Z', 'ContestCreated', { settings: icpc }),
      contestEvent(43, '2024-05-01T09:01:00.000Z', 'ContestProblemsAdded', { problemIds: [54] }),
    ],
  ],
  ['problem-55', [configured(55, 100, '2024-05-01T07:00:00.000Z')]],
  ['problem-56', [configured(56, 100, '2024-05-01T07:01:00.000Z')]],
  // The golden replay appends every stream at once: the submissions that make cells come last, so their
  // SubmissionCreated follows their contest's ContestCreated there too.
  ['submission-527', [submitted(527, 21, 54, null, may4('10:00')), judged(527, 1, 'user:21', [[2, 2], [3, 3]], may4('10:01'))]],
  ['submission-524', [submitted(524, 23, 55, 42, may4('10:15')), compileError(524, 1, c42, may4('10:15'))]],
  ['submission-526', [submitted(526, 21, 55, 42, may4('11:50'))]],
  ['submission-530', [submitted(530, 24, 54, 43, may4('09:15')), judged(530, 1, c43, [[2, 2], [2, 3]], may4('09:16'))]],
  ['submission-531', [submitted(531, 24, 54, 43, may4('09:45')), judged(531, 1, c43, [[2, 2], [3, 3]], may4('09:46'))]],
  [
    'submission-522',
    [
      submitted(522, 22, 54, 42, may4('09:20')),
      judged(522, 1, c42, [[0, 2], [3, 3]], may4('09:21')),
      rejudge(522, c42, may4('09:50')), // judging 3
      judged(522, 1, c42, [[2, 2], [3, 3]], may4('09:51')), // stale: the judging the rejudge replaced
      judged(522, 3, c42, [[2, 2], [1, 3]], may4('09:52')),
    ],
  ],
  ['submission-520', [submitted(520, 21, 54, 42, may4('09:10')), judged(520, 1, c42, [[2, 2], [0, 3]], may4('09:11'))]],
  ['submission-521', [submitted(521, 21, 54, 42, may4('09:35')), judged(521, 1, c42, [[1, 2], [3, 3]], may4('09:36'))]],
  ['submission-523', [submitted(523, 22, 55, 42, may4('10:05')), judged(523, 1, c42, [[3, 3], [2, 2], [5, 5]], may4('10:06'))]],
  ['submission-525', [submitted(525, 23, 56, 42, may4('10:30')), judged(525, 1, c42, [[4, 4]], may4('10:31'))]],
  [
    'contest-42',
    [
      contestEvent(42, may4('12:30'), 'ContestEdited', { settings: { ...round, gradingMode: 'bestSubtask' } }),
      // 15:30 in Bangkok: 08:30Z, half an hour earlier.
      contestEvent(42, may4('12:31'), 'ContestEdited', { settings: { ...round, gradingMode: 'bestSubtask', timeStart: '2024-05-04T15:30:00+07:00' } }),
      contestEvent(42, may4('12:32'), 'ContestEdited', {
        settings: { ...round, name: 'OTOG Round 42 (final)', gradingMode: 'bestSubtask', timeStart: '2024-05-04T15:30:00+07:00' },
      }),
    ],
  ],
  ['problem-54', [configured(54, 200, may4('12:40'))]],
  ['problem-56', [{ type: 'ProblemDeleted', scope: 'problem:56', occurredAt: may4('12:50'), data: { problemId: 56 } }]],
  ['contest-43', [contestEvent(43, may4('13:00'), 'ContestDeleted', {})]],
];
