/**
 * The worker's side of the internal judge API (schemas/src/api/judge-internal.ts). Every request body is
 * checked against the contract before it is sent and every response is parsed with it, so a contract
 * drift fails loudly here instead of as a silently wrong result.
 */
import type { z } from 'zod';
import {
  ClaimRequestSchema,
  ClaimResponseSchema,
  CompleteRequestSchema,
  ErrorResponseSchema,
  FailRequestSchema,
  HeartbeatRequestSchema,
  HeartbeatResponseSchema,
  JUDGE_INTERNAL_PREFIX,
  OkResponseSchema,
  TestcaseReportSchema,
  type ClaimRequest,
  type JudgeTask,
} from '@otog/schemas/api/judge-internal';
import { clipText, type SubmissionResult, type TestOutcome } from '@otog/schemas/common/judging';

export interface LeaseRef {
  readonly worker: string;
  readonly judging: number;
  readonly attempt: number;
}

export interface TestcaseResult {
  readonly testNumber: number;
  readonly outcome: TestOutcome;
}

/** A non-2xx answer (status 0: no answer at all — network error or timeout). */
export class JudgeApiRequestError extends Error {
  readonly status: number;
  constructor(status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JudgeApiRequestError';
    this.status = status;
  }
  /** Worth retrying: no answer, or a server-side failure. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** 409: this lease no longer owns the task (it expired and was taken over, or a rejudge replaced it). */
export class LeaseLostError extends JudgeApiRequestError {
  constructor(message: string) {
    super(409, message);
    this.name = 'LeaseLostError';
  }
}

export interface JudgeApiClientOptions {
  /** The API's base URL (the internal routes live under /api/internal/judge). */
  readonly baseUrl: string;
  readonly token: string;
  readonly fetch?: typeof fetch;
  /** Per-request timeout besides a claim's own wait (default 30 s). */
  readonly requestTimeoutMs?: number;
}

export interface JudgeApiClient {
  claim(request: ClaimRequest, signal?: AbortSignal): Promise<JudgeTask[]>;
  heartbeat(submissionId: number, lease: LeaseRef): Promise<{ leaseUntil: string }>;
  reportTestcases(submissionId: number, lease: LeaseRef, results: readonly TestcaseResult[]): Promise<void>;
  complete(submissionId: number, lease: LeaseRef, result: SubmissionResult): Promise<void>;
  fail(submissionId: number, lease: LeaseRef, message: string): Promise<void>;
  /** The test-data zip; refuses more than `maxBytes`. */
  downloadTestdata(hash: string, maxBytes: number): Promise<Uint8Array>;
}

/** The contract caps a fail message at 4000 characters. */
export const FAIL_MESSAGE_MAX = 4_000;

export function clipFailMessage(message: string): string {
  return clipText(message.trim() === '' ? 'unknown error' : message, FAIL_MESSAGE_MAX);
}

export function createJudgeApiClient(options: JudgeApiClientOptions): JudgeApiClient {
  const doFetch = options.fetch ?? fetch;
  const base = new URL(JUDGE_INTERNAL_PREFIX.replace(/^\//, '') + '/', options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const auth = { authorization: `Bearer ${options.token}` };

  const send = async (path: string, init: RequestInit, extraTimeoutMs = 0, signal?: AbortSignal): Promise<Response> => {
    const timeout = AbortSignal.timeout(timeoutMs + extraTimeoutMs);
    let response: Response;
    try {
      response = await doFetch(new URL(path, base), { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new JudgeApiRequestError(0, `${init.method ?? 'GET'} ${path}: ${(error as Error).message}`, { cause: error });
    }
    if (response.ok) return response;
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = ErrorResponseSchema.safeParse(await response.json());
      if (body.success) message = body.data.message;
    } catch {
      // Not JSON: keep the status line.
    }
    if (response.status === 409) throw new LeaseLostError(message);
    throw new JudgeApiRequestError(response.status, `${init.method ?? 'GET'} ${path}: ${message}`);
  };

  const post = async <TSchema extends z.ZodType>(
    path: string,
    requestSchema: z.ZodType,
    body: unknown,
    responseSchema: TSchema,
    extraTimeoutMs = 0,
    signal?: AbortSignal,
  ): Promise<z.output<TSchema>> => {
    const checked = requestSchema.parse(body);
    const response = await send(
      path,
      { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(checked) },
      extraTimeoutMs,
      signal,
    );
    let json: unknown;
    try {
      json = await response.json();
    } catch (error) {
      throw new JudgeApiRequestError(0, `POST ${path}: the answer is not JSON: ${(error as Error).message}`, { cause: error });
    }
    const parsed = responseSchema.safeParse(json);
    if (!parsed.success) throw new JudgeApiRequestError(502, `POST ${path}: the answer does not match the contract: ${parsed.error.message}`);
    return parsed.data;
  };

  return {
    async claim(request, signal) {
      const body = await post('claim', ClaimRequestSchema, request, ClaimResponseSchema, request.waitMs ?? 0, signal);
      return body.tasks;
    },
    heartbeat(submissionId, lease) {
      return post(`tasks/${submissionId}/heartbeat`, HeartbeatRequestSchema, lease, HeartbeatResponseSchema);
    },
    async reportTestcases(submissionId, lease, results) {
      await post(`tasks/${submissionId}/testcases`, TestcaseReportSchema, { ...lease, results }, OkResponseSchema);
    },
    async complete(submissionId, lease, result) {
      await post(`tasks/${submissionId}/complete`, CompleteRequestSchema, { ...lease, result }, OkResponseSchema);
    },
    async fail(submissionId, lease, message) {
      await post(`tasks/${submissionId}/fail`, FailRequestSchema, { ...lease, message: clipFailMessage(message) }, OkResponseSchema);
    },
    async downloadTestdata(hash, maxBytes) {
      const response = await send(`testdata/${hash}`, { method: 'GET', headers: auth }, 10 * 60_000);
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        await response.body?.cancel();
        throw new JudgeApiRequestError(413, `test data ${hash} is ${declared} bytes; this worker accepts at most ${maxBytes}`);
      }
      const reader = response.body?.getReader();
      if (!reader) return new Uint8Array(0);
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > maxBytes) {
          await reader.cancel();
          throw new JudgeApiRequestError(413, `test data ${hash} is more than ${maxBytes} bytes`);
        }
        chunks.push(value);
      }
      return Buffer.concat(chunks, total);
    },
  };
}
