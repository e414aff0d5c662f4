import type { NewEvent } from '@otog/platform/eventstore/event-store';
import { announcementsSamples } from './announcements.ts';
import { chatSamples } from './chat.ts';
import { contestScoresSamples } from './contest-scores.ts';
import { contestsSamples } from './contests.ts';
import { problemsSamples } from './problems.ts';
import { ratingsSamples } from './ratings.ts';
import { submissionsSamples } from './submissions.ts';

/** [streamId, events] pairs a projection folds in the redelivery test. */
export type SampleStreams = Array<[string, NewEvent[]]>;

const productSamples: Record<string, SampleStreams> = {
  problems: problemsSamples,
  submissions: submissionsSamples,
  announcements: announcementsSamples,
  chat: chatSamples,
  contests: contestsSamples,
  contest_scores: contestScoresSamples,
  ratings: ratingsSamples,
};

/** Sample streams for every projection: [streamId, events]. Add one when a projection is added. */
export const samples: Record<string, SampleStreams> = {
  ...productSamples,
  ledger: Array.from({ length: 3 }, (_, s) => [
    `counter-${s}`,
    Array.from({ length: 25 }, (_, i) => ({ type: 'CounterIncremented', scope: `user:${s}`, data: { counter: `c${s}`, by: i - 5, seq: i } })),
  ]),
  // Configured, re-configured and given new test data in varying orders (one problem has no test data).
  judge_problems: Array.from({ length: 4 }, (_, p): [string, NewEvent[]] => [
    `problem-${p + 1}`,
    [
      ...(p === 3
        ? []
        : [{ type: 'ProblemTestdataUploaded', scope: `problem:${p + 1}`, data: { problemId: p + 1, testdataHash: 'a'.repeat(63) + p, case: '3' } }]),
      { type: 'ProblemJudgingConfigured', scope: `problem:${p + 1}`, data: { problemId: p + 1, score: 100, timeLimit: 1_000, memoryLimit: 256 } },
      { type: 'ProblemJudgingConfigured', scope: `problem:${p + 1}`, data: { problemId: p + 1, score: 50 + p, timeLimit: 2_000, memoryLimit: 64 * (p + 1) } },
      ...(p % 2 === 0
        ? [{ type: 'ProblemTestdataUploaded', scope: `problem:${p + 1}`, data: { problemId: p + 1, testdataHash: 'b'.repeat(63) + p, case: String(10 + p) } }]
        : []),
    ],
  ]),
};

