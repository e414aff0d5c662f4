/**
 * Polling of submissions that are still waiting or being graded, as OTOG does: the next fetch comes after
 * 1000 × 2^(fetches since it became pending) ms, capped at 8 s, and polling stops once the status settles.
 */
import { useQuery } from '@tanstack/react-query';
import { submissionContract, type Submission } from '@otog/schemas/api/submission';
import type { SubmissionStatus } from '@otog/schemas/common/judging';
import { apiQuery } from '../../lib/query.ts';

export const POLL_BASE_MS = 1_000;
export const POLL_MAX_MS = 8_000;

export const isPending = (status: SubmissionStatus) => status === 'waiting' || status === 'grading';

/** The delay before the next poll, after `fetches` polls of a pending submission. */
export const pollDelay = (fetches: number) => Math.min(POLL_BASE_MS * 2 ** Math.max(0, fetches), POLL_MAX_MS);

/** Per query: its dataUpdateCount when it was first seen pending (a rejudge starts the backoff again). */
const pendingSince = new WeakMap<object, number>();

interface PolledQuery {
  readonly state: { readonly data?: { readonly status: SubmissionStatus } | undefined; readonly dataUpdateCount: number };
}

/** A `refetchInterval` for any query whose data has a submission `status`. */
export function pendingRefetchInterval(query: PolledQuery): number | false {
  const status = query.state.data?.status;
  if (!status || !isPending(status)) {
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
 * A list row kept up to date: while the row is waiting or grading it polls GET /submission/{id} and answers
 * the fresher copy; settled rows cost nothing.
 */
export function useSettledSubmission<S extends { readonly id: number; readonly status: SubmissionStatus }>(submission: S): S | Submission {
  const pending = isPending(submission.status);
  const { data } = useQuery({ ...submissionQuery(submission.id), enabled: pending });
  return pending && data ? data : submission;
}
