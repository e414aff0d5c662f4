/**
 * Keeps a waiting or grading submission up to date without a reload: GET /submission/{id} is asked again
 * after 1000 × 2^(fetches so far) ms, at most 8 s apart, until its status settles. Settled submissions
 * cost nothing. When it settles, the problem table (status, counts) is refreshed.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { submissionContract, type Submission } from '@otog/schemas/api/submission';
import type { SubmissionStatus } from '@otog/schemas/common/judging';
import { apiKey, apiQuery } from '../../lib/query.ts';
import { problemContract } from '@otog/schemas/api/problem';

export const SETTLE_POLL_BASE_MS = 1_000;
export const SETTLE_POLL_MAX_MS = 8_000;

export const isSettling = (status: SubmissionStatus) => status === 'waiting' || status === 'grading';

/** The wait before the next fetch after `fetches` fetches: 1 s, 2 s, 4 s, 8 s, 8 s, ... */
export const settleDelay = (fetches: number) => Math.min(SETTLE_POLL_BASE_MS * 2 ** Math.max(0, fetches), SETTLE_POLL_MAX_MS);

/**
 * The latest copy of a submission known to be `status`; polls while that status is waiting or grading.
 * With the row itself (`initial`) the first look is after 1 s instead of at once.
 */
export function useSettlingSubmission(
  submissionId: number,
  status: SubmissionStatus,
  initial?: Submission,
): { status: SubmissionStatus; submission: Submission | undefined } {
  const queryClient = useQueryClient();
  const pending = isSettling(status);
  // Fetches made by this hook since it started watching (the cache may hold fetches of other views).
  const startedAt = useRef<number | null>(null);
  const query = useQuery({
    ...apiQuery(submissionContract.getSubmission, { params: { submissionId } }),
    enabled: pending,
    ...(initial ? { initialData: initial, initialDataUpdatedAt: Date.now(), refetchOnMount: false } : {}),
    refetchInterval: (current) => {
      const data = current.state.data;
      if (data && !isSettling(data.status)) return false;
      startedAt.current ??= current.state.dataUpdateCount;
      return settleDelay(current.state.dataUpdateCount - startedAt.current);
    },
  });
  const live = pending ? query.data : undefined;
  const liveStatus = live?.status ?? status;
  const settled = pending && !isSettling(liveStatus);

  useEffect(() => {
    if (settled) void queryClient.invalidateQueries({ queryKey: apiKey(problemContract.getProblems) });
  }, [settled, queryClient]);

  return { status: liveStatus, submission: live };
}
