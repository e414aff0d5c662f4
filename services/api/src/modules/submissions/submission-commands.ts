/**
 * The writes of the submission module, through its decider (submission-decider.ts): events on the
 * submission's stream (`submission-<id>`, scoped by its contest or user) at the version that was read, then,
 * where the caller reads the result, a bounded wait for the submissions projection to fold them.
 */
import { sql } from '@otog/platform/db/pool';
import { isEvent, runCommand } from '@otog/platform/eventstore/command';
import { deterministicEventId } from '@otog/platform/eventstore/deterministic-id';
import { DuplicateEventError, WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import { SubmissionCreated } from '@otog/schemas/events';
import type { AppendResult } from '@otog/platform/eventstore/event-store';
import { comparePositions } from '@otog/platform/eventstore/position';
import { conflict } from '../../http/errors.ts';
import { waitForProjection } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { submissionScope } from './rules.ts';
import { submissionDecider, submissionStream, type NewSubmission, type SubmissionCommand } from './submission-decider.ts';

const PROJECTION = 'submissions';
/** Appends per transaction in a problem rejudge: short transactions, few round trips. */
const REJUDGE_BATCH = 500;

/** Runs a command through the decider (a lost race is retried once on the fresh stream, then a 409). */
async function handle(deps: ApiDependencies, command: SubmissionCommand, actor: number, newStream = false) {
  try {
    return await runCommand(deps.store, submissionStream(command.submissionId), submissionDecider, command, { meta: { actor }, newStream, attempts: 2 });
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) throw conflict('The submission was changed at the same time; try again');
    throw error;
  }
}

/** The submission made: by this request, or (`repeated`) by an earlier one with the same Idempotency-Key. */
type Created = { readonly id: number; readonly createdAt: string; readonly repeated: boolean };

/** The submission an earlier request with the same Idempotency-Key created, if any. */
async function createdBefore(deps: ApiDependencies, eventId: string, input: NewSubmission): Promise<Created | null> {
  const [event] = await deps.store.readEvents(deps.pool, [eventId]);
  if (!event || !isEvent(event, SubmissionCreated)) return null;
  if (event.data.problemId !== input.problemId || event.data.contestId !== input.contestId) {
    throw conflict('This Idempotency-Key was already used for a submission to another problem or contest');
  }
  await waitForProjection(deps, PROJECTION, { lastPosition: event }, event.scope);
  return { id: event.data.submissionId, createdAt: event.occurredAt, repeated: true };
}

/**
 * Creates a submission (SubmissionCreated: the judge queues it) and waits until it can be read back. With
 * an idempotency key (the client's Idempotency-Key header), a retried request gets the submission the first
 * one made instead of a second: the event's id is derived from the user and the key.
 */
export async function createSubmission(deps: ApiDependencies, input: NewSubmission, idempotencyKey?: string): Promise<Created> {
  const eventId = idempotencyKey === undefined ? undefined : deterministicEventId(`submission:${input.userId}:${idempotencyKey}`);
  const earlier = eventId && (await createdBefore(deps, eventId, input));
  if (earlier) return earlier;
  const id = Number(await deps.pool.oneFirst(sql.unsafe`SELECT nextval('submission_ids')`));
  const createdAt = new Date().toISOString();
  try {
    // A fresh id from the sequence: nothing to load, the stream must not exist yet.
    const { appended } = await handle(deps, { kind: 'create', submissionId: id, ...input, at: createdAt, ...(eventId ? { eventId } : {}) }, input.userId, true);
    await waitForProjection(deps, PROJECTION, appended!, submissionScope(input));
    return { id, createdAt, repeated: false };
  } catch (error) {
    // The same key at the same moment: the other request won.
    const raced = eventId && error instanceof DuplicateEventError && (await createdBefore(deps, eventId, input));
    if (raced) return raced;
    throw error;
  }
}

type Target = { readonly id: number; readonly userId: number; readonly contestId: number | null };

/** Shares or unshares; nothing is appended when it already is as asked. */
export async function shareSubmission(deps: ApiDependencies, submissionId: number, show: boolean, actor: number): Promise<void> {
  const { appended, before } = await handle(deps, { kind: 'share', submissionId, public: show }, actor);
  if (appended) await waitForProjection(deps, PROJECTION, appended, before!.scope);
}

/** Asks for a new judging; the projection clears the result and the judge queue takes it again. */
export async function rejudgeSubmission(deps: ApiDependencies, submissionId: number, actor: number): Promise<void> {
  const { appended, before } = await handle(deps, { kind: 'rejudge', submissionId, requestedBy: actor }, actor);
  await waitForProjection(deps, PROJECTION, appended!, before!.scope);
}

/**
 * Rejudges many submissions (the rows of the read model, which exist), REJUDGE_BATCH appends per
 * transaction, each the decider's RejudgeRequested without loading the stream (nothing in it could refuse a
 * rejudge) (each batch is all or nothing; a
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
        const state = { scope: submissionScope(submission), public: false };
        const events = submissionDecider.decide({ kind: 'rejudge', submissionId: submission.id, requestedBy: actor }, state);
        const appended = await deps.store.appendInTransaction(tx, submissionStream(submission.id), events.map((event) => ({ ...event, meta: { actor } })));
        lastByScope.set(state.scope, appended);
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
