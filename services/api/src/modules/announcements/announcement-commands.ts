/**
 * Announcement writes through the decider (announcement-state.ts): one event on the announcement's stream
 * at the version that was read (a lost race is retried on the fresh stream), then the answer waits for the
 * read model so the caller's next GET sees it.
 */
import { sql } from '@otog/platform/db/pool';
import { runCommand, type CommandResult } from '@otog/platform/eventstore/command';
import { WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import { conflict } from '../../http/errors.ts';
import { waitForProjection } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { announcementDecider, announcementStream, type AnnouncementCommand, type AnnouncementState } from './announcement-state.ts';

/** A new announcement's id, from its sequence. */
export async function nextAnnouncementId(deps: ApiDependencies): Promise<number> {
  return Number(await deps.pool.oneFirst(sql.unsafe`SELECT nextval('announcement_ids')`));
}

export async function handleAnnouncement(deps: ApiDependencies, actor: number, command: AnnouncementCommand): Promise<CommandResult<AnnouncementState>> {
  let result: CommandResult<AnnouncementState>;
  try {
    result = await runCommand(deps.store, announcementStream(command.announcementId), announcementDecider, command, { meta: { actor } });
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) throw conflict('The announcement was changed at the same time; try again');
    throw error;
  }
  const scope = result.after?.scope ?? result.before?.scope;
  if (result.appended && scope) await waitForProjection(deps, 'announcements', result.appended, scope);
  return result;
}
