/**
 * The national-contest simulation (bench/national) at a small scale, with one SIGKILL of each kind of
 * process during the contest: an API node, a projector, the relay and a judge host. Whatever was killed,
 * every submission that was answered 2xx is in the log once and judged, every event reached Kafka, the
 * contest scores folded from Kafka (the projectors sharing its partitions) equal a replay of the log, and
 * every chat message reached the clients that stayed connected.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '@otog/platform/log/logger';
import { runNationalSimulation } from '../../bench/national/simulation.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { root } from './otog-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'otog-e2e-national-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a compressed contest loses and doubles nothing while an API node, a projector, the relay and a judge are killed', { timeout: 300_000 }, async () => {
  const db = await createTestDatabase();
  const previousPath = process.env.PATH;
  process.env.PATH = `${join(root, 'node_modules/.bin')}:${previousPath ?? ''}`;
  try {
    const report = await runNationalSimulation({
      dir,
      databaseUrl: db.url,
      contestants: 24,
      submissionsPerContestant: 3,
      contestMs: 24_000,
      apiNodes: 2,
      judges: 2,
      judgeSlots: 4,
      chatClients: 4,
      chatMessages: 8,
      scoreboardReaders: 2,
      concurrency: 8,
      // The last burst is planned 6 s before the end (a loaded CI machine's POST p99 is ~2 s); the judge is
      // killed during it.
      submitWithin: 0.75,
      faults: [
        { atMs: 4_000, target: 'api' },
        { atMs: 9_000, target: 'projector' },
        { atMs: 14_000, target: 'relay' },
        { atMs: 17_000, target: 'judge' },
      ],
      logger: createLogger({ name: 'national-test', level: 'silent' }),
    });
    console.log(JSON.stringify(report, null, 2));
    for (const check of report.checks) expect(check, check.detail).toMatchObject({ ok: true });
    expect(report.checks.find((check) => check.name.startsWith('the scoreboard'))?.detail).toMatch(/^folded from Kafka: /);
    expect(report.faults.map((fault) => fault.process.replace(/-\d+$/, ''))).toEqual(['api', 'projector', 'relay', 'judge']);
    expect(report.submissions.accepted).toBe(report.submissions.intended);
    expect(report.chat.sent).toBe(8);
  } finally {
    process.env.PATH = previousPath;
  }
});
