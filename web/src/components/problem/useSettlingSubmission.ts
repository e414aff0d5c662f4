/**
 * A submission shown on the problem pages, kept up to date while it is judged (the shared polling of
 * components/submission); when it settles, the problem table (status icons, counters) is refreshed, and for
 * a contest submission the contest's own scores (the contest sidebar's badges and total).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { contestContract } from '@otog/schemas/api/contest';
import { problemContract } from '@otog/schemas/api/problem';
import type { Submission } from '@otog/schemas/api/submission';
import type { SubmissionStatus } from '@otog/schemas/common/judging';
import { isPending, useSettledSubmission } from '../submission/polling.ts';
import { apiKey } from '../../lib/query.ts';

interface Row {
  readonly id: number;
  readonly userId: number;
  readonly status: SubmissionStatus;
  readonly contestId?: number | null;
}

export function useSettlingSubmission<S extends Row>(row: S): S | Submission {
  const queryClient = useQueryClient();
  const live = useSettledSubmission(row);
  const settled = isPending(row.status) && !isPending(live.status);
  const contestId = row.contestId ?? null;
  useEffect(() => {
    if (!settled) return;
    void queryClient.invalidateQueries({ queryKey: apiKey(problemContract.getProblems) });
    if (contestId !== null) void queryClient.invalidateQueries({ queryKey: apiKey(contestContract.getUserContestScores, { params: { contestId } }) });
  }, [settled, contestId, queryClient]);
  return live;
}
