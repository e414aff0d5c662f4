import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { ContestSettings } from '@otog/schemas/events';
import type { SampleStreams } from './index.ts';

// Ids of their own: every sample is appended to one log in the golden replay and the relay test
// (contests 40-41, problems 50-53, users 11-14, submissions 500-503).
const day = (date: string) => (time: string) => `2024-04-${date}T${time}:00.000Z`;
const before = day('01');
const during = day('06');

const weekly: ContestSettings = {
  name: 'OTOG Weekly #40',
  mode: 'rated',
  gradingMode: 'classic',
  scoreboardPolicy: 'DURING_CONTEST',
  timeStart: during('13:00'),
  timeEnd: during('16:00'),
  announce: null,
  freezeAt: during('15:00'),
};
const practice: ContestSettings = {
  name: 'Practice round (cancelled)',
  mode: 'unrated',
  gradingMode: 'bestSubmission',
  scoreboardPolicy: 'NOT_VISIBLE',
  timeStart: '2024-04-13T13:00:00.000Z',
  timeEnd: '2024-04-13T15:00:00.000Z',
  announce: '[{"type":"paragraph","children":[{"text":"Warm-up"}]}]',
  freezeAt: null,
};

const contestEvent = (contestId: number, occurredAt: string, type: string, data: Record<string, unknown>): NewEvent => ({
  type,
  scope: `contest:${contestId}`,
  occurredAt,
  data: { contestId, ...data },
});

const submitted = (submissionId: number, userId: number, problemId: number, contestId: number | null, occurredAt: string): NewEvent => ({
  type: 'SubmissionCreated',
  scope: contestId === null ? `user:${userId}` : `contest:${contestId}`,
  occurredAt,
  data: { submissionId, userId, problemId, contestId, language: 'cpp', sourceCode: `// ${submissionId}\nint main() {}\n`, fileName: 'main.cpp' },
});

/**
 * Sample streams for the contests projection (see projection-redelivery.test.ts): contest 40 is created,
 * given problems, signed up to, edited (renamed, its start restated in another offset), loses a problem
 * by removal and one by the problem's deletion, gains participants by submitting (once signed up, once not,
 * a practice submission joins nothing), is revealed, then re-frozen by a new freezeAt (which the earlier
 * reveal must not lift, however the events are redelivered). Contest 41 is created, filled and deleted.
 * A stream's events keep their contest's scope.
 */
export const contestsSamples: SampleStreams = [
  [
    'contest-40',
    [
      contestEvent(40, before('10:00'), 'ContestCreated', { settings: weekly }),
      contestEvent(40, before('10:01'), 'ContestProblemsAdded', { problemIds: [50, 51, 52] }),
      contestEvent(40, before('11:00'), 'ContestantSignedUp', { userId: 11 }),
      contestEvent(40, before('11:05'), 'ContestantSignedUp', { userId: 12 }),
      contestEvent(40, before('12:00'), 'ContestEdited', {
        settings: {
          ...weekly,
          name: 'OTOG Weekly #40 (Div. 2)',
          timeStart: '2024-04-06T20:00:00+07:00',
          announce: '[{"type":"paragraph","children":[{"text":"Good luck!"}]}]',
        },
      }),
      contestEvent(40, before('12:10'), 'ContestProblemRemoved', { problemId: 52 }),
      contestEvent(40, before('12:11'), 'ContestProblemsAdded', { problemIds: [53] }),
    ],
  ],
  [
    'contest-41',
    [
      contestEvent(41, before('14:00'), 'ContestCreated', { settings: practice }),
      contestEvent(41, before('14:01'), 'ContestProblemsAdded', { problemIds: [50, 53] }),
      contestEvent(41, before('14:02'), 'ContestantSignedUp', { userId: 11 }),
    ],
  ],
  ['submission-500', [submitted(500, 13, 50, 40, during('13:05'))]],
  ['submission-501', [submitted(501, 11, 53, 40, during('13:20'))]],
  ['submission-502', [submitted(502, 12, 50, null, during('13:30'))]],
  ['submission-503', [submitted(503, 14, 53, 41, '2024-04-13T13:10:00.000Z')]],
  ['problem-51', [{ type: 'ProblemDeleted', scope: 'problem:51', occurredAt: during('14:00'), data: { problemId: 51 } }]],
  [
    'contest-40',
    [
      contestEvent(40, during('16:05'), 'ContestScoreboardRevealed', { freezeAt: weekly.freezeAt }),
      contestEvent(40, during('16:10'), 'ContestEdited', {
        settings: {
          ...weekly,
          name: 'OTOG Weekly #40 (Div. 2)',
          scoreboardPolicy: 'AFTER_CONTEST',
          timeStart: '2024-04-06T20:00:00+07:00',
          announce: '[{"type":"paragraph","children":[{"text":"Good luck!"}]}]',
          freezeAt: during('15:30'),
        },
      }),
    ],
  ],
  ['contest-41', [contestEvent(41, '2024-04-13T16:00:00.000Z', 'ContestDeleted', {})]],
];
