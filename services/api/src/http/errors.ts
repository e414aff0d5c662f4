/** An error the client caused: answered with its status and `{message}` (never logged as a failure). */
export class HttpError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = 'Unauthorized') => new HttpError(401, message);
export const forbidden = (message = 'Forbidden') => new HttpError(403, message);
export const notFound = (message = 'Not Found') => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);

/** Postgres unique violation (23505) on the named constraint/index, for "name was taken" answers. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth += 1) {
    const candidate = current as { code?: string; constraint?: string; cause?: unknown };
    if (candidate.code === '23505' && (constraint === undefined || candidate.constraint === constraint)) return true;
    current = candidate.cause;
  }
  return false;
}

/**
 * Postgres refused text it cannot store: a NUL character in a text value (22021) or in jsonb (22P05).
 * Only client input carries such text, so it is a 400, not a server failure.
 */
export function isUnstorableText(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: string }).code;
    if (code === '22021' || code === '22P05') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';

/** A value JSON can produce: arrays and plain objects. Buffers and streams (raw uploads) are bytes, not text. */
function isJsonContainer(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

interface Visit {
  readonly key: string;
  readonly parent: Visit | null;
  readonly value: unknown;
}

const pathOf = (visit: Visit) => {
  const keys: string[] = [];
  for (let at: Visit | null = visit; at; at = at.parent) keys.push(at.key.replaceAll('\u0000', '\\u0000'));
  return keys.reverse().join('.');
};

/**
 * The first place in request input (params, querystring, body) holding a string with a NUL character,
 * as "body.items.0.name"; null when there is none. Iterative, so deeply nested JSON cannot overflow it; the
 * path is spelled out only for the hit (building one per node costs quadratic time in the depth).
 */
export function findNulCharacter(input: Readonly<Record<string, unknown>>): string | null {
  const pending: Visit[] = Object.entries(input).map(([key, value]) => ({ key, parent: null, value }));
  while (pending.length) {
    const visit = pending.pop()!;
    if (typeof visit.value === 'string') {
      if (visit.value.includes('\u0000')) return pathOf(visit);
    } else if (isJsonContainer(visit.value)) {
      for (const [key, value] of Object.entries(visit.value)) {
        const child = { key, parent: visit, value };
        if (key.includes('\u0000')) return pathOf(child);
        pending.push(child);
      }
    }
  }
  return null;
}
