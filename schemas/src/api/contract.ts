/**
 * How every public API route is declared: once, here in schemas/api, and used by the server (validation,
 * serialization, access rules, OpenAPI) and by the web client (parsing responses). Paths are relative to
 * the API base (`/api`), in Fastify's `:param` form.
 */
import { z } from 'zod';

/**
 * Who may call a route.
 * - role: `any` (a token is optional, but an invalid one is refused), `user` (any signed-in role), `admin`.
 * - offline: in offline mode (on-site contests) `public` stays open, `authenticated` needs a sign-in,
 *   `admin` becomes admin-only (OTOG's untagged routes).
 * - ignoresInvalidToken: the auth routes treat a bad or expired token as no token.
 */
export interface RouteAccess {
  readonly role: 'any' | 'user' | 'admin';
  readonly offline: 'public' | 'authenticated' | 'admin';
  readonly ignoresInvalidToken?: boolean;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteContract {
  readonly method: HttpMethod;
  readonly path: string;
  readonly summary: string;
  readonly tags: readonly string[];
  readonly access: RouteAccess;
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** multipart/form-data: the text fields (files are described in `files`); the handler parses the stream. */
  readonly multipart?: { readonly fields: z.ZodType; readonly files: Readonly<Record<string, string>> };
  readonly responses: Readonly<Record<number, z.ZodType>>;
}

export function defineRoute<const T extends RouteContract>(contract: T): T {
  return contract;
}

/** The substituted path of a contract (`/problem/:problemId` + {problemId: 3} → `/problem/3`). */
export function pathOf(contract: Pick<RouteContract, 'path'>, params: Readonly<Record<string, string | number>> = {}): string {
  return contract.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${contract.path}`);
    return encodeURIComponent(String(value));
  });
}

/** Every error body: `{message}` (OTOG's ts-rest shape). */
export const MessageSchema = z.object({ message: z.string() });
export type Message = z.infer<typeof MessageSchema>;

/** The error statuses a route can answer, all with a `{message}` body. */
export function errorResponses<const S extends readonly number[]>(...statuses: S): { [K in S[number]]: typeof MessageSchema } {
  return Object.fromEntries(statuses.map((status) => [status, MessageSchema])) as { [K in S[number]]: typeof MessageSchema };
}

/** A number as a path or query spells it plainly: no `01`, `+1`, `0x10`, `1e0`, `1.0` or spaces, which would name the same id twice. */
const PLAIN_DECIMAL = /^-?(0|[1-9][0-9]*)$/;

/** Ids in paths and queries: positive int4 in plain decimal (a larger or malformed one is a 400, never a 500). */
export const IdSchema = z.preprocess(
  (value) => (typeof value === 'string' && !PLAIN_DECIMAL.test(value) ? Number.NaN : value),
  z.coerce.number({ error: 'must be a number' }).int('must be a whole number').positive('must be positive').max(2_147_483_647, 'is too large'),
);

/** Booleans in query strings: `true`/`false` (also 1/0). */
export const QueryBooleanSchema = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** limit/skip pagination (admin lists). */
export function skipLimitQuery(defaultLimit: number, maxLimit = 1_000) {
  return z.object({
    limit: z.coerce.number().int().min(0).max(maxLimit).default(defaultLimit),
    skip: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
    search: z.string().max(200).optional(),
  });
}

/** Cursor pagination (submissions, chat): `offset` = the last id seen; rows with id < offset, id descending. */
export function cursorQuery(defaultLimit: number, maxLimit = 1_000) {
  return z.object({
    offset: z.coerce.number().int().min(1).max(2_147_483_647).optional(),
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
  });
}

export const RoleSchema = z.enum(['user', 'admin']);
export type Role = z.infer<typeof RoleSchema>;

/** The user as OTOG embeds it in other resources. */
export const UserSummarySchema = z.object({
  id: z.number().int(),
  username: z.string(),
  showName: z.string(),
  role: RoleSchema,
  rating: z.number().int().nullable(),
});
export type UserSummary = z.infer<typeof UserSummarySchema>;

export const DateTimeSchema = z.iso.datetime({ offset: true });
