/**
 * The command side of an announcement as a decider: its state folded from its own stream
 * (`announcement-<id>`), what each command appends, and the access rule of the list. Pure functions, so the
 * rules are tested given/when/then without a database.
 */
import { eventOf, foldEvents, isEvent, type Decider, type FoldableEvent } from '@otog/platform/eventstore/command';
import type { Announcement } from '@otog/schemas/api/announcement';
import { AnnouncementCreated, AnnouncementDeleted, AnnouncementUpdated, AnnouncementVisibilityChanged } from '@otog/schemas/events';
import { conflict, notFound } from '../../http/errors.ts';

/** null: the announcement does not exist (never created, or deleted). */
export type AnnouncementState = {
  readonly row: Announcement;
  /**
   * The scope the stream was created in. Later events keep it even when the announcement moves to another
   * contest: transports order events per scope, and one announcement's events must stay in order.
   */
  readonly scope: string;
} | null;

export type AnnouncementCommand =
  | { readonly kind: 'create'; readonly announcementId: number; readonly value: string; readonly contestId: number | null }
  | {
      readonly kind: 'update';
      readonly announcementId: number;
      readonly value: string;
      readonly show?: boolean | undefined;
      readonly contestId?: number | null | undefined;
    }
  | { readonly kind: 'show'; readonly announcementId: number; readonly show: boolean }
  | { readonly kind: 'delete'; readonly announcementId: number };

export const announcementStream = (id: number): string => `announcement-${id}`;
export const announcementScope = (contestId: number | null): string => (contestId === null ? 'announcement:global' : `contest:${contestId}`);

export const ANNOUNCEMENT_NOT_FOUND = 'Announcement not found';

export const announcementDecider: Decider<AnnouncementState, AnnouncementCommand> = {
  initialState: null,
  evolve(state, event: FoldableEvent) {
    if (isEvent(event, AnnouncementCreated)) {
      const { data } = event;
      return { row: { id: data.announcementId, value: data.value, show: false, contestId: data.contestId }, scope: event.scope };
    }
    if (!state) return null;
    if (isEvent(event, AnnouncementUpdated)) {
      const { data } = event;
      const contestId = data.contestId === undefined ? state.row.contestId : data.contestId;
      return { ...state, row: { ...state.row, value: data.value, show: data.show ?? state.row.show, contestId } };
    }
    if (isEvent(event, AnnouncementVisibilityChanged)) return { ...state, row: { ...state.row, show: event.data.show } };
    if (isEvent(event, AnnouncementDeleted)) return null;
    return state;
  },
  decide(command, state) {
    const { announcementId } = command;
    if (command.kind === 'create') {
      if (state) throw conflict(`Announcement ${announcementId} exists`);
      return [eventOf(AnnouncementCreated, { announcementId, value: command.value, contestId: command.contestId }, announcementScope(command.contestId))];
    }
    if (!state) throw notFound(ANNOUNCEMENT_NOT_FOUND);
    switch (command.kind) {
      case 'update': {
        const { value, show, contestId } = command;
        const data = { announcementId, value, ...(show === undefined ? {} : { show }), ...(contestId === undefined ? {} : { contestId }) };
        return [eventOf(AnnouncementUpdated, data, state.scope)];
      }
      case 'show':
        return [eventOf(AnnouncementVisibilityChanged, { announcementId, show: command.show }, state.scope)];
      case 'delete':
        return [eventOf(AnnouncementDeleted, { announcementId }, state.scope)];
    }
  },
};

export const foldAnnouncement = (events: readonly FoldableEvent[]): AnnouncementState => foldEvents(announcementDecider, events);

/** OTOG: anyone may list shown announcements; listing hidden ones too (`show` not true) is for admins. */
export function listRefusal(show: boolean | undefined, callerIsAdmin: boolean): string | null {
  return show === true || callerIsAdmin ? null : 'Only Admin can access hidden announcements';
}
