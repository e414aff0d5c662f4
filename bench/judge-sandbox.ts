/**
 * Judge sandbox overhead: runSandboxOverheadBench (judge/src/sandbox/overhead-bench.ts) — the static empty
 * program spawned directly vs run through slot.run, and a C++ a+b compile inside vs outside the sandbox —
 * plus a breakdown of where a sandboxed run's time goes (bench/lib/sandbox-profile.ts).
 */
import { runSandboxOverheadBench, type OverheadBenchResult } from '@otog/judge/sandbox/overhead-bench';
import type { BenchContext } from './lib/context.ts';
import { BENCH_UIDS, benchTmp, bwrapVersion, guardSandboxRun, notMeasured, sandboxUnavailable, sectionLoad } from './lib/judge-support.ts';
import type { BenchResult, Figure, Table } from './lib/report.ts';
import { profileSandboxRun, type SandboxProfile } from './lib/sandbox-profile.ts';
import { benchStopping } from './lib/services.ts';
import { int, ms } from './lib/stats.ts';

const TITLE = 'Judge sandbox overhead';
/** research/sandbox.md's budget for the wrapper: at most this much wall time added to every run. */
const TARGET_EXTRA_MS = 5;

export async function benchSandbox(context: BenchContext): Promise<BenchResult> {
  const unavailable = sandboxUnavailable();
  if (unavailable) return notMeasured('sandbox', TITLE, unavailable);
  const load = sectionLoad();

  const rounds = context.quick ? 5 : 10;
  const runsPerRound = context.quick ? 10 : 20;
  const compileRuns = context.quick ? 2 : 5;
  process.stdout.write(`  sandbox: ${rounds * runsPerRound} direct and ${rounds * runsPerRound} sandboxed runs (interleaved), ${compileRuns} compiles inside and outside\n`);
  // runSandboxOverheadBench makes its own temp dir (tmpdir()/otog-bench-*) and cgroup parent otog-bench-<pid>.
  const guard = guardSandboxRun('otog-bench-', `otog-bench-${process.pid}`);
  let overhead: OverheadBenchResult;
  try {
    overhead = await runSandboxOverheadBench({ rounds, runsPerRound, compileRuns, firstUid: BENCH_UIDS.overhead });
  } finally {
    await guard.done();
  }

  if (benchStopping()) throw new Error('interrupted');
  const profileRounds = context.quick ? 15 : 50;
  process.stdout.write(`  sandbox: breakdown, ${profileRounds} interleaved rounds over 16 variants\n`);
  const tmp = benchTmp('profile');
  let profile: SandboxProfile;
  try {
    profile = await profileSandboxRun({
      rounds: profileRounds,
      workDir: tmp.dir,
      chainUid: BENCH_UIDS.profileChain,
      slotUid: BENCH_UIDS.profileSlot,
      cgroupParent: `otog-bench-${process.pid}-profile`,
    });
  } finally {
    await tmp.remove();
  }
  const { start, end } = load();
  return report(overhead, profile, { rounds, runsPerRound, loadStart: start, loadEnd: end });
}

function report(result: OverheadBenchResult, profile: SandboxProfile, run: { rounds: number; runsPerRound: number; loadStart: string; loadEnd: string }): BenchResult {
  const extra = result.sandbox.medianMs - result.direct.medianMs;
  const ratio = result.sandbox.medianMs / result.direct.medianMs;
  const compileExtra = result.compile.insideMs - result.compile.outsideMs;
  const samples = run.rounds * run.runsPerRound;

  const perRun: Table = {
    title: `Per run: the static empty program, median of ${samples} each (interleaved rounds of ${run.runsPerRound})`,
    header: ['', 'median', 'p10', 'p90'],
    rows: [
      ['direct spawn from Node', `${ms(result.direct.medianMs)} ms`, `${ms(result.direct.p10Ms)} ms`, `${ms(result.direct.p90Ms)} ms`],
      ['sandboxed (slot.run)', `${ms(result.sandbox.medianMs)} ms`, `${ms(result.sandbox.p10Ms)} ms`, `${ms(result.sandbox.p90Ms)} ms`],
      ['extra per run', `**+${ms(extra)} ms**`, '', ''],
      ['ratio', `${ratio.toFixed(1)}×`, '', ''],
    ],
  };
  const compile: Table = {
    title: `C++ a+b compile (\`g++ -O2 -std=c++17\`, \`<bits/stdc++.h>\`), median of ${result.compile.runs}`,
    header: ['', 'wall time'],
    rows: [
      ['outside (g++ spawned directly)', `${int(result.compile.outsideMs)} ms`],
      ['inside (compile() in a fresh box, compile limits)', `${int(result.compile.insideMs)} ms`],
      ['extra', `${compileExtra >= 0 ? '+' : ''}${int(compileExtra)} ms (${result.compile.ratio.toFixed(2)}×)`],
    ],
  };
  const direct = profile.rows[0]!;
  const chainRows = profile.rows.filter((row) => row.kind === 'chain');
  const cell = (value: number) => (Number.isFinite(value) ? `${ms(value)} ms` : '–');
  const signed = (value: number) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${ms(value)} ms` : '–');
  const breakdown: Table = {
    title: `Where the time goes: each row spawns the empty program, median of ${profile.rounds} interleaved rounds (same moment, same load)`,
    header: ['step', 'what runs', 'median', 'p10–p90', 'vs direct spawn', 'vs its reference row'],
    rows: [...chainRows, ...profile.rows.filter((row) => row.kind === 'component'), ...profile.rows.filter((row) => row.kind === 'ablation')].map((row) => {
      const reference = profile.rows.find((other) => other.step === row.reference);
      return [
        row.kind === 'chain' ? row.step : `${row.kind}: ${row.step}`,
        row.failed ? `${row.what} — **failed**: ${row.failed}` : row.what,
        cell(row.medianMs),
        `${ms(row.p10Ms)}–${ms(row.p90Ms)}`,
        row === direct ? '' : signed(row.medianMs - direct.medianMs),
        reference ? `${signed(row.medianMs - reference.medianMs)} vs "${reference.step}"` : '',
      ];
    }),
  };
  const conditions: Table = {
    title: 'Sandbox and conditions',
    header: ['item', 'value'],
    rows: [
      ['sandbox', `${bwrapVersion()}, cgroup v${result.cgroupVersion ?? '?'}`],
      ['calibration (wrapper cost charged to each run, subtracted)', `${ms(result.calibration.cpuMs)} ms CPU, ${int(result.calibration.memKiB)} KiB`],
      ['creating one run\'s cgroups (in process)', `median ${ms(profile.cgroupCreateMs.medianMs)} ms, p90 ${ms(profile.cgroupCreateMs.p90Ms)} ms`],
      ['load average (1/5/15 min) at section start', run.loadStart],
      ['load average (1/5/15 min) at section end', run.loadEnd],
    ],
  };

  const figures: Figure[] = [
    {
      name: 'sandbox overhead per run (extra wall time over a direct spawn, median)',
      value: extra,
      unit: 'ms',
      display: `+${ms(extra)} ms (${ms(result.sandbox.medianMs)} vs ${ms(result.direct.medianMs)} ms, ${ratio.toFixed(1)}×)`,
      target: { op: '<=', value: TARGET_EXTRA_MS, text: `≤ ${TARGET_EXTRA_MS} ms extra per run` },
    },
    {
      name: 'C++ a+b compile, inside vs outside the sandbox',
      value: result.compile.ratio,
      unit: '×',
      display: `${int(result.compile.insideMs)} vs ${int(result.compile.outsideMs)} ms (${result.compile.ratio.toFixed(2)}×)`,
      summary: true,
    },
  ];

  return {
    id: 'sandbox',
    title: TITLE,
    method: [
      '`runSandboxOverheadBench` (judge/src/sandbox/overhead-bench.ts): the static empty program (infra/judge/empty.c) ' +
        'spawned directly from Node vs run with `slot.run` in a bwrap slot (run cgroups, runner → bwrap, ' +
        'waiting, counters; the cgroup removal in the background as in the judge). Direct and sandboxed runs alternate in ' +
        `${run.rounds} rounds of ${run.runsPerRound}; medians of ${samples}. The extra is the difference of the medians.`,
      'Compile: the languages table\'s C++ command on an a+b source, inside the sandbox with `compile()` (fresh box, compile ' +
        'limits, artifact copied out) vs g++ run directly in a temp directory; alternating, median wall time.',
      'Breakdown (bench/lib/sandbox-profile.ts): the judge\'s own command line (`bwrapCommand`) built up layer by layer, ' +
        'then single bwrap options changed; every variant runs once per round, so they see the same load. The rows above ' +
        '"slot.run" are not what the judge does; they say which part costs what.',
    ],
    figures,
    tables: [perRun, compile, breakdown, conditions],
    notes: [
      `Per run the wrapper chain also costs about ${ms(result.calibration.cpuMs)} ms of CPU (the calibration above), ` +
        'charged to the run\'s cgroup and subtracted from the reported time; with both cores judging, that CPU competes with the programs.',
    ],
  };
}
