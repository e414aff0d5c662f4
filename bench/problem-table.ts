/**
 * `node bench/problem-table.ts [--quick] [--seconds S] [--only anonymous,user,admin] [--encodings identity,br]`
 *
 * GET /api/problem alone, seeded as the `api` section of `npm run bench` seeds it (10,000 problems,
 * 100,000 submissions; --quick: 1,000 and 10,000) and loaded the same way (autocannon in a child process,
 * 10 connections, 2 s warm-up, then S seconds, default 10), for each caller and each Accept-Encoding:
 * `identity` sends none (as the `api` section does: 2.3 MB of JSON per answer), `br` sends a browser's
 * `gzip, deflate, br`. For working on the route without the rest of the `api` section (about 5 minutes
 * less per run); the figures of record come from `npm run bench -- --only api`.
 * Starts its own Postgres (fsync off) unless DATABASE_URL is set.
 */
import { parseArgs } from 'node:util';
import { sql } from '@otog/platform/db/pool';
import { measure } from './lib/load-cost.ts';
import { startBenchApiStack, type BenchUser } from './lib/api-stack.ts';
import { cleanupAll, startBenchServices } from './lib/services.ts';
import { int, ms, seconds } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '10' },
    only: { type: 'string', default: 'anonymous,user,admin' },
    encodings: { type: 'string', default: 'identity,br' },
  },
});
const PATH = '/api/problem';
const BROWSER_ENCODINGS = 'gzip, deflate, br';

async function main(): Promise<void> {
  const services = await startBenchServices({ kafka: false });
  const stack = await startBenchApiStack(services.adminUrl);
  try {
    const problems = values.quick ? 1_000 : 10_000;
    const seed = { perTransaction: 500, writers: 2 };
    const users = await stack.createUsers(50, 'user', 'bench_user_');
    const [admin] = await stack.createUsers(1, 'admin', 'bench_admin_');
    if (!admin) throw new Error('admin not created');
    const problemIds = await stack.seedProblems(problems, admin, seed);
    await stack.seedSubmissions(problems * 10, users, problemIds, seed);
    await stack.waitForCatchUp(1_800_000);
    await stack.db.pool.query(sql.unsafe`VACUUM ANALYZE`);

    const callers: Record<string, ReadonlyArray<BenchUser | null>> = { anonymous: [null], user: users, admin: [admin] };
    for (const as of values.only.split(',')) {
      for (const encoding of values.encodings.split(',')) {
        const who = callers[as];
        if (!who) throw new Error(`--only: unknown caller ${as}`);
        const requests = who.map((user) => ({
          path: PATH,
          headers: {
            ...(user ? { authorization: `Bearer ${user.token}` } : {}),
            ...(encoding === 'identity' ? {} : { 'accept-encoding': BROWSER_ENCODINGS }),
          },
        }));
        const { result, cost } = await measure(stack, {
          url: stack.url,
          method: 'GET',
          requests,
          connections: 10,
          warmupMs: 2_000,
          durationMs: Number(values.seconds) * 1000,
        });
        process.stdout.write(
          `GET ${PATH} as ${as}, ${encoding === 'identity' ? 'no Accept-Encoding' : `Accept-Encoding: ${BROWSER_ENCODINGS}`}: ` +
            `${int(result.okPerSecond)} req/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms, ${int(result.bytesPerResponse)} bytes/answer; ` +
            `CPU per answer API ${ms(cost.apiCpuMs)} / Postgres ${cost.postgresCpuMs === null ? '?' : ms(cost.postgresCpuMs)} / client ${ms(cost.clientCpuMs)} ms, ` +
            `${cost.transactions.toFixed(1)} DB transactions/answer (${seconds(result.durationMs)} s, statuses ${JSON.stringify(result.statusCounts)})\n`,
        );
      }
    }
  } finally {
    await stack.stop();
    await cleanupAll();
  }
}

await main();
