import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, ShowNameSchema, UsernameSchema } from './auth.ts';
import { DateTimeSchema, defineRoute, errorResponses, IdSchema, RoleSchema, skipLimitQuery, UserSummarySchema } from './contract.ts';

const UserIdParams = z.object({ userId: IdSchema });

/** A contest on a profile (rated contests with a rank; none until contests and ratings exist). */
export const UserContestSchema = z.object({
  rank: z.number().int().nullable(),
  ratingAfterUpdate: z.number().int().nullable(),
  contest: z.object({ id: z.number().int(), name: z.string(), timeStart: DateTimeSchema }),
});

/** [ours] One rated contest on a user's rating graph: where they finished and their rating after it. */
export const RatingHistoryEntrySchema = z.object({
  contestId: z.number().int(),
  name: z.string(),
  timeStart: DateTimeSchema,
  timeEnd: DateTimeSchema,
  rank: z.number().int(),
  rating: z.number().int(),
});

export const ProfileSchema = UserSummarySchema.extend({
  creationDate: DateTimeSchema.optional(),
  userContest: z.array(UserContestSchema),
});

/** OTOG's online list carries the whole summary; the spec reads id and showName only. */
export const OnlineUserSchema = z.object({
  id: z.number().int(),
  showName: z.string(),
  username: z.string().optional(),
  role: RoleSchema.optional(),
  rating: z.number().int().nullable().optional(),
});

/** The avatar file names OTOG's clients ask for: `{id}.jpeg` (320 px) and `{id}_32.jpeg` (32 px). */
export const AVATAR_FILE = /^([1-9][0-9]{0,9})(_32)?\.jpeg$/;
export const AVATAR_MAX_BYTES = 5 * 1024 * 1024;

/** The spec's User group, plus avatar upload and serving (OTOG kept avatars in Firebase; here the API stores them). */
export const userContract = {
  adminList: defineRoute({
    method: 'GET',
    path: '/user/admin/list',
    summary: 'Users for the admin table: search by exact id or by username/showName (contains, any case); newest first',
    tags: ['User'],
    access: { role: 'admin', offline: 'admin' },
    query: skipLimitQuery(10),
    responses: { 200: z.object({ data: z.array(UserSummarySchema), total: z.number().int() }), ...errorResponses(400, 401, 403) },
  }),
  online: defineRoute({
    method: 'GET',
    path: '/user/online',
    summary: 'Users signed in to the realtime channel right now',
    tags: ['User'],
    access: { role: 'any', offline: 'admin' },
    responses: { 200: z.array(OnlineUserSchema), ...errorResponses(401, 403) },
  }),
  profile: defineRoute({
    method: 'GET',
    path: '/user/:userId/profile',
    summary: "A user's profile and rated contest history",
    tags: ['User'],
    access: { role: 'any', offline: 'admin' },
    params: UserIdParams,
    responses: { 200: ProfileSchema, ...errorResponses(400, 401, 403, 404) },
  }),
  ratingHistory: defineRoute({
    method: 'GET',
    path: '/user/:userId/rating',
    summary: "[ours] A user's rating after each rated contest, oldest first (the profile's rating graph)",
    tags: ['User'],
    access: { role: 'any', offline: 'admin' },
    params: UserIdParams,
    responses: { 200: z.array(RatingHistoryEntrySchema), ...errorResponses(400, 401, 403, 404) },
  }),
  update: defineRoute({
    method: 'PUT',
    path: '/user/:userId',
    summary: 'Admin edit. A non-empty password changes only the password; otherwise username, showName and role are set.',
    tags: ['User'],
    access: { role: 'admin', offline: 'admin' },
    params: UserIdParams,
    body: z.object({
      username: UsernameSchema,
      showName: ShowNameSchema,
      role: RoleSchema,
      password: z
        .string()
        .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`)
        .refine((value) => value === '' || value.length >= PASSWORD_MIN_LENGTH, `password must be empty or at least ${PASSWORD_MIN_LENGTH} characters`)
        .default(''),
    }),
    responses: { 200: UserSummarySchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
  updateShowName: defineRoute({
    method: 'PATCH',
    path: '/user/:userId/name',
    summary: 'Change a show name (your own, or anyone as an admin)',
    tags: ['User'],
    access: { role: 'user', offline: 'admin' },
    params: UserIdParams,
    body: z.object({ showName: ShowNameSchema }),
    responses: { 200: z.object({ showName: z.string() }), ...errorResponses(400, 401, 403, 404, 409) },
  }),
  uploadAvatar: defineRoute({
    method: 'POST',
    path: '/user/:userId/avatar',
    summary: 'Upload an avatar (your own, or anyone as an admin): cropped to 320x320 and 32x32 JPEGs, served at /images',
    tags: ['User'],
    access: { role: 'user', offline: 'admin' },
    params: UserIdParams,
    multipart: { fields: z.object({}), files: { file: 'An image (JPEG, PNG, WebP, GIF or AVIF), at most 5 MB' } },
    responses: { 200: z.object({ message: z.string() }), ...errorResponses(400, 401, 403, 404, 413) },
  }),
  avatar: defineRoute({
    method: 'GET',
    path: '/images/:file',
    summary: 'An avatar: `{userId}.jpeg` (320 px) or `{userId}_32.jpeg` (32 px); 404 when the user has none (show the fallback)',
    tags: ['User'],
    // Loaded by <img> tags, which send a possibly expired accessToken cookie: that must not break the image.
    access: { role: 'any', offline: 'public', ignoresInvalidToken: true },
    params: z.object({ file: z.string().regex(AVATAR_FILE, 'file must be {userId}.jpeg or {userId}_32.jpeg') }),
    responses: { 200: z.string().describe('image/jpeg bytes'), 304: z.null().describe('Not modified (If-None-Match)'), ...errorResponses(400, 404) },
  }),
} as const;
