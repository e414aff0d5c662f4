import type { NoticeFeed } from '@otog/platform/notices/kafka-feed';
import type { ProjectionDefinition } from '@otog/platform/runner/projection';
import { announcementsProjection } from './announcements/announcements.projection.ts';
import { chatProjection } from './chat/chat.projection.ts';
import { contestScoreFeed, contestScoresProjection } from './contest-scores/contest-scores.projection.ts';
import { contestsProjection } from './contests/contests.projection.ts';
import { JUDGE_PROBLEM_EVENTS, JUDGE_PROBLEMS_STREAM_VERSION, judgeProblemsProjection } from './judge-problems/judge-problems.projection.ts';
import { problemsProjection } from './problems/problems.projection.ts';
import { ratingsProjection } from './ratings/ratings.projection.ts';
import { submissionsProjection } from './submissions/submissions.projection.ts';

export {
  announcementsProjection,
  chatProjection,
  contestScoreFeed,
  contestScoresProjection,
  contestsProjection,
  JUDGE_PROBLEM_EVENTS,
  JUDGE_PROBLEMS_STREAM_VERSION,
  judgeProblemsProjection,
  problemsProjection,
  ratingsProjection,
  submissionsProjection,
};

// Each projection owns the queries on its read model; the API reads only through them.
export { announcementQueries, type AnnouncementQueries } from './announcements/announcements.queries.ts';
export { CHAT_NOTICE } from './chat/chat.projection.ts';
export { createChatQueries, type ChatQueries } from './chat/chat.queries.ts';
export { createContestQueries, type ContestProblemRow, type ContestQueries, type ContestRecord } from './contests/contests.queries.ts';
export { createContestScoreQueries, type CellRow, type ContestScoreQueries, type HistoryRow, type JudgedEntry } from './contest-scores/contest-scores.queries.ts';
export { createRatingQueries, type RatingQueries, type RatedContest } from './ratings/ratings.queries.ts';
export { createProblemQueries, toProblem, type ProblemQueries, type ProblemRecord, type SharedTableRow } from './problems/problems.queries.ts';
export {
  createSubmissionQueries,
  type ListFilter,
  type Page,
  type ProblemFacts,
  type SubmissionDetailRow,
  type SubmissionFacts,
  type SubmissionQueries,
  type SubmissionRow,
} from './submissions/submissions.queries.ts';

/**
 * Every read model the product serves, folded by the projection runner. Each capability adds its
 * projections here (submissions, scoreboard, ...). tests/platform/projection-redelivery.test.ts requires
 * sample events for each one and proves that redelivered events change nothing.
 */
export const allProjections: readonly ProjectionDefinition[] = [
  judgeProblemsProjection,
  problemsProjection,
  submissionsProjection,
  announcementsProjection,
  contestsProjection,
  contestScoresProjection,
  chatProjection,
  ratingsProjection,
];

/** The read-model changes published to Kafka topics of their own when scaled (beside the event topics). */
export const noticeFeeds: readonly NoticeFeed[] = [contestScoreFeed];
