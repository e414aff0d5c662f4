/** The rows of the admin tables, as their routes answer them. */
import type { contestContract } from '@otog/schemas/api/contest';
import type { problemContract } from '@otog/schemas/api/problem';
import type { userContract } from '@otog/schemas/api/user';
import type { ApiOk } from '../../lib/api.ts';

export type AdminProblem = ApiOk<typeof problemContract.adminList>['data'][number];
export type AdminUser = ApiOk<typeof userContract.adminList>['data'][number];
export type AdminContest = ApiOk<typeof contestContract.getContestsForAdmin>['data'][number];
export type AdminContestDetail = ApiOk<typeof contestContract.getContestForAdmin>;
