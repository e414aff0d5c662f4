/**
 * The public API under load (issue 4): the problem table and the submission list with 10,000 problems and
 * 100,000 submissions in the read models, accepted submissions per second through
 * POST /api/submission/problem/:id, and the time from a POST to the submission being on the list.
 * The API runs in this process (bench/lib/api-stack.ts); autocannon and the probe run in child processes
 * (bench/lib/api-load.ts), on the same two cores.
 */
import type { z } from 'zod';
import { allProjections } from '@otog/projections';
import { allRoutes, pathOf, type RouteContract } from '@otog/schemas/api/index';
import { sql } from '@otog/platform/db/pool';
import type { BenchContext } from './lib/context.ts';
import { runProbe, startBackgroundLoad, type ConnectionRequest, type LoadResult, type ProbeResult } from './lib/api-load.ts';
import { measure, type Cost } from './lib/load-cost.ts';
import { CPP_SOURCE, multipartForm, startBenchApiStack, type BenchApiStack, type BenchUser } from './lib/api-stack.ts';
import type { BenchResult, Figure, Table } from './lib/report.ts';
import { benchStopping } from './lib/services.ts';
import { int, ms, now, seconds, summarize } from './lib/stats.ts';

const TITLE = 'Public API throughput and latency';
const SUBMIT_RATE_TARGET = { op: '>=' as const, value: 1_000, text: '≥ 1,000 accepted submissions/s' };
const SUBMIT_P99_TARGET = { op: '<' as const, value: 100, text: 'p99 < 100 ms' };
const VISIBLE_P99_TARGET = { op: '<' as const, value: 200, text: 'p99 < 200 ms' };

const USERS = 50;

interface Routes {
  readonly problems: RouteContract;
  readonly submissions: RouteContract;
  readonly submit: RouteContract;
}

function findRoutes(): Routes | string[] {
  const find = (method: string, path: string) => allRoutes.find((route) => route.method === method && route.path === path);
  const problems = find('GET', '/problem');
  const submissions = find('GET', '/submission');
  const submit = allRoutes.find((route) => route.method === 'POST' && /^\/submission\/problem\/:[A-Za-z]+$/.test(route.path));
  const missing = [
    ...(problems ? [] : ['GET /problem']),
    ...(submissions ? [] : ['GET /submission']),
    ...(submit ? [] : ['POST /submission/problem/:problemId']),
  ];
  return problems && submissions && submit ? { problems, submissions, submit } : missing;
}

/** `/api` + the route's path with every `:param` set to `value`. */
const apiPath = (route: RouteContract, value?: number) => `/api${value === undefined ? pathOf(route) : route.path.replace(/:[A-Za-z]+/g, String(value))}`;

const bearer = (user: BenchUser | null): Record<string, string> => (user ? { authorization: `Bearer ${user.token}` } : {});

/** One call through app.inject, checked against the route's contract: the load only counts once the answers are right. */
async function preflight(stack: BenchApiStack, route: RouteContract, path: string, user: BenchUser | null, form?: { body: string; contentType: string }): Promise<unknown> {
  const response = await stack.app.inject({
    method: route.method,
    url: path,
    headers: { ...bearer(user), ...(form ? { 'content-type': form.contentType } : {}) },
    ...(form ? { payload: form.body } : {}),
  });
  const status = response.statusCode;
  const schema = route.responses[status] as z.ZodType | undefined;
  if (status < 200 || status >= 300 || !schema) throw new Error(`${route.method} ${path} answered ${status}: ${response.body.slice(0, 300)}`);
  const parsed = schema.safeParse(response.json());
  if (!parsed.success) throw new Error(`${route.method} ${path}: the ${status} body does not match its contract: ${parsed.error.message.slice(0, 500)}`);
  return parsed.data;
}

/** Answers per second, latency and statuses of a load run. */
const loadCells = (result: LoadResult) => [int(result.okPerSecond), `${ms(result.p50)} ms`, `${ms(result.p99)} ms`, `${ms(result.max)} ms`, statusText(result)];

const costCells = (cost: Cost) => [
  `${ms(cost.apiCpuMs)} / ${cost.postgresCpuMs === null ? '?' : ms(cost.postgresCpuMs)} / ${ms(cost.clientCpuMs)} ms`,
  cost.transactions.toFixed(1),
];

interface GetScenario {
  readonly label: string;
  readonly as: string;
  readonly path: (user: BenchUser | null) => string;
  readonly users: ReadonlyArray<BenchUser | null>;
}

interface GetRow extends GetScenario {
  readonly result: LoadResult;
  readonly cost: Cost;
  readonly rows: number;
}

interface SubmitRow {
  readonly connections: number;
  readonly result: LoadResult;
  readonly cost: Cost;
}

interface ProbeRow {
  readonly condition: string;
  readonly background: LoadResult | null;
  readonly result: ProbeResult;
}

function apiMissing(missing: readonly string[]): BenchResult {
  return {
    id: 'api',
    title: TITLE,
    method: [],
    figures: [],
    tables: [],
    notes: [`**Not measured: routes not present** (${missing.join(', ')} missing from schemas/src/api).`],
  };
}

const statusText = (result: LoadResult) =>
  Object.entries(result.statusCounts)
    .map(([status, count]) => `${status}: ${int(count)}`)
    .join(', ') + (result.errors ? `, errors: ${int(result.errors)}` : '');

function rowCount(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data.length : Number.NaN;
}

export async function benchApi(context: BenchContext): Promise<BenchResult> {
  const routes = findRoutes();
  if (Array.isArray(routes)) return apiMissing(routes);
  const problemCount = context.quick ? 1_000 : 10_000;
  const submissionCount = context.quick ? 10_000 : 100_000;
  const warmupMs = context.quick ? 1_000 : 2_000;
  const durationMs = context.quick ? 3_000 : 10_000;
  const probes = context.quick ? 100 : 500;
  const seed = { perTransaction: 500, writers: 2 };

  const stack = await startBenchApiStack(context.adminUrl);
  try {
    // ---- seed ----
    const seeding: Array<[string, string, number]> = [];
    let t = now();
    const users = await stack.createUsers(USERS, 'user', 'bench_user_');
    const [admin] = await stack.createUsers(1, 'admin', 'bench_admin_');
    const [prober] = await stack.createUsers(1, 'user', 'bench_probe_');
    if (!admin || !prober) throw new Error('accounts not created');
    seeding.push(['accounts (createAccount: argon2id hash + UserRegistered)', int(USERS + 2), now() - t]);
    process.stdout.write(`  api: ${USERS + 2} accounts in ${seconds(now() - t)} s\n`);

    t = now();
    const problemIds = await stack.seedProblems(problemCount, admin, seed);
    seeding.push(['problems (3 events each: details, judging limits, shown)', int(problemCount), now() - t]);
    t = now();
    await stack.seedSubmissions(submissionCount, users, problemIds, seed);
    seeding.push(['submissions (SubmissionCreated; every other one + SubmissionJudged)', int(submissionCount), now() - t]);
    t = now();
    await stack.waitForCatchUp(1_800_000);
    seeding.push([`projections (${allProjections.map((p) => p.name).join(', ')}) and the judge-task reactor catching up`, '', now() - t]);
    t = now();
    // A read model that grew by a bulk fold has no planner statistics yet; autovacuum would get there.
    await stack.db.pool.query(sql.unsafe`VACUUM ANALYZE`);
    seeding.push(['VACUUM ANALYZE (statistics for the planner)', '', now() - t]);
    const events = Number(await stack.db.pool.oneFirst(sql.unsafe`SELECT count(*) FROM event_log`));
    if (benchStopping()) throw new Error('interrupted');

    // ---- check the answers before loading ----
    const form = multipartForm({ language: 'cpp' }, { sourceCode: { filename: 'main.cpp', content: CPP_SOURCE, contentType: 'text/x-c++src' } });
    const user0 = users[0]!;
    const problemsPage = await preflight(stack, routes.problems, apiPath(routes.problems), user0);
    const submissionsPage = await preflight(stack, routes.submissions, apiPath(routes.submissions), user0);
    await preflight(stack, routes.submit, apiPath(routes.submit, problemIds[0]), user0, form);
    process.stdout.write(
      `  api: ${int(rowCount(problemsPage))} problems on GET /api/problem, ${int(rowCount(submissionsPage))} submissions on the first page of GET /api/submission\n`,
    );

    // ---- (a) reads ----
    const anonymous = [null];
    const scenarios: GetScenario[] = [
      { label: 'GET /api/problem', as: 'anonymous', path: () => apiPath(routes.problems), users: anonymous },
      { label: 'GET /api/problem', as: `user (${USERS} users)`, path: () => apiPath(routes.problems), users },
      { label: 'GET /api/problem', as: 'admin', path: () => apiPath(routes.problems), users: [admin] },
      { label: 'GET /api/submission (first page)', as: 'anonymous', path: () => apiPath(routes.submissions), users: anonymous },
      { label: 'GET /api/submission (first page)', as: `user (${USERS} users)`, path: () => apiPath(routes.submissions), users },
      { label: 'GET /api/submission?userId=self', as: `user (${USERS} users)`, path: (u) => `${apiPath(routes.submissions)}?userId=${u!.id}`, users },
      {
        label: 'GET /api/submission?problemSearch=problem 12',
        as: `user (${USERS} users)`,
        path: () => `${apiPath(routes.submissions)}?problemSearch=${encodeURIComponent('problem 12')}`,
        users,
      },
    ];
    const getRows: GetRow[] = [];
    for (const scenario of scenarios) {
      if (benchStopping()) throw new Error('interrupted');
      const first = scenario.users[0] ?? null;
      const body = await preflight(stack, scenario.label.startsWith('GET /api/problem') ? routes.problems : routes.submissions, scenario.path(first), first);
      process.stdout.write(`  api: ${scenario.label} as ${scenario.as}, 10 connections… `);
      const requests: ConnectionRequest[] = scenario.users.map((u) => ({ path: scenario.path(u), headers: bearer(u) }));
      const { result, cost } = await measure(stack, { url: stack.url, method: 'GET', requests, connections: 10, warmupMs, durationMs });
      process.stdout.write(`${int(result.okPerSecond)} req/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms (${statusText(result)})\n`);
      getRows.push({ ...scenario, result, cost, rows: rowCount(body) });
    }

    // ---- (b) submissions per second ----
    const submitRows: SubmitRow[] = [];
    for (const connections of [10, USERS]) {
      if (benchStopping()) throw new Error('interrupted');
      // Connection i is user i, always submitting to its own problem.
      const requests: ConnectionRequest[] = users.map((u, i) => ({
        path: apiPath(routes.submit, problemIds[(i * 7) % problemIds.length]),
        headers: { ...bearer(u), 'content-type': form.contentType },
      }));
      process.stdout.write(`  api: POST /api/submission/problem/:id, ${connections} connections… `);
      const { result, cost } = await measure(stack, { url: stack.url, method: 'POST', requests, body: form.body, connections, warmupMs, durationMs });
      process.stdout.write(`${int(result.okPerSecond)} accepted/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms (${statusText(result)})\n`);
      submitRows.push({ connections, result, cost });
    }
    const best = submitRows.reduce((a, b) => (b.result.okPerSecond > a.result.okPerSecond ? b : a));

    // ---- (c) POST → visible ----
    const probeRows: ProbeRow[] = [];
    const probeSpec = {
      url: stack.url,
      postPath: apiPath(routes.submit, problemIds[problemIds.length - 1]),
      body: form.body,
      headers: { ...bearer(prober), 'content-type': form.contentType },
      listPath: `${apiPath(routes.submissions)}?userId=${prober.id}`,
      count: probes,
      giveUpMs: 10_000,
    };
    // Idle means idle: the consumers have folded everything the load above appended.
    await stack.waitForCatchUp(600_000);
    process.stdout.write(`  api: POST → visible, ${probes} sequential submissions, idle… `);
    const idle = await runProbe(probeSpec);
    process.stdout.write(`p50 ${ms(summarize(idle.visible).p50)} ms, p99 ${ms(summarize(idle.visible).p99)} ms\n`);
    probeRows.push({ condition: 'idle (nothing else running)', background: null, result: idle });

    const backgroundRate = Math.max(10, Math.round(best.result.okPerSecond / 2 / 10) * 10);
    process.stdout.write(`  api: POST → visible, ${probes} sequential submissions, under ${int(backgroundRate)} POST/s of background load… `);
    const background = startBackgroundLoad({
      url: stack.url,
      method: 'POST',
      requests: users.map((u, i) => ({ path: apiPath(routes.submit, problemIds[(i * 7) % problemIds.length]), headers: { ...bearer(u), 'content-type': form.contentType } })),
      body: form.body,
      perSecond: backgroundRate,
    });
    let loaded: ProbeResult;
    let backgroundResult: LoadResult;
    try {
      await background.started;
      loaded = await runProbe(probeSpec);
    } finally {
      backgroundResult = await background.stop();
    }
    process.stdout.write(
      `p50 ${ms(summarize(loaded.visible).p50)} ms, p99 ${ms(summarize(loaded.visible).p99)} ms ` +
        `(background: ${int(backgroundResult.okPerSecond)} accepted/s, p99 ${ms(backgroundResult.p99)} ms)\n`,
    );
    probeRows.push({ condition: `under ${int(backgroundRate)} POST/s of background load (${USERS} users, evenly paced)`, background: backgroundResult, result: loaded });
    // Requests the background sent last may still be in the API (the POST waits for its projection).
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    await stack.waitForCatchUp(600_000);
    const totals = (await stack.db.pool.one(sql.unsafe`SELECT
      (SELECT count(*) FROM event_log WHERE type = 'SubmissionCreated')::int AS submissions,
      (SELECT count(*) FROM judge_tasks)::int AS tasks`)) as { submissions: number; tasks: number };

    // ---- report ----
    const figures: Figure[] = [
      ...getRows
        .filter((r) => r.label === 'GET /api/problem' || r.label === 'GET /api/submission (first page)')
        .map((r) => ({
          name: `${r.label} as ${r.as.replace(/ \(.*\)$/, '')} (${int(problemCount)} problems, ${int(submissionCount)} submissions)`,
          value: r.result.okPerSecond,
          unit: 'req/s',
          display: `${int(r.result.okPerSecond)} req/s, p50 ${ms(r.result.p50)} ms, p99 ${ms(r.result.p99)} ms`,
          summary: true,
        })),
      {
        name: `accepted submissions per second (POST, ${best.connections} connections)`,
        value: best.result.okPerSecond,
        unit: 'submissions/s',
        display: `${int(best.result.okPerSecond)} /s`,
        target: SUBMIT_RATE_TARGET,
      },
      {
        name: `POST /api/submission/problem/:id p99 latency (${best.connections} connections, at that rate)`,
        value: best.result.p99,
        unit: 'ms',
        display: `${ms(best.result.p99)} ms`,
        target: SUBMIT_P99_TARGET,
      },
      ...probeRows.map((r) => ({
        name: `POST → visible on GET /api/submission, p99, ${r.background ? `under ${int(r.background.okPerSecond)} POST/s` : 'idle'}`,
        value: summarize(r.result.visible).p99,
        unit: 'ms',
        display: `${ms(summarize(r.result.visible).p99)} ms`,
        target: VISIBLE_P99_TARGET,
      })),
    ];

    const seedingTable: Table = {
      title: 'Seeding (not through HTTP: createAccount, then events appended in transactions of 500 streams, 2 writers)',
      header: ['step', 'count', 'time'],
      rows: seeding.map(([step, count, elapsed]) => [step, count, `${seconds(elapsed)} s`]),
    };
    const getTable: Table = {
      title: `Reads: ${int(problemCount)} problems, ${int(submissionCount)} submissions (${int(events)} events); 10 connections, ${durationMs / 1000} s each`,
      header: ['route', 'as', 'rows per answer', 'bytes per answer', 'req/s', 'p50', 'p99', 'max', 'statuses', 'CPU per answer: API / Postgres / load generator', 'DB transactions per answer'],
      rows: getRows.map((r) => [
        `\`${r.label}\``,
        r.as,
        int(r.rows),
        int(r.result.bytesPerResponse),
        ...loadCells(r.result),
        ...costCells(r.cost),
      ]),
    };
    const submitTable: Table = {
      title: `Submissions: POST /api/submission/problem/:id, multipart C++ file of ${CPP_SOURCE.length} bytes, ${durationMs / 1000} s each`,
      header: ['connections (one user each)', 'accepted/s', 'p50', 'p99', 'max', 'statuses', 'CPU per answer: API / Postgres / load generator', 'DB transactions per answer'],
      rows: submitRows.map((r) => [
        String(r.connections),
        ...loadCells(r.result),
        ...costCells(r.cost),
      ]),
    };
    const probeTable: Table = {
      title: `POST → visible: ${probes} sequential submissions by one user, each followed by GET /api/submission?userId=<self> until its id is on the page`,
      header: ['condition', 'POST p50', 'POST p99', 'POST → visible p50', 'POST → visible p99', 'max', 'visible on the first GET'],
      rows: probeRows.map((r) => {
        const post = summarize(r.result.post);
        const visible = summarize(r.result.visible);
        const first = r.result.gets.filter((n) => n === 1).length;
        return [
          r.condition + (r.background ? ` — background got ${int(r.background.okPerSecond)} accepted/s, p99 ${ms(r.background.p99)} ms` : ''),
          `${ms(post.p50)} ms`,
          `${ms(post.p99)} ms`,
          `${ms(visible.p50)} ms`,
          `${ms(visible.p99)} ms`,
          `${ms(visible.max)} ms`,
          `${int(first)} of ${int(r.result.gets.length)}`,
        ];
      }),
    };

    const logged = [...stack.log.counts].map(([message, count]) => `${int(count)}× “${message}”`);
    const notes = [
      `The per-user submit rate limit (30 per minute by default) was set to 1,000,000,000 per minute for this bench, so the API's throughput is measured, not the limiter; @fastify/rate-limit still runs on every POST.`,
      `After the bench ${int(totals.submissions)} SubmissionCreated events were in the log and ${int(totals.tasks)} judge_tasks rows queued (no worker claims them).`,
      logged.length
        ? `The API logged warnings/errors: ${logged.join('; ')}${stack.log.examples.length ? ` (first: ${stack.log.examples.slice(0, 2).join(' | ')})` : ''}.`
        : 'The API logged no warnings or errors during the bench (no 500s, no read-your-writes timeouts).',
    ];

    return {
      id: 'api',
      title: TITLE,
      method: [
        'The API as services/api/src/main.ts composes it (bench/lib/api-stack.ts): platform runtime (every projection and the judge-task reactor on ' +
          'the Postgres log, pool of 20), `buildApp` with the public API, listening on 127.0.0.1; **no judge worker**, so submissions stay `waiting`.',
        `Seeded directly: ${USERS} users + 1 admin + 1 probe user with createAccount and signed access tokens; ${int(problemCount)} shown problems; ` +
          `${int(submissionCount)} submissions spread over the ${USERS} users and random problems, half of them judged (accept or reject, 10 verdicts). ` +
          'Then the projections fold the log and `VACUUM ANALYZE` runs.',
        'Every route is called once through `app.inject` first and its answer parsed with its contract (schemas/src/api), so only right answers are loaded.',
        `Load: autocannon 9 in a child process (closed loop: each connection sends its next request when the previous answer arrived), ` +
          `${warmupMs / 1000} s warm-up discarded, then ${durationMs / 1000} s measured; latency of every answer, client side; req/s counts 2xx answers only. ` +
          'Signed-in rows rotate the users over the connections (one token per connection). The load generator, the API (one Node process) and Postgres share the 2 cores.',
        '“CPU per answer” splits the work of one answer: the bench process (the API: HTTP, JWT, multipart, zod, SQL client, and the projections and judge-task reactor ' +
          'folding in the same process), the Postgres cluster’s processes (utime + stime from /proc) and the load generator, over the measured part; ' +
          'it is this work’s own CPU, whatever else runs on the machine. “DB transactions per answer” is from pg_stat_database (the consumers’ batches included).',
        'POST → visible: a sequential loop in a child process (fetch): POST, then GET the first page of the user’s own submissions until the new id is on it; ' +
          'the time runs from sending the POST to the end of that GET. Once idle, once while another child sends POSTs of the other users at evenly paced times ' +
          '(open loop, about half the best rate above).',
      ],
      figures,
      tables: [seedingTable, getTable, submitTable, probeTable],
      notes,
    };
  } finally {
    await stack.stop();
  }
}
