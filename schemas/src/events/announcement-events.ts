import { z } from 'zod';
import { defineEvent } from './registry.ts';

const id = z.number().int().positive();

/**
 * Announcements: stream `announcement-<id>`, scope `contest:<contestId>` or `announcement:global`.
 * `value` is the announcement's text (OTOG stores a rich-text JSON document; the API carries it as a string).
 */
export const AnnouncementCreated = defineEvent({
  type: 'AnnouncementCreated',
  scopes: ['announcement', 'contest'],
  schema: z.object({ announcementId: id, value: z.string().max(100_000), contestId: id.nullable() }).strict(),
});

export const AnnouncementUpdated = defineEvent({
  type: 'AnnouncementUpdated',
  scopes: ['announcement', 'contest'],
  schema: z
    .object({ announcementId: id, value: z.string().max(100_000), show: z.boolean().optional(), contestId: id.nullable().optional() })
    .strict(),
});

export const AnnouncementVisibilityChanged = defineEvent({
  type: 'AnnouncementVisibilityChanged',
  scopes: ['announcement', 'contest'],
  schema: z.object({ announcementId: id, show: z.boolean() }).strict(),
});

export const AnnouncementDeleted = defineEvent({
  type: 'AnnouncementDeleted',
  scopes: ['announcement', 'contest'],
  schema: z.object({ announcementId: id }).strict(),
});

export const announcementEvents = [AnnouncementCreated, AnnouncementUpdated, AnnouncementVisibilityChanged, AnnouncementDeleted] as const;
