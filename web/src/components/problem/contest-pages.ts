import { submissionContract } from '@otog/schemas/api/submission';
import type { useSubmissionPages } from '../submission/SubmissionTable.tsx';

type PagedContract = Parameters<typeof useSubmissionPages>[0];
type ContestListContract = typeof submissionContract.getContestSubmissions | typeof submissionContract.getContestSubmissionsForAdmin;

/**
 * A contest submission list for useSubmissionPages, whose type names only the other lists: the contest ones
 * page the same way (the same cursor, the same rows), and callApi still checks the contest route's own
 * contract.
 */
export const contestPages = (contract: ContestListContract): PagedContract => contract as unknown as PagedContract;
