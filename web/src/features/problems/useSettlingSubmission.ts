/**
 * A submission shown on the problem pages, kept up to date while it is judged (the shared polling of
 * components/submission); when it settles, the problem table (status icons, counters) is refreshed.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { problemContract } from '@otog/schemas/api/problem';
import type { Submission } from '@otog/schemas/api/submission';
import type { SubmissionStatus } from '@otog/schemas/common/judging';
import { isPending, useSettledSubmission } from '../../components/submission/polling.ts';
import { apiKey } from '../../lib/query.ts';

export function useSettlingSubmission<S extends { readonly id: number; readonly userId: number; readonly status: SubmissionStatus }>(row: S): S | Submission {
  const queryClient = useQueryClient();
  const live = useSettledSubmission(row);
  const settled = isPending(row.status) && !isPending(live.status);
  useEffect(() => {
    if (settled) void queryClient.invalidateQueries({ queryKey: apiKey(problemContract.getProblems) });
  }, [settled, queryClient]);
  return live;
}
