/**
 * `npm run bench [-- --quick] [--only append,projection,typed-reads,rebuild,relay,sandbox,judging,api,web,scoreboard-web,contests,realtime,ratings,national [--merge]] [--out PATH]`
 *
 * Starts Postgres (fsync off, like the test cluster) and the Kafka mock when DATABASE_URL / KAFKA_BROKERS
 * are not set, plus a durable Postgres for the durable append figures; runs the benchmarks; prints the
 * figures; writes docs/perf.md (a --quick or --only run writes only with --out). Everything it started is
 * stopped, on success, on error and on SIGINT/SIGTERM. `--render-last` re-renders the report from the last
 * run's saved figures (after editing bench/analysis.md) without measuring again; `--only ids --merge`
 * measures those sections again and merges them into the last saved run's report (e.g. the judge sections
 * on a quieter machine without re-running the platform ones). The judge sections (sandbox, judging) need
 * root and the bwrap sandbox's requirements; without them they are reported as not measured.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchApi } from './api.ts';
import { benchScoreboardWeb } from './scoreboard-web.ts';
import { benchWeb } from './web.ts';
import { benchAppend } from './append.ts';
import { benchContests } from './contests.ts';
import { benchSandbox } from './judge-sandbox.ts';
import { benchJudging } from './judge-throughput.ts';
import { benchNational } from './national.ts';
import type { BenchContext } from './lib/context.ts';
import { loadAverage, machineInfo, postgresInfo, type PostgresInfo } from './lib/machine.ts';
import { printResult, renderReport, type BenchResult, type Remeasure, type ReportContext } from './lib/report.ts';
import { benchStopping, cleanupAll, startBenchServices, startDurableCluster } from './lib/services.ts';
import { benchProjection } from './projection.ts';
import { benchRatings } from './ratings.ts';
import { benchRealtime } from './realtime.ts';
import { benchRebuild } from './rebuild.ts';
import { benchRelay } from './relay.ts';
import { benchTypedReads } from './typed-reads.ts';

const BENCHES = {
  append: benchAppend,
  projection: benchProjection,
  'typed-reads': benchTypedReads,
  rebuild: benchRebuild,
  relay: benchRelay,
  sandbox: benchSandbox,
  judging: benchJudging,
  api: benchApi,
  web: benchWeb,
  'scoreboard-web': benchScoreboardWeb,
  contests: benchContests,
  realtime: benchRealtime,
  ratings: benchRatings,
  national: benchNational,
} as const satisfies Record<string, (context: BenchContext) => Promise<BenchResult>>;
type BenchId = keyof typeof BENCHES;

const root = fileURLToPath(new URL('..', import.meta.url));

/** The last report-writing run's figures, so the report can be re-rendered after editing bench/analysis.md (--render-last). */
const LAST_RUN = join(tmpdir(), 'otog-bench-last-run.json');

interface SavedRun {
  readonly context: ReportContext;
  readonly results: BenchResult[];
  readonly out: string | undefined;
}

function writeReport(run: SavedRun, out: string): void {
  let analysis = '';
  try {
    analysis = readFileSync(fileURLToPath(new URL('./analysis.md', import.meta.url)), 'utf8');
  } catch {
    // no analysis written yet
  }
  writeFileSync(out, renderReport(run.context, run.results, analysis));
  process.stdout.write(`wrote ${out}\n`);
}

/** The saved run with the sections in `again.ids` replaced by (or added from) this run's results. */
function mergeRun(saved: SavedRun, results: readonly BenchResult[], failures: ReadonlyArray<{ id: string; error: string }>, again: Remeasure, out: string | undefined): SavedRun {
  const order = Object.keys(BENCHES);
  const rank = (id: string) => (order.includes(id) ? order.indexOf(id) : order.length);
  const merged = [...saved.results.filter((result) => !again.ids.includes(result.id)), ...results].sort((a, b) => rank(a.id) - rank(b.id));
  return {
    context: {
      ...saved.context,
      failures: [...saved.context.failures.filter((failure) => !again.ids.includes(failure.id)), ...failures],
      remeasured: [...(saved.context.remeasured ?? []), again],
    },
    results: merged,
    out,
  };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      out: { type: 'string' },
      'render-last': { type: 'boolean', default: false },
      merge: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      `usage: npm run bench [-- --quick] [--only ${Object.keys(BENCHES).join(',')} [--merge]] [--out PATH] [--render-last]\n` +
        '  --merge: measure the --only sections again and put them into the last saved run\'s report (same mode), rewriting it\n',
    );
    return 0;
  }
  if (values['render-last']) {
    const run = JSON.parse(readFileSync(LAST_RUN, 'utf8')) as SavedRun;
    const out = values.out ?? run.out;
    if (!out) throw new Error(`no report path in ${LAST_RUN}; pass --out PATH`);
    writeReport(run, out);
    return 0;
  }
  const selected = (values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(BENCHES)) as BenchId[];
  for (const id of selected) if (!(id in BENCHES)) throw new Error(`unknown benchmark "${id}" (known: ${Object.keys(BENCHES).join(', ')})`);
  const quick = values.quick;
  let saved: SavedRun | undefined;
  if (values.merge) {
    if (!values.only) throw new Error('--merge needs --only (the sections to measure again)');
    saved = JSON.parse(readFileSync(LAST_RUN, 'utf8')) as SavedRun;
    if (saved.context.mode !== (quick ? 'quick' : 'full')) throw new Error(`--merge: the saved run is a ${saved.context.mode} run; run this one the same way`);
  }
  const out = values.out ?? (saved ? saved.out : quick || values.only ? undefined : `${root}docs/perf.md`);

  const started = performance.now();
  const loadStart = loadAverage();
  const date = new Date().toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  process.stdout.write(`OTOG bench (${quick ? 'quick' : 'full'}) ${date}; load average ${loadStart}\n`);

  const services = await startBenchServices({ kafka: selected.includes('relay') });
  let durable: { adminUrl: string } | undefined;
  if (selected.includes('append')) {
    try {
      durable = await startDurableCluster();
    } catch (error) {
      process.stderr.write(`bench: durable cluster not started: ${String(error)}\n`);
    }
  }
  const context: BenchContext = {
    adminUrl: services.adminUrl,
    durableAdminUrl: durable?.adminUrl,
    kafkaBrokers: services.kafkaBrokers,
    quick,
  };
  const postgres = await postgresInfo(services.adminUrl);
  const durablePostgres: PostgresInfo | undefined = durable ? await postgresInfo(durable.adminUrl) : undefined;
  process.stdout.write(
    `Postgres ${postgres.version} (fsync=${postgres.settings.fsync}, synchronous_commit=${postgres.settings.synchronous_commit})` +
      `${durable ? ' + durable cluster (fsync=on)' : ''}; Kafka ${services.kafkaBrokers ?? 'not needed'}\n`,
  );

  const results: BenchResult[] = [];
  const failures: Array<{ id: string; error: string }> = [];
  for (const id of selected) {
    if (benchStopping()) break;
    process.stdout.write(`\n-- ${id} --\n`);
    try {
      const result = await BENCHES[id](context);
      results.push(result);
      printResult(result);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`bench ${id} failed: ${message}\n`);
      failures.push({ id, error: error instanceof Error ? error.message : String(error) });
    }
  }

  if (benchStopping()) {
    process.stdout.write('\ninterrupted: no report written\n');
    return 130;
  }
  const loadEnd = loadAverage();
  const totalSeconds = (performance.now() - started) / 1000;
  process.stdout.write(`\nload average: start ${loadStart}, end ${loadEnd}; ${totalSeconds.toFixed(0)} s total\n`);

  const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
  const report: SavedRun = saved
    ? mergeRun(saved, results, failures, { ids: selected, date, command, loadStart, loadEnd, totalSeconds }, out)
    : {
        context: {
          date,
          mode: quick ? 'quick' : 'full',
          command,
          machine: machineInfo(),
          postgres,
          durablePostgres,
          startedPostgres: services.startedPostgres,
          kafka: services.kafkaBrokers
            ? `${services.startedKafka ? 'librdkafka 2.0.2 mock cluster (3 brokers, infra/kafka-mock/kmock.c)' : `KAFKA_BROKERS=${services.kafkaBrokers}`}; client kafkajs`
            : 'not used',
          loadStart,
          loadEnd,
          totalSeconds,
          failures,
        },
        results,
        out,
      };
  if (out) {
    writeFileSync(LAST_RUN, JSON.stringify(report, null, 1));
    writeReport(report, out);
  } else {
    process.stdout.write('(docs/perf.md not rewritten: quick or partial run; pass --out PATH to write a report)\n');
  }
  return failures.length > 0 ? 1 : 0;
}

let exiting = false;
const running = main();
const onSignal = (signal: NodeJS.Signals) => {
  if (exiting) return;
  exiting = true;
  process.stderr.write(`\nbench: ${signal}, stopping the services it started…\n`);
  void (async () => {
    await cleanupAll();
    // The measurement in progress fails once what it uses is gone: let it unwind (at most 15 s), then stop
    // whatever it started meanwhile.
    await Promise.race([running.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
    await cleanupAll();
    process.exit(130);
  })();
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

running.then(
  async (code) => {
    await cleanupAll();
    if (!exiting) process.exit(code);
  },
  async (error: unknown) => {
    if (!exiting) process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanupAll();
    if (!exiting) process.exit(1);
  },
);
