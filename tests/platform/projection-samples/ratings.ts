import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { ContestSettings } from '@otog/schemas/events';
import { configured, contestEvent, judged, rejudge, round, submitted } from './contest-scores.ts';
import type { SampleStreams } from './index.ts';

// Ids of their own (contests 44-46, problem 57, users 25-28, submissions 532-538): every sample shares one log
// in the golden replay.
const june = (day: number, time: string) => `2024-06-${String(day).padStart(2, '0')}T${time}:00.000Z`;
const rated = (day: number): ContestSettings => ({ ...round, name: `Rated ${day}`, timeStart: june(day, '09:00'), timeEnd: june(day, '12:00'), freezeAt: null });

const registered = (userId: number, role: 'user' | 'admin'): [string, NewEvent[]] => [
  `user-${userId}`,
  [{ type: 'UserRegistered', scope: `user:${userId}`, data: { userId, username: `rated${userId}`, showName: `Rated ${userId}`, role } }],
];
/** A contest submission judged at once: one subtask of 10 tests, `passed` of them passed. */
const scored = (submissionId: number, userId: number, contestId: number, day: number, time: string, passed: number): [string, NewEvent[]] => [
  `submission-${submissionId}`,
  [submitted(submissionId, userId, 57, contestId, june(day, time)), judged(submissionId, 1, `contest:${contestId}`, [[passed, 10]], june(day, time))],
];
const ended = (contestId: number, timeEnd: string, at: string) => contestEvent(contestId, at, 'ContestEnded', { timeEnd });

/**
 * Sample streams for the ratings projection. Two rated contests end and are rated (44, then 45 a week
 * later; user 25 signed up to 44 without submitting, ranking last there), an unrated one (46) ends and
 * changes nothing, then after the ends: a rejudge in 44 gives 26 full marks, earlier than 28's (44 and 45 are rated again), user
 * 27 becomes an admin (leaving both standings), a rename of 45 re-rates nothing, its end moves a day
 * later (45 is no longer final: its results go) and is confirmed again, and 46 is deleted.
 */
export const ratingsSamples: SampleStreams = [
  registered(25, 'user'),
  registered(26, 'user'),
  registered(27, 'user'),
  registered(28, 'user'),
  ['problem-57', [configured(57, 100, june(1, '07:00'))]],
  [
    'contest-44',
    [
      contestEvent(44, june(1, '08:00'), 'ContestCreated', { settings: rated(1) }),
      contestEvent(44, june(1, '08:01'), 'ContestProblemsAdded', { problemIds: [57] }),
      contestEvent(44, june(1, '08:02'), 'ContestantSignedUp', { userId: 25 }),
    ],
  ],
  [
    'contest-45',
    [
      contestEvent(45, june(8, '08:00'), 'ContestCreated', { settings: rated(8) }),
      contestEvent(45, june(8, '08:01'), 'ContestProblemsAdded', { problemIds: [57] }),
    ],
  ],
  ['contest-46', [contestEvent(46, june(9, '08:00'), 'ContestCreated', { settings: { ...rated(9), mode: 'unrated' } })]],
  scored(532, 26, 44, 1, '09:30', 5),
  scored(533, 27, 44, 1, '10:00', 7),
  scored(534, 28, 44, 1, '10:30', 10),
  scored(535, 26, 45, 8, '09:30', 10),
  scored(536, 27, 45, 8, '10:00', 0),
  scored(537, 28, 45, 8, '11:00', 4),
  scored(538, 26, 46, 9, '10:00', 10),
  ['contest-44', [ended(44, june(1, '12:00'), june(1, '12:00'))]],
  ['contest-45', [ended(45, june(8, '12:00'), june(8, '12:00'))]],
  ['contest-46', [ended(46, june(9, '12:00'), june(9, '12:00'))]],
  ['submission-532', [rejudge(532, 'contest:44', june(10, '08:00')), judged(532, 3, 'contest:44', [[10, 10]], june(10, '08:01'))]],
  ['user-27', [{ type: 'UserUpdated', scope: 'user:27', occurredAt: june(10, '09:00'), data: { userId: 27, username: 'rated27', showName: 'Rated 27', role: 'admin' } }]],
  [
    'contest-45',
    [
      contestEvent(45, june(10, '10:00'), 'ContestEdited', { settings: { ...rated(8), name: 'Rated 8 (final)' } }),
      contestEvent(45, june(10, '10:01'), 'ContestEdited', { settings: { ...rated(8), name: 'Rated 8 (final)', timeEnd: june(9, '12:00') } }),
      ended(45, june(9, '12:00'), june(10, '10:02')),
    ],
  ],
  ['contest-46', [contestEvent(46, june(10, '11:00'), 'ContestDeleted', {})]],
];
