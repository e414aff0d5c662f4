/**
 * Calls the API through its contracts (schemas/src/api): builds the URL from the route, sends the access
 * token, and parses every answer with the route's schema for that status. On a 401 it refreshes the
 * access token once (one refresh at a time across requests and, through a Web Lock, across tabs) and
 * retries; when the refresh fails the session has ended. A checked answer's ETag stays known (etagOf).
 */
import type { z } from 'zod';
import { authContract } from '@otog/schemas/api/auth';
import { pathOf, type RouteContract, type UserSummary } from '@otog/schemas/api/contract';
import { readAccessToken } from './cookies.ts';
import { takeEarlyRequest } from './early-request.ts';

export const API_BASE = '/api';
/** The spec's message when an answer does not match its contract. */
export const CLIENT_PARSING_FAILED = 'Client parsing failed';
export const NO_ZOD_PARSER = "The route doesn't have zod parser";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type SuccessSchema<C extends RouteContract> = C['responses'] extends { 200: infer S extends z.ZodType }
  ? S
  : C['responses'] extends { 201: infer S extends z.ZodType }
    ? S
    : z.ZodUnknown;
/** What a route answers on success (its 200, else its 201). */
export type ApiOk<C extends RouteContract> = z.output<SuccessSchema<C>>;

export type QueryValue = string | number | boolean | null | undefined;

export interface ApiInput {
  readonly params?: Readonly<Record<string, string | number>>;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly form?: FormData;
  readonly signal?: AbortSignal;
}

/** How the session hears about token changes made here (set by SessionProvider). */
export interface SessionHooks {
  refreshed(user: UserSummary): void;
  /** The refresh failed for a signed-in user: sign out. */
  expired(): void;
}
let sessionHooks: SessionHooks = { refreshed: () => {}, expired: () => {} };
export function setSessionHooks(hooks: SessionHooks): void {
  sessionHooks = hooks;
}

export function apiUrl(contract: Pick<RouteContract, 'path'>, input: Pick<ApiInput, 'params' | 'query'> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const query = search.toString();
  return `${API_BASE}${pathOf(contract, input.params)}${query ? `?${query}` : ''}`;
}

let refreshing: Promise<boolean> | null = null;

/**
 * A new access token now, so what it carries (the show name, the role) is current: after the user changed
 * their own name, say. True when it worked.
 */
export const renewSession = (): Promise<boolean> => refreshAccessToken(readAccessToken());

/** One refresh for every request that got a 401 meanwhile; true when a fresh token is in the cookie. */
function refreshAccessToken(stale: string | null): Promise<boolean> {
  refreshing ??= (async () => {
    const run = async (): Promise<boolean> => {
      const current = readAccessToken();
      // Another tab refreshed while this one waited for the lock: its token is ours too (same cookie).
      if (current && current !== stale) return true;
      const response = await fetch(apiUrl(authContract.refreshToken), {
        credentials: 'include',
        headers: current ? { authorization: `Bearer ${current}` } : {},
      });
      if (!response.ok) return false;
      const parsed = authContract.refreshToken.responses[200].safeParse(await response.json().catch(() => null));
      if (!parsed.success) return false;
      sessionHooks.refreshed(parsed.data.user);
      return true;
    };
    try {
      return typeof navigator !== 'undefined' && navigator.locks ? await navigator.locks.request('otog-refresh', run) : await run();
    } catch {
      return false;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/**
 * The ETag each checked answer came with, by the answer itself (a board asks for its changes since it).
 * Weak: an answer no query holds any more takes its ETag with it.
 */
const etags = new WeakMap<object, string>();
export const etagOf = (value: unknown) => (typeof value === 'object' && value !== null ? etags.get(value) : undefined);

interface Sent {
  readonly token: string | null;
  readonly response: Response;
}

async function send(contract: RouteContract, input: ApiInput): Promise<Sent> {
  const token = readAccessToken();
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (input.form) body = input.form;
  else if (input.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(input.body);
  }
  const url = apiUrl(contract, input);
  const early = takeEarlyRequest(contract.method, url, token);
  if (early) {
    const response = await early.catch(() => null);
    if (response) return { token, response };
  }
  const response = await fetch(url, {
    method: contract.method,
    headers,
    credentials: 'include',
    ...(body === undefined ? {} : { body }),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return { token, response };
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  if (response.headers.get('content-type')?.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export interface CallOptions<C extends RouteContract> {
  /** Checks a success body in place of the route's zod schema (same rules, faster on very large answers); null: refused. */
  readonly parse?: (body: unknown) => ApiOk<C> | null;
}

export async function callApi<C extends RouteContract>(contract: C, input: ApiInput = {}, options: CallOptions<C> = {}): Promise<ApiOk<C>> {
  let sent = await send(contract, input);
  // The auth routes treat a bad token as none: their 401 means wrong credentials, not an expired token.
  if (sent.response.status === 401 && !contract.access.ignoresInvalidToken) {
    const stale = sent.token;
    if (await refreshAccessToken(stale)) sent = await send(contract, input);
    else if (stale) sessionHooks.expired();
  }
  const { response } = sent;
  const body = await readBody(response);
  if (!response.ok) {
    const message = typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : response.statusText;
    throw new ApiError(response.status, message);
  }
  const value = checkedBody(contract, response.status, body, options);
  const etag = response.headers.get('etag');
  if (etag !== null && typeof value === 'object' && value !== null) etags.set(value, etag);
  return value;
}

function checkedBody<C extends RouteContract>(contract: C, status: number, body: unknown, options: CallOptions<C>): ApiOk<C> {
  if (options.parse) {
    const checked = options.parse(body);
    if (checked === null) {
      console.error(`${contract.method} ${contract.path}: ${CLIENT_PARSING_FAILED}`);
      throw new Error(CLIENT_PARSING_FAILED);
    }
    return checked;
  }
  const schema = contract.responses[status];
  if (!schema) throw new Error(NO_ZOD_PARSER);
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    console.error(`${contract.method} ${contract.path}: ${CLIENT_PARSING_FAILED}`, parsed.error);
    throw new Error(CLIENT_PARSING_FAILED);
  }
  return parsed.data as ApiOk<C>;
}

/** A Thai message for a failed call, with the server's detail where it helps (a form's field, a package problem). */
export function errorMessage(error: unknown, fallback = 'เกิดข้อผิดพลาด กรุณาลองใหม่อีกครั้ง'): string {
  if (error instanceof ApiError) {
    switch (error.status) {
      case 400:
        return `ข้อมูลไม่ถูกต้อง: ${error.message}`;
      case 401:
        return 'กรุณาเข้าสู่ระบบก่อน';
      case 403:
        return 'คุณไม่มีสิทธิ์ทำรายการนี้';
      case 404:
        return 'ไม่พบข้อมูลที่ต้องการ';
      case 409:
        return `ข้อมูลซ้ำหรือขัดแย้งกัน: ${error.message}`;
      case 413:
        return 'ไฟล์มีขนาดใหญ่เกินไป';
      case 429:
        return 'ส่งคำขอบ่อยเกินไป กรุณารอสักครู่แล้วลองใหม่';
      default:
        return fallback;
    }
  }
  if (error instanceof Error && error.message === CLIENT_PARSING_FAILED) return CLIENT_PARSING_FAILED;
  if (error instanceof TypeError) return 'เชื่อมต่อเซิร์ฟเวอร์ไม่ได้ กรุณาตรวจสอบอินเทอร์เน็ต';
  return fallback;
}
