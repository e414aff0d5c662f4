/** What a load run cost per answer: the API's, Postgres' and the load generator's CPU, and the database transactions. */
import { runLoad, type LoadResult, type LoadSpec } from './api-load.ts';
import { postgresCpuBetween, type BenchApiStack, type Usage } from './api-stack.ts';

/** What one answer cost, on average over the measured part. */
export interface Cost {
  readonly apiCpuMs: number;
  readonly postgresCpuMs: number | null;
  readonly clientCpuMs: number;
  readonly transactions: number;
}

/** A load run with the API's, Postgres' and the load generator's CPU and the database transactions per answer. */
export async function measure(stack: BenchApiStack, spec: LoadSpec): Promise<{ result: LoadResult; cost: Cost }> {
  let before: Promise<Usage> | undefined;
  const result = await runLoad(spec, () => {
    before = stack.usage();
  });
  const after = await stack.usage();
  // pg_stat_database is flushed by each backend about once a second after its transactions.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const { transactions } = await stack.usage();
  const start = await before!;
  const n = Math.max(1, result.requests);
  const postgres = postgresCpuBetween(start, after);
  return {
    result,
    cost: {
      apiCpuMs: (after.apiCpuMs - start.apiCpuMs) / n,
      postgresCpuMs: postgres === null ? null : postgres / n,
      clientCpuMs: result.clientCpuMs / n,
      transactions: (transactions - start.transactions) / n,
    },
  };
}

