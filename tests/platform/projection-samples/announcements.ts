import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { SampleStreams } from './index.ts';

const scope = (contestId: number | null) => (contestId === null ? 'announcement:global' : `contest:${contestId}`);

/**
 * Sample streams for the announcements projection (see projection-redelivery.test.ts): global and contest
 * announcements created, edited (including a move to global and back), shown, hidden and deleted. A stream
 * keeps the scope it was created in, so its events stay in order on partitioned transports.
 */
export const announcementsSamples: SampleStreams = Array.from({ length: 5 }, (_, i): [string, NewEvent[]] => {
  const announcementId = i + 1;
  const contestId = i % 2 === 0 ? null : i;
  const events: NewEvent[] = [
    { type: 'AnnouncementCreated', scope: scope(contestId), data: { announcementId, value: `{"text":"news ${i}"}`, contestId } },
    { type: 'AnnouncementVisibilityChanged', scope: scope(contestId), data: { announcementId, show: true } },
    { type: 'AnnouncementUpdated', scope: scope(contestId), data: { announcementId, value: `edited ${i}` } },
  ];
  if (i === 1) {
    events.push(
      { type: 'AnnouncementUpdated', scope: scope(contestId), data: { announcementId, value: 'now global', show: false, contestId: null } },
      { type: 'AnnouncementUpdated', scope: scope(contestId), data: { announcementId, value: 'contest 7', contestId: 7 } },
    );
  }
  if (i === 2) events.push({ type: 'AnnouncementVisibilityChanged', scope: scope(contestId), data: { announcementId, show: false } });
  if (i === 3) events.push({ type: 'AnnouncementDeleted', scope: scope(contestId), data: { announcementId } });
  return [`announcement-${announcementId}`, events];
});
