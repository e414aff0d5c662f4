/**
 * The command side of an announcement: its current state folded from its own stream (`announcement-<id>`),
 * and the access rule of the list. Pure functions, so the rules are tested without a database.
 */
import type { Announcement } from '@otog/schemas/api/announcement';
import {
  AnnouncementCreated,
  AnnouncementDeleted,
  AnnouncementUpdated,
  AnnouncementVisibilityChanged,
  type EventDataOf,
} from '@otog/schemas/events';

/** The minimum an event needs for folding (stored events and events about to be appended both fit). */
export interface AnnouncementEvent {
  readonly type: string;
  readonly data: unknown;
  readonly scope: string;
}

export interface AnnouncementState {
  readonly row: Announcement;
  /**
   * The scope the stream was created in. Later events keep it even when the announcement moves to another
   * contest: transports order events per scope, and one announcement's events must stay in order.
   */
  readonly scope: string;
}

export const announcementStream = (id: number): string => `announcement-${id}`;
export const announcementScope = (contestId: number | null): string => (contestId === null ? 'announcement:global' : `contest:${contestId}`);

/** The next state after one event; null = the announcement does not exist (never created, or deleted). */
export function evolve(state: AnnouncementState | null, event: AnnouncementEvent): AnnouncementState | null {
  switch (event.type) {
    case AnnouncementCreated.type: {
      const data = event.data as EventDataOf<typeof AnnouncementCreated>;
      return { row: { id: data.announcementId, value: data.value, show: false, contestId: data.contestId }, scope: event.scope };
    }
    case AnnouncementUpdated.type: {
      if (!state) return null;
      const data = event.data as EventDataOf<typeof AnnouncementUpdated>;
      return {
        ...state,
        row: { ...state.row, value: data.value, show: data.show ?? state.row.show, contestId: data.contestId === undefined ? state.row.contestId : data.contestId },
      };
    }
    case AnnouncementVisibilityChanged.type: {
      if (!state) return null;
      const data = event.data as EventDataOf<typeof AnnouncementVisibilityChanged>;
      return { ...state, row: { ...state.row, show: data.show } };
    }
    case AnnouncementDeleted.type:
      return null;
    default:
      return state;
  }
}

export function fold(events: readonly AnnouncementEvent[]): AnnouncementState | null {
  return events.reduce<AnnouncementState | null>(evolve, null);
}

/** OTOG: anyone may list shown announcements; listing hidden ones too (`show` not true) is for admins. */
export function listRefusal(show: boolean | undefined, callerIsAdmin: boolean): string | null {
  return show === true || callerIsAdmin ? null : 'Only Admin can access hidden announcements';
}
