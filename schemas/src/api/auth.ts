import { z } from 'zod';
import { defineRoute, errorResponses, UserSummarySchema } from './contract.ts';

/**
 * Input rules shared by registration and the admin's user edit. Bounded everywhere: names are varchar(255)
 * in OTOG, and a password is hashed with argon2id, whose cost grows with its length (a 10 MB "password"
 * would be a cheap denial of service).
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
export const UsernameSchema = z
  .string({ error: 'username is required' })
  .trim()
  .min(1, 'username must not be empty')
  .max(255, 'username must be at most 255 characters')
  .regex(USERNAME_PATTERN, "username may contain only letters, digits, '_', '.' and '-'");

/** Any printable text; control characters (newlines, NUL, bidi overrides...) would spoil every list that shows names. */
const CONTROL_CHARACTERS = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
export const ShowNameSchema = z
  .string({ error: 'showName is required' })
  .trim()
  .min(1, 'showName must not be empty')
  .max(255, 'showName must be at most 255 characters')
  .refine((value) => !CONTROL_CHARACTERS.test(value), 'showName must not contain control characters');

export const PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 256;
export const PasswordSchema = z
  .string({ error: 'password is required' })
  .min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`);

/** What login accepts: no format rule (a malformed name is just a failed login), only the bounds. */
const LoginSchema = z.object({
  username: z.string({ error: 'username is required' }).trim().min(1, 'username must not be empty').max(255, 'username must be at most 255 characters'),
  password: z
    .string({ error: 'password is required' })
    .min(1, 'password must not be empty')
    .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`),
});

/** The signed-in user and an access token (OTOG's login answer). The refresh token travels only in the `RID` cookie. */
export const SessionSchema = z.object({
  user: UserSummarySchema,
  accessToken: z.string(),
});

/** The cookie holding the refresh token (httpOnly, path /api/auth); OTOG's name. */
export const REFRESH_TOKEN_COOKIE = 'RID';

/** The spec's Auth group. Every route ignores an invalid or expired access token (signing in is how one gets a new one). */
export const authContract = {
  register: defineRoute({
    method: 'POST',
    path: '/auth/register',
    summary: 'Create an account (role user). Closed in offline mode except to admins.',
    tags: ['Auth'],
    access: { role: 'any', offline: 'admin', ignoresInvalidToken: true },
    body: z.object({ username: UsernameSchema, showName: ShowNameSchema, password: PasswordSchema }),
    responses: { 201: z.object({ message: z.literal('Create user complete.') }), ...errorResponses(400, 401, 403, 409, 429) },
  }),
  login: defineRoute({
    method: 'POST',
    path: '/auth/login',
    summary:
      'Sign in: the user and an access token; sets the httpOnly `RID` refresh-token cookie and the `accessToken` cookie. ' +
      'An unknown username and a wrong password get the same 401.',
    tags: ['Auth'],
    access: { role: 'any', offline: 'public', ignoresInvalidToken: true },
    body: LoginSchema,
    responses: { 200: SessionSchema, ...errorResponses(400, 401, 429) },
  }),
  logout: defineRoute({
    method: 'POST',
    path: '/auth/logout',
    summary: 'Sign out: revokes the session of the `RID` cookie server-side and clears both cookies',
    tags: ['Auth'],
    access: { role: 'any', offline: 'authenticated', ignoresInvalidToken: true },
    responses: { 200: z.object({}), ...errorResponses(401) },
  }),
  refreshToken: defineRoute({
    method: 'GET',
    path: '/auth/refresh/token',
    summary:
      'A new access token from the `RID` cookie (rotated on every use; presenting a used one revokes the session). ' +
      'An access token, if sent, may be expired but must be the one issued with that refresh token.',
    tags: ['Auth'],
    access: { role: 'any', offline: 'public', ignoresInvalidToken: true },
    responses: {
      200: SessionSchema.extend({ message: z.literal('Refresh token success.') }),
      // 401: unknown, expired or revoked refresh token (sign in again); 403: no cookie, reuse, or a token mismatch.
      ...errorResponses(401, 403),
    },
  }),
} as const;
