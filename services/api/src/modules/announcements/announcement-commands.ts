/**
 * Announcement writes: each is one event appended to the announcement's stream, checked against the state
 * folded from that stream (optimistic concurrency), then the answer waits for the read model so the
 * caller's next GET sees it.
 */
import { sql } from '@otog/platform/db/pool';
import { WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import type { Announcement } from '@otog/schemas/api/announcement';
import { conflict, notFound } from '../../http/errors.ts';
import { waitForProjection } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { announcementScope, announcementStream, evolve, fold, type AnnouncementEvent, type AnnouncementState } from './announcement-state.ts';

const PROJECTION = 'announcements';
/** Concurrent edits of one announcement are rare (a few admins); a lost race is retried on fresh state. */
const ATTEMPTS = 3;

export async function createAnnouncement(
  deps: ApiDependencies,
  actor: number,
  input: { value: string; contestId: number | null },
): Promise<Announcement> {
  const announcementId = Number(await deps.pool.oneFirst(sql.unsafe`SELECT nextval('announcement_ids')`));
  const event = {
    type: 'AnnouncementCreated',
    scope: announcementScope(input.contestId),
    data: { announcementId, value: input.value, contestId: input.contestId },
  };
  const appended = await deps.store.append(announcementStream(announcementId), [{ ...event, meta: { actor } }], { expectedVersion: 'none' });
  await waitForProjection(deps, PROJECTION, appended, event.scope);
  return evolve(null, event)!.row;
}

/** A change to an existing announcement: the event's type and data, decided from the current state. */
export type Decision = (current: AnnouncementState) => { type: string; data: unknown };

/**
 * Appends the decided event to an existing announcement (404 when it does not exist or was deleted) and
 * answers the state before and after it.
 */
export async function changeAnnouncement(
  deps: ApiDependencies,
  actor: number,
  announcementId: number,
  decide: Decision,
): Promise<{ before: Announcement; after: Announcement | null }> {
  const stream = announcementStream(announcementId);
  for (let attempt = 1; ; attempt += 1) {
    const history = await deps.store.readStream(stream);
    const current = fold(history);
    if (!current) throw notFound('Announcement not found');
    const event: AnnouncementEvent = { ...decide(current), scope: current.scope };
    try {
      const appended = await deps.store.append(stream, [{ ...event, meta: { actor } }], { expectedVersion: history.length });
      await waitForProjection(deps, PROJECTION, appended, event.scope);
      return { before: current.row, after: evolve(current, event)?.row ?? null };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (attempt >= ATTEMPTS) throw conflict('The announcement was changed at the same time; try again');
    }
  }
}
