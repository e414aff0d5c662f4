/**
 * Append throughput and latency through EventStore.append: single events and batches of 100, with 1 and
 * 8 concurrent writers, on the fsync=off bench cluster and on a durable (Postgres defaults) cluster.
 */
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { testRegistry } from '../tests/support/test-events.ts';
import type { BenchContext } from './lib/context.ts';
import { counterEvent, createProfilingPool } from './lib/fixtures.ts';
import type { BenchResult, Figure, Table } from './lib/report.ts';
import { createBenchDatabase, onCleanup } from './lib/services.ts';
import { int, ms, now, summarize } from './lib/stats.ts';

const TARGET = { op: '>=' as const, value: 10_000, text: '≥ 10,000 events/s in batches' };

interface Scenario {
  readonly batch: number;
  readonly writers: number;
}

const SCENARIOS: readonly Scenario[] = [
  { batch: 1, writers: 1 },
  { batch: 1, writers: 8 },
  { batch: 100, writers: 1 },
  { batch: 100, writers: 8 },
];

interface ScenarioResult extends Scenario {
  readonly cluster: string;
  readonly appendsPerSecond: number;
  readonly eventsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly appends: number;
}

async function runScenario(
  store: ReturnType<typeof createEventStore>,
  scenario: Scenario,
  cluster: string,
  tag: string,
  warmupMs: number,
  durationMs: number,
): Promise<ScenarioResult> {
  const latencies: number[] = [];
  let events = 0;
  const measureStart = now() + warmupMs;
  const measureEnd = measureStart + durationMs;
  let seq = 0;
  await Promise.all(
    Array.from({ length: scenario.writers }, async (_, writer) => {
      for (let i = 0; now() < measureEnd; i += 1) {
        const batch = Array.from({ length: scenario.batch }, () => counterEvent((seq += 1)));
        const t0 = now();
        await store.append(`${tag}-w${writer}-s${i % 50}`, batch);
        const t1 = now();
        if (t0 >= measureStart && t1 <= measureEnd) {
          latencies.push(t1 - t0);
          events += scenario.batch;
        }
      }
    }),
  );
  const s = summarize(latencies);
  return {
    ...scenario,
    cluster,
    appends: latencies.length,
    appendsPerSecond: (latencies.length / durationMs) * 1000,
    eventsPerSecond: (events / durationMs) * 1000,
    p50: s.p50,
    p99: s.p99,
  };
}

/** Where one append's time goes, 1 writer: per-statement wall time from a slonik interceptor. */
async function profileAppends(url: string, warmupMs: number, durationMs: number): Promise<Table[]> {
  const profiling = await createProfilingPool(url);
  const endPool = onCleanup('profiling pool', () => profiling.pool.end());
  const tables: Table[] = [];
  try {
    const store = createEventStore(profiling.pool, testRegistry);
    for (const batch of [1, 100]) {
      process.stdout.write(`  append: profiling ${batch} event(s)/append, 1 writer… `);
      await runScenario(store, { batch, writers: 1 }, '', `prof${batch}-warm`, 0, warmupMs);
      profiling.profile.clear();
      const t = now();
      const r = await runScenario(store, { batch, writers: 1 }, '', `prof${batch}`, 0, durationMs);
      const wall = now() - t;
      const appends = r.appends;
      process.stdout.write(`${int(r.eventsPerSecond)} events/s\n`);
      const rows = [...profiling.profile.values()].sort((a, b) => b.totalMs - a.totalMs);
      const accounted = rows.reduce((sum, p) => sum + p.totalMs, 0);
      tables.push({
        title: `Profile: ${batch} event${batch > 1 ? 's' : ''} per append, 1 writer, ${int(appends)} appends, ${ms(wall / appends)} ms per append (fsync=off cluster)`,
        header: ['statement', 'calls per append', 'ms per append', 'share'],
        rows: [
          ...rows.map((p) => [p.label, (p.calls / appends).toFixed(2), ms(p.totalMs / appends), `${((100 * p.totalMs) / wall).toFixed(0)} %`]),
          [
            'rest: START TRANSACTION, SAVEPOINT, COMMIT (not seen by interceptors), zod validation, JS',
            '',
            ms((wall - accounted) / appends),
            `${((100 * (wall - accounted)) / wall).toFixed(0)} %`,
          ],
        ],
      });
    }
  } finally {
    await endPool();
  }
  return tables;
}

export async function benchAppend(context: BenchContext): Promise<BenchResult> {
  const durationMs = context.quick ? 2_000 : 6_000;
  const warmupMs = context.quick ? 300 : 700;
  const clusters: Array<{ label: string; adminUrl: string }> = [{ label: 'fsync=off (bench)', adminUrl: context.adminUrl }];
  if (context.durableAdminUrl) clusters.push({ label: 'durable (fsync=on)', adminUrl: context.durableAdminUrl });

  const results: ScenarioResult[] = [];
  const profileTables: Table[] = [];
  for (const cluster of clusters) {
    const db = await createBenchDatabase(cluster.adminUrl, 'append');
    try {
      const store = createEventStore(db.pool, testRegistry);
      for (const scenario of SCENARIOS) {
        process.stdout.write(`  append: ${cluster.label}, ${scenario.batch} event(s)/append, ${scenario.writers} writer(s)… `);
        const r = await runScenario(store, scenario, cluster.label, `b${scenario.batch}x${scenario.writers}`, warmupMs, durationMs);
        process.stdout.write(`${int(r.eventsPerSecond)} events/s, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms\n`);
        results.push(r);
      }
      if (cluster === clusters[0]) profileTables.push(...(await profileAppends(db.url, warmupMs, durationMs / 2)));
    } finally {
      await db.drop();
    }
  }

  const figures: Figure[] = results
    .filter((r) => r.batch > 1)
    .map((r) => ({
      name: `append, batches of ${r.batch}, ${r.writers} writer${r.writers > 1 ? 's' : ''}, ${r.cluster}`,
      value: r.eventsPerSecond,
      unit: 'events/s',
      display: `${int(r.eventsPerSecond)} events/s`,
      target: TARGET,
    }));

  return {
    id: 'append',
    title: 'Append throughput and latency',
    method: [
      '`EventStore.append(streamId, events)` from services/platform/src/eventstore/event-store.ts with the test registry ' +
        '(`CounterIncremented`, zod-validated on append), default expected version `any`, pool of 12 connections.',
      'Each append is its own transaction (its statements are in the profile tables below); ' +
        'each writer cycles over 50 streams of its own, so writers do not race on a stream.',
      `${warmupMs} ms warm-up, then ${durationMs / 1000} s measured per row; latency is the wall time of one \`append\` call (client side).`,
    ],
    figures,
    tables: [
      {
        header: ['cluster', 'events / append', 'writers', 'appends/s', 'events/s', 'p50 latency', 'p99 latency'],
        rows: results.map((r) => [
          r.cluster,
          String(r.batch),
          String(r.writers),
          int(r.appendsPerSecond),
          int(r.eventsPerSecond),
          `${ms(r.p50)} ms`,
          `${ms(r.p99)} ms`,
        ]),
      },
      ...profileTables,
    ],
    notes: context.durableAdminUrl ? [] : ['The durable cluster could not be started (no Debian postgresql): only fsync=off figures.'],
  };
}
