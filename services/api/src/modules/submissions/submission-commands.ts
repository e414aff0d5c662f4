/**
 * The writes of the submission module: each appends events to the submission's stream
 * (`submission-<id>`, scoped by its contest or user) and, where the caller reads the result, waits
 * (bounded) for the submissions projection to fold them.
 */
import { sql } from '@otog/platform/db/pool';
import type { AppendResult } from '@otog/platform/eventstore/event-store';
import { comparePositions } from '@otog/platform/eventstore/position';
import type { Language } from '@otog/schemas/common/judging';
import { waitForProjection } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { submissionScope } from './rules.ts';

const PROJECTION = 'submissions';
/** Appends per transaction in a problem rejudge: short transactions, few round trips. */
const REJUDGE_BATCH = 500;

export interface NewSubmission {
  readonly userId: number;
  readonly problemId: number;
  readonly contestId: number | null;
  readonly language: Language;
  readonly sourceCode: string;
  readonly fileName: string | null;
}

/** Creates a submission (SubmissionCreated: the judge queues it) and waits until it can be read back. */
export async function createSubmission(deps: ApiDependencies, input: NewSubmission): Promise<{ id: number; createdAt: string }> {
  const id = Number(await deps.pool.oneFirst(sql.unsafe`SELECT nextval('submission_ids')`));
  const scope = submissionScope(input);
  const createdAt = new Date().toISOString();
  const appended = await deps.store.append(
    `submission-${id}`,
    [
      {
        type: 'SubmissionCreated',
        scope,
        occurredAt: createdAt,
        data: { submissionId: id, ...input },
        meta: { actor: input.userId },
      },
    ],
    { expectedVersion: 'none' },
  );
  await waitForProjection(deps, PROJECTION, appended, scope);
  return { id, createdAt };
}

type Target = { readonly id: number; readonly userId: number; readonly contestId: number | null };

export async function shareSubmission(deps: ApiDependencies, submission: Target, show: boolean, actor: number): Promise<void> {
  const scope = submissionScope(submission);
  const appended = await deps.store.append(`submission-${submission.id}`, [
    { type: 'SubmissionShared', scope, data: { submissionId: submission.id, public: show }, meta: { actor } },
  ]);
  await waitForProjection(deps, PROJECTION, appended, scope);
}

const rejudgeEvent = (submission: Target, actor: number) => ({
  type: 'RejudgeRequested',
  scope: submissionScope(submission),
  data: { submissionId: submission.id, requestedBy: actor },
  meta: { actor },
});

/** Asks for a new judging; the projection clears the result and the judge queue takes it again. */
export async function rejudgeSubmission(deps: ApiDependencies, submission: Target, actor: number): Promise<void> {
  const event = rejudgeEvent(submission, actor);
  const appended = await deps.store.append(`submission-${submission.id}`, [event]);
  await waitForProjection(deps, PROJECTION, appended, event.scope);
}

/**
 * Rejudges many submissions, REJUDGE_BATCH appends per transaction (each batch is all or nothing; a
 * failure leaves the earlier batches requested, and repeating the request is harmless). Then waits for
 * the projection to fold the last append of each scope (ordering is per scope when folding from Kafka),
 * newest first: from the Postgres log the first wait covers all the others, each then one check. One
 * read-your-writes budget for the whole wait.
 */
export async function rejudgeAll(deps: ApiDependencies, submissions: readonly Target[], actor: number): Promise<number> {
  const lastByScope = new Map<string, AppendResult>();
  for (let start = 0; start < submissions.length; start += REJUDGE_BATCH) {
    const batch = submissions.slice(start, start + REJUDGE_BATCH);
    await deps.pool.transaction(async (tx) => {
      for (const submission of batch) {
        const event = rejudgeEvent(submission, actor);
        lastByScope.set(event.scope, await deps.store.appendInTransaction(tx, `submission-${submission.id}`, [event]));
      }
    });
  }
  const deadline = Date.now() + deps.settings.readYourWritesTimeoutMs;
  const newestFirst = [...lastByScope].sort(([, a], [, b]) => comparePositions(b.lastPosition, a.lastPosition));
  for (const [scope, appended] of newestFirst) {
    try {
      await deps.projections.waitFor(PROJECTION, { ...appended.lastPosition, scope }, Math.max(1, deadline - Date.now()));
    } catch (error) {
      deps.logger.warn({ err: error, projection: PROJECTION }, 'projection did not catch up with a rejudge in time; answering anyway');
      break;
    }
  }
  return submissions.length;
}
