/**
 * Submissions that are still waiting or being graded follow their verdict live: while the realtime channel
 * is connected and will announce the submission (it is the user's own, or a watch on it was accepted) a
 * `submission` notice refetches it (lib/realtime.ts) and nothing polls. Otherwise it is polled as OTOG
 * does: the next fetch comes after 1000 × 2^(fetches since it became pending) ms, capped at 8 s, and
 * polling stops once the status settles.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { submissionContract, type Submission } from '@otog/schemas/api/submission';
import type { SubmissionStatus } from '@otog/schemas/common/judging';
import { apiQuery } from '../../lib/query.ts';
import { realtimeCovers, refetchSubmission, useRealtime, useRealtimeNeeded, useWatch } from '../../lib/realtime.ts';

export const POLL_BASE_MS = 1_000;
export const POLL_MAX_MS = 8_000;

export const isPending = (status: SubmissionStatus) => status === 'waiting' || status === 'grading';

/** The delay before the next poll, after `fetches` polls of a pending submission. */
export const pollDelay = (fetches: number) => Math.min(POLL_BASE_MS * 2 ** Math.max(0, fetches), POLL_MAX_MS);

/** Per query: its dataUpdateCount when it was first seen pending (a rejudge starts the backoff again). */
const pendingSince = new WeakMap<object, number>();

interface PolledQuery {
  readonly state: {
    readonly data?: { readonly id: number; readonly userId: number; readonly status: SubmissionStatus } | undefined;
    readonly dataUpdateCount: number;
  };
}

/**
 * A `refetchInterval` for any query whose data is a submission: none while it is settled or while the
 * realtime channel covers it (its notices refetch it), the backoff otherwise.
 */
export function pendingRefetchInterval(query: PolledQuery): number | false {
  const data = query.state.data;
  if (!data || !isPending(data.status) || realtimeCovers(data)) {
    pendingSince.delete(query);
    return false;
  }
  let since = pendingSince.get(query);
  if (since === undefined) {
    since = query.state.dataUpdateCount;
    pendingSince.set(query, since);
  }
  return pollDelay(query.state.dataUpdateCount - since);
}

/** GET /submission/{id} polled while it is pending (shares its cache with the detail view's fallback). */
export function submissionQuery(submissionId: number) {
  return { ...apiQuery(submissionContract.getSubmission, { params: { submissionId } }), refetchInterval: pendingRefetchInterval };
}

/**
 * A list row kept up to date: while the row is waiting or grading it reads GET /submission/{id} again on
 * the channel's notice (polling only without one) and answers the fresher copy; settled rows cost nothing.
 */
export function useSettledSubmission<S extends { readonly id: number; readonly userId: number; readonly status: SubmissionStatus }>(submission: S): S | Submission {
  const pending = isPending(submission.status);
  const own = useRealtime()?.userId === submission.userId;
  // The server tells the owner about their own submissions; others' are watched while pending. (The
  // watch also re-renders this when the channel connects or drops: the query's interval is computed again.)
  useLiveSubmission(submission.id, pending && !own);
  useRealtimeNeeded(pending);
  const { data } = useQuery({ ...submissionQuery(submission.id), enabled: pending });
  return pending && data ? data : submission;
}

/**
 * Watches a submission while `enabled` (the detail on screen, a pending row of someone else's); once the
 * server accepts the watch, a pending copy is read again (it may have settled before the watch began).
 * Answers whether the watch is live.
 */
export function useLiveSubmission(submissionId: number, enabled = true): boolean {
  const queryClient = useQueryClient();
  const live = useWatch({ submissionId }, enabled);
  useEffect(() => {
    if (live) void refetchSubmission(queryClient, submissionId, true);
  }, [live, queryClient, submissionId]);
  return live;
}
