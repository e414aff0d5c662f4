import type { ProjectionDefinition } from '@otog/platform/runner/projection';
import { announcementsProjection } from './announcements/announcements.projection.ts';
import { judgeProblemsProjection } from './judge-problems/judge-problems.projection.ts';
import { problemsProjection } from './problems/problems.projection.ts';
import { submissionsProjection } from './submissions/submissions.projection.ts';

export { announcementsProjection, judgeProblemsProjection, problemsProjection, submissionsProjection };

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
];
