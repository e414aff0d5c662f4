/**
 * One client process of the national simulation: the contestants of its share submit at their planned
 * moments through the load balancer, a bounded number in flight, each retried with its Idempotency-Key after
 * a network error, a 5xx or a 429. Started by simulation.ts with fork(); it receives its share as one IPC
 * message, answers with what happened, and exits.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface ClientShare {
  /** The load balancer's base URL. */
  readonly url: string;
  readonly contestId: number;
  /** Retries stop this long after: the contest's end plus a grace. */
  readonly giveUpAt: number;
  readonly concurrency: number;
  /** In order of `at` (epoch ms, this machine's clock). */
  readonly entries: ReadonlyArray<{ readonly token: string; readonly key: string; readonly problemId: number; readonly at: number; readonly verdict: string }>;
}

export interface ClientOutcome {
  /** Idempotency key → the submission id of its 2xx answer. */
  readonly accepted: ReadonlyArray<readonly [string, number]>;
  readonly postMs: readonly number[];
  readonly retries: number;
  /** "<status> <message>" → how many. */
  readonly refusals: Readonly<Record<string, number>>;
}

export async function submitShare(share: ClientShare): Promise<ClientOutcome> {
  const accepted: Array<[string, number]> = [];
  const postMs: number[] = [];
  const refusals: Record<string, number> = {};
  let retries = 0;
  const submitOne = async (entry: ClientShare['entries'][number]) => {
    await sleep(Math.max(0, entry.at - Date.now()));
    for (let attempt = 0; ; attempt += 1) {
      const form = new FormData();
      form.set('language', 'python');
      form.set('sourceCode', new Blob([`# ${entry.verdict}\nprint(sum(map(int, input().split())))\n`]), 'main.py');
      const sent = Date.now();
      const answer = await fetch(`${share.url}/api/submission/problem/${entry.problemId}?contestId=${share.contestId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${entry.token}`, 'idempotency-key': entry.key },
        body: form,
        signal: AbortSignal.timeout(15_000),
      })
        .then(async (response) => ({ status: response.status, body: (await response.json().catch(() => null)) as { id?: number; message?: unknown } | null }))
        .catch(() => null);
      if (answer && answer.status < 300) {
        postMs.push(Date.now() - sent);
        accepted.push([entry.key, Number(answer.body?.id)]);
        return;
      }
      if (answer && answer.status >= 400 && answer.status < 500 && answer.status !== 429) {
        const reason = `${answer.status} ${String(answer.body?.message ?? '')}`.slice(0, 80);
        refusals[reason] = (refusals[reason] ?? 0) + 1;
        return;
      }
      // The same key again, so a request that did land is not doubled.
      retries += 1;
      if (Date.now() > share.giveUpAt) return;
      await sleep(100 * Math.min(attempt + 1, 10));
    }
  };
  let cursor = 0;
  await Promise.all(
    Array.from({ length: share.concurrency }, async () => {
      while (cursor < share.entries.length) await submitOne(share.entries[cursor++]!);
    }),
  );
  return { accepted, postMs, retries, refusals };
}

// Run as a child: one share in, one outcome out.
if (process.send) {
  process.once('message', (share: ClientShare) => {
    submitShare(share).then(
      (outcome) => process.send!(outcome, () => process.exit(0)),
      (error: unknown) => {
        process.stderr.write(`contestant client failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
