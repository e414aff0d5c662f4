/**
 * `npm run bench -- --only national`: the simulated national contest (bench/national/simulation.ts) on
 * the cluster topology, three times — 1 API node and 2 simulated judges, 2 and 2, 2 and 8, the contest
 * projections reading Kafka — and once more as 2 and 2 with them on the Postgres log, with a random
 * process SIGKILLed every 10–30 s, to show how the figures move with API nodes and judges on this machine
 * and that the end checks hold under faults.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@otog/platform/log/logger';
import type { BenchContext } from './lib/context.ts';
import type { BenchResult, Figure } from './lib/report.ts';
import { createBenchDatabase } from './lib/services.ts';
import { runNationalSimulation, type FaultTarget, type SimulationReport } from './national/simulation.ts';

const TARGETS: readonly FaultTarget[] = ['api', 'projector', 'relay', 'judge'];

/** A kill every 10–30 s of contest time, cycling through the kinds of process from a random start. */
function faultPlan(contestMs: number, seed: number): Array<{ atMs: number; target: FaultTarget }> {
  const plan: Array<{ atMs: number; target: FaultTarget }> = [];
  let state = seed;
  const next = () => ((state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  for (let at = 10_000 + next() * 20_000, index = Math.floor(next() * 4); at < contestMs - 5_000; at += 10_000 + next() * 20_000, index += 1) {
    plan.push({ atMs: Math.round(at), target: TARGETS[index % TARGETS.length]! });
  }
  return plan;
}

/** The claim-wait histogram's bucket holding p99 (Infinity: beyond its last bound). */
const queueWait = (seconds: number | null) => (seconds === null ? '–' : Number.isFinite(seconds) ? `≤ ${seconds}` : 'over the last bucket');

const fixed = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function benchNational(context: BenchContext): Promise<BenchResult> {
  const contestants = context.quick ? 1_000 : 10_000;
  const contestMs = context.quick ? 60_000 : 180_000;
  const perContestant = 2;
  const configs: Array<{ apiNodes: number; judges: number; source: 'kafka' | 'log' }> = [
    { apiNodes: 1, judges: 2, source: 'kafka' },
    { apiNodes: 2, judges: 2, source: 'kafka' },
    { apiNodes: 2, judges: 8, source: 'kafka' },
    // The same as the second, with the contest projections on the Postgres log: what reading Kafka costs.
    { apiNodes: 2, judges: 2, source: 'log' },
  ];
  const runs: Array<{ apiNodes: number; judges: number; source: 'kafka' | 'log'; report: SimulationReport }> = [];
  for (const [index, config] of configs.entries()) {
    const database = await createBenchDatabase(context.adminUrl, `national${index}`, 2);
    const dir = mkdtempSync(join(tmpdir(), 'otog-bench-national-'));
    try {
      const report = await runNationalSimulation({
        dir,
        databaseUrl: database.url,
        contestants,
        submissionsPerContestant: perContestant,
        contestMs,
        apiNodes: config.apiNodes,
        judges: config.judges,
        judgeSlots: 4,
        chatClients: 200,
        chatMessages: 60,
        scoreboardReaders: 20,
        concurrency: 64,
        faults: faultPlan(contestMs, 7 + index),
        settleMs: 180_000,
        projectionSource: config.source,
        logger: createLogger({ name: 'bench-national', level: 'warn' }),
      });
      runs.push({ ...config, report });
      process.stdout.write(`national ${config.apiNodes} API / ${config.judges} judges, ${config.source}: ${JSON.stringify(report)}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  }
  const label = (run: { apiNodes: number; judges: number; source: string }) => `${run.apiNodes} API / ${run.judges} judges, ${run.source}`;
  const byConfig = (apiNodes: number, judges: number, source = 'kafka') =>
    runs.find((run) => run.apiNodes === apiNodes && run.judges === judges && run.source === source)!.report;
  const main = byConfig(2, 2);
  const failed = runs.flatMap((run) => run.report.checks.filter((check) => !check.ok).map((check) => `${label(run)}: ${check.name} (${check.detail})`));
  const figures: Figure[] = [
    { name: 'accepted submissions/s across 2 API nodes (under faults)', value: main.postMs.perSecond, unit: '/s', display: `${fixed(main.postMs.perSecond, 1)}/s`, summary: true },
    { name: 'POST /submission p99, 2 API nodes (under faults)', value: main.postMs.p99, unit: 'ms', display: `${fixed(main.postMs.p99)} ms`, summary: true },
    { name: 'verdict → board committed p99, 2 API nodes', value: main.verdictToBoardMs.p99, unit: 'ms', display: `${fixed(main.verdictToBoardMs.p99)} ms`, summary: true },
    { name: `scoreboard GET p99, ${fixed(contestants)} contestants`, value: main.scoreboardGetMs.p99, unit: 'ms', display: `${fixed(main.scoreboardGetMs.p99)} ms`, summary: true },
    { name: 'end checks failed (of 6 per run)', value: failed.length, unit: '', display: String(failed.length), target: { op: '<=', value: 0, text: 'none' } },
  ];
  const ratio = (a: number, b: number) => (b > 0 ? `${fixed(a / b, 2)}×` : '–');
  const [one, two, eight, onLog] = [byConfig(1, 2), byConfig(2, 2), byConfig(2, 8), byConfig(2, 2, 'log')];
  return {
    id: 'national',
    title: `Simulated national contest: ${fixed(contestants)} contestants, faults injected`,
    method: [
      `Topology (\`npm run cluster\`'s processes on this machine): N API nodes behind the cluster's load balancer, 2 projector processes (the contest scores read from Kafka, their partitions split between the two; the other projections single-active with a standby), the relay, M simulated judge hosts (4 slots each; the real claim/complete protocol, verdicts after 20–200 ms, no sandbox), Postgres (the bench cluster, fsync off), Redis, the Kafka mock.`,
      `${fixed(contestants)} contestants seeded with sessions; ${perContestant} submissions each at moments drawn with a burst in the first tenth and the last twelfth of a ${contestMs / 1000} s contest, 64 in flight at most, retried with the same Idempotency-Key on errors; 20 scoreboard readers every 0.5 s; 200 chat clients through the balancer, 60 messages.`,
      'A process of a kind chosen in turn (API node, projector, relay, judge) is SIGKILLed every 10–30 s and restarted by the supervisor; recovery = kill → its ops /ready answers 200 again.',
      'Verdict → board: for every ContestScoreChanged the projectors fed to Kafka after their batch committed, the time from the log event behind it (the verdict) being recorded to the message being produced; a board GET shows the change from then on.',
      'End checks per run: every 2xx submission exactly once in the log; all judged; contest_scores equals a rebuild from the log; every log event on its Kafka topic; every chat message at every client connected throughout; every killed process back.',
      'The contestants submit from 4 client processes (16 in flight each); the readers and chat clients run in the bench process; the load generator shares the 2 cores with everything it measures.',
    ],
    figures,
    tables: [
      {
        title: 'Per topology',
        header: ['API nodes / judges, projections from', 'submitted 2xx', 'accepted/s', 'POST p50 / p99 (ms)', 'retries', 'all judged within (ms)', 'queue wait p99 (s)', 'verdict → board p50 / p99 (ms)', 'scoreboard GET p50 / p99 (ms)', 'chat fan-out p99 (ms)', 'kills (recovery ms)', 'checks'],
        rows: runs.map(({ report, ...run }) => [
          label(run),
          `${fixed(report.submissions.accepted)} of ${fixed(report.submissions.intended)}`,
          fixed(report.postMs.perSecond, 1),
          `${fixed(report.postMs.p50)} / ${fixed(report.postMs.p99)}`,
          fixed(report.submissions.retries),
          fixed(report.judgedWithinMs),
          queueWait(report.queueWaitP99Seconds),
          `${fixed(report.verdictToBoardMs.p50)} / ${fixed(report.verdictToBoardMs.p99)}`,
          `${fixed(report.scoreboardGetMs.p50)} / ${fixed(report.scoreboardGetMs.p99)}`,
          fixed(report.chat.fanOutP99Ms),
          report.faults.map((fault) => `${fault.process} ${fault.recoveredMs ?? 'never'}`).join(', '),
          report.checks.every((check) => check.ok) ? 'all pass' : report.checks.filter((check) => !check.ok).map((check) => check.name).join('; '),
        ]),
      },
      {
        title: 'Ratios',
        header: ['figure', '2 API nodes ÷ 1', '8 judges ÷ 2', 'Kafka ÷ log (2 / 2)'],
        rows: [
          ['accepted/s', ratio(two.postMs.perSecond, one.postMs.perSecond), ratio(eight.postMs.perSecond, two.postMs.perSecond), ratio(two.postMs.perSecond, onLog.postMs.perSecond)],
          ['POST p99', ratio(two.postMs.p99, one.postMs.p99), ratio(eight.postMs.p99, two.postMs.p99), ratio(two.postMs.p99, onLog.postMs.p99)],
          ['all judged within', ratio(two.judgedWithinMs, one.judgedWithinMs), ratio(eight.judgedWithinMs, two.judgedWithinMs), ratio(two.judgedWithinMs, onLog.judgedWithinMs)],
          ['verdict → board p99', ratio(two.verdictToBoardMs.p99, one.verdictToBoardMs.p99), ratio(eight.verdictToBoardMs.p99, two.verdictToBoardMs.p99), ratio(two.verdictToBoardMs.p99, onLog.verdictToBoardMs.p99)],
          ['scoreboard GET p99', ratio(two.scoreboardGetMs.p99, one.scoreboardGetMs.p99), ratio(eight.scoreboardGetMs.p99, two.scoreboardGetMs.p99), ratio(two.scoreboardGetMs.p99, onLog.scoreboardGetMs.p99)],
        ],
      },
    ],
    notes: [
      ...(failed.length > 0 ? [`Failed checks: ${failed.join('; ')}`] : []),
      ...runs.map((run) => `Refused submissions, ${label(run)}: ${JSON.stringify(run.report.submissions.refusals)}`),
    ],
  };
}
