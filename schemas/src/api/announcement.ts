/**
 * The announcement routes of spec section 7 (OTOG research §3.5). Global announcements (the problem page's
 * carousel) have `contestId: null`; contest ones belong to a contest's announcement page.
 */
import { z } from 'zod';
import { defineRoute, errorResponses, IdSchema, QueryBooleanSchema } from './contract.ts';

/** OTOG keeps a rich-text (Slate) JSON document; the API carries it as a string, at most this long. */
export const ANNOUNCEMENT_VALUE_MAX = 100_000;

export const AnnouncementSchema = z.object({
  id: z.number().int(),
  value: z.string(),
  show: z.boolean(),
  contestId: z.number().int().nullable(),
});
export type Announcement = z.infer<typeof AnnouncementSchema>;

const AnnouncementParamsSchema = z.object({ announcementId: IdSchema });
const value = z.string().max(ANNOUNCEMENT_VALUE_MAX, `must be at most ${ANNOUNCEMENT_VALUE_MAX} characters`);

export const announcementContract = {
  getAnnouncements: defineRoute({
    method: 'GET',
    path: '/announcement',
    summary: 'Announcements of a contest (contestId) or the global ones, newest first; only admins may list hidden ones',
    tags: ['Announcement'],
    access: { role: 'any', offline: 'authenticated' },
    query: z.object({ show: QueryBooleanSchema.optional(), contestId: IdSchema.optional() }),
    responses: { 200: z.array(AnnouncementSchema), ...errorResponses(400, 401, 403) },
  }),
  createAnnouncement: defineRoute({
    method: 'POST',
    path: '/announcement',
    summary: 'Create a hidden announcement, global or for a contest (contestId)',
    tags: ['Announcement'],
    access: { role: 'admin', offline: 'admin' },
    query: z.object({ contestId: IdSchema.optional() }),
    // `value` is optional here so that a missing one gets OTOG's own 400 message ("No value is sent").
    body: z.object({ value: value.optional() }).nullish(),
    responses: { 201: AnnouncementSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  deleteAnnouncement: defineRoute({
    method: 'DELETE',
    path: '/announcement/:announcementId',
    summary: 'Delete an announcement; answers the deleted row',
    tags: ['Announcement'],
    access: { role: 'admin', offline: 'admin' },
    params: AnnouncementParamsSchema,
    responses: { 200: AnnouncementSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  showAnnouncement: defineRoute({
    method: 'PATCH',
    path: '/announcement/:announcementId',
    summary: 'Show or hide an announcement',
    tags: ['Announcement'],
    access: { role: 'admin', offline: 'admin' },
    params: AnnouncementParamsSchema,
    body: z.object({ show: z.boolean() }),
    responses: { 200: AnnouncementSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  updateAnnouncement: defineRoute({
    method: 'PUT',
    path: '/announcement/:announcementId',
    summary: 'Replace an announcement’s text, and optionally its visibility and contest (null = global)',
    tags: ['Announcement'],
    access: { role: 'admin', offline: 'admin' },
    params: AnnouncementParamsSchema,
    body: z.object({ value, show: z.boolean().optional(), contestId: IdSchema.nullable().optional() }),
    responses: { 200: AnnouncementSchema, ...errorResponses(400, 401, 403, 404) },
  }),
} as const;
