/**
 * Reports test cases as they finish. One request at a time per task: a result goes out at once when
 * nothing is in flight, and the results that finish meanwhile go out together in the next request
 * (small bursts are batched, a slow API never slows judging down). Transient failures are retried with
 * backoff; a 409 means the lease is gone and stops everything.
 */
import type { JudgeApiClient, LeaseRef, TestcaseResult } from './api-client.ts';
import { JudgeApiRequestError, LeaseLostError } from './api-client.ts';

/** The contract's largest report. */
const MAX_BATCH = 1_000;

export interface TestcaseReporterOptions {
  readonly client: JudgeApiClient;
  readonly submissionId: number;
  readonly lease: LeaseRef;
  /** Called once when the API answers 409 (the lease is gone). */
  readonly onLeaseLost: (error: LeaseLostError) => void;
  /** Tries per batch before giving up (default 5). */
  readonly attempts?: number;
  readonly backoffMs?: number;
  readonly log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface TestcaseReporter {
  push(result: TestcaseResult): void;
  /** Resolves when everything pushed so far is reported; rejects with why it could not be. */
  flush(): Promise<void>;
}

export function createTestcaseReporter(options: TestcaseReporterOptions): TestcaseReporter {
  const queue: TestcaseResult[] = [];
  let sending: Promise<void> | undefined;
  let failure: Error | undefined;
  const attempts = options.attempts ?? 5;
  const backoffMs = options.backoffMs ?? 500;

  const sendBatch = async (batch: TestcaseResult[]) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await options.client.reportTestcases(options.submissionId, options.lease, batch);
        return;
      } catch (error) {
        if (error instanceof LeaseLostError) throw error;
        const transient = error instanceof JudgeApiRequestError && error.transient;
        if (!transient || attempt >= attempts) throw error;
        options.log?.('reporting test cases failed; retrying', { submissionId: options.submissionId, attempt, error: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, backoffMs * 2 ** (attempt - 1)));
      }
    }
  };

  const pump = async () => {
    while (queue.length > 0 && !failure) {
      const batch = queue.splice(0, MAX_BATCH);
      try {
        await sendBatch(batch);
      } catch (error) {
        failure = error as Error;
        if (error instanceof LeaseLostError) options.onLeaseLost(error);
      }
    }
  };

  const kick = () => {
    sending ??= pump().finally(() => {
      sending = undefined;
      if (queue.length > 0 && !failure) kick();
    });
  };

  return {
    push(result) {
      if (failure) return;
      queue.push(result);
      kick();
    },
    async flush() {
      while (sending) await sending;
      if (failure) throw failure;
    },
  };
}
