import { execFile } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, UsageError, type CliContext } from '../../services/api/src/cli/cli.ts';
import { migrate } from '@otog/platform/db/migrate';
import { createLogger } from '@otog/platform/log/logger';
import { sql } from '@otog/platform/db/pool';
import { listSlots } from '@otog/platform/runner/projection-slots';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { ledgerProjection } from '../support/test-projections.ts';
import { startTestProjector, type TestProjector } from '../support/test-runtime.ts';

const run = promisify(execFile);
const cliEntry = fileURLToPath(new URL('../../services/api/src/cli/main.ts', import.meta.url));

let db: TestDatabase;
let projector: TestProjector;
beforeAll(async () => {
  db = await createTestDatabase();
  projector = await startTestProjector(db, [ledgerProjection({ failOnBy: -1 })], { autoCutover: false, subscribeOptions: { maxAttempts: 1 } });
});
afterAll(async () => {
  await projector.stop();
  await db.drop();
});

async function cli(args: string[]): Promise<{ code: number; out: string; progress: string }> {
  const out = new PassThrough();
  const progress = new PassThrough();
  const chunks: string[] = [];
  const bars: string[] = [];
  out.on('data', (c: Buffer) => chunks.push(c.toString()));
  progress.on('data', (c: Buffer) => bars.push(c.toString()));
  const ctx: CliContext = {
    pool: db.pool,
    store: projector.store,
    listener: projector.listener,
    projections: [ledgerProjection({ failOnBy: -1 })],
    logger: createLogger({ name: 'cli-test', level: 'silent' }),
    out,
    progress,
    migrate: () => migrate(db.url),
  };
  const code = await runCli(args, ctx);
  return { code, out: chunks.join(''), progress: bars.join('') };
}

describe('operator CLI', () => {
  it('shows status, rebuilds with progress and cuts over, and skips a fault only when asked', async () => {
    const appended = await projector.store.append(
      'counter-cli',
      Array.from({ length: 300 }, (_, i) => ({ type: 'CounterIncremented', scope: 'user:cli', data: { counter: 'cli', by: 1, seq: i } })),
    );
    await projector.runner.waitFor('ledger', { ...appended.lastPosition, scope: 'user:cli' });

    const status = await cli(['projections', 'status']);
    expect(status.out).toMatch(/^ledger v1 {2}live {5}code 1 {2}at \d+\/\d+ {2}behind 0\n$/);

    const rebuild = await cli(['projections', 'rebuild', 'ledger']);
    expect(rebuild.out).toContain('building ledger v2 (code version 1) from the log');
    expect(rebuild.out).toContain('ledger v2 is live; v1 retired (its tables stay until projections drop-retired');
    expect(rebuild.progress).toMatch(/ledger v2 \[.*\] 100% 300\/300 events/);
    expect(await db.pool.oneFirst(sql.unsafe`SELECT events FROM rm_ledger_v2_totals`)).toBe(300);

    await expect(cli(['projections', 'cutover', 'ledger', '2'])).rejects.toThrow(/is live, not building/);
    await expect(cli(['projections', 'skip', 'ledger'])).rejects.toThrow(/has no faulted slot/);

    await projector.runner.refresh();
    const poison = await projector.store.append('counter-cli', [{ type: 'CounterIncremented', scope: 'user:cli', data: { counter: 'cli', by: -1 } }]);
    await expect(projector.runner.waitFor('ledger', { ...poison.lastPosition, scope: 'user:cli' })).rejects.toThrow(/faulted/);
    expect((await cli(['projections', 'status'])).out).toContain('FAULTED');
    const skip = await cli(['projections', 'skip', 'ledger']);
    expect(skip.out).toContain(`skipped CounterIncremented ${poison.events[0]!.eventId}`);
    await projector.runner.waitFor('ledger', { ...poison.lastPosition, scope: 'user:cli' });
    expect((await listSlots(db.pool, 'ledger')).map((s) => [s.generation, s.state, s.checkpointStatus])).toEqual([
      [1, 'retired', 'retired'],
      [2, 'live', 'running'],
    ]);

    // The retired slot's tables outlive the cutover until they are dropped, after the grace period or when asked.
    expect((await cli(['projections', 'status'])).out).toMatch(/^ledger v1 {2}retired {2}code 1 {2}at \d+\/\d+ {2}behind - {2}retired at \S+$/m);
    expect(await db.pool.oneFirst(sql.unsafe`SELECT events FROM rm_ledger_v1_totals`)).toBe(300);
    expect((await cli(['projections', 'drop-retired'])).out).toBe('no slot retired 10 minutes ago or more\n');
    expect((await cli(['projections', 'drop-retired', 'ledger', '--older-than', '0'])).out).toBe('dropped ledger v1\n');
    expect(await db.pool.exists(sql.unsafe`SELECT 1 FROM pg_tables WHERE tablename = 'rm_ledger_v1_totals'`)).toBe(false);
    expect((await listSlots(db.pool, 'ledger')).map((s) => s.generation)).toEqual([2]);
  });

  it('refuses unknown commands and projections with a usage error', async () => {
    await expect(cli(['projections', 'rebuild', 'nope'])).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['projections', 'rebuild', 'nope'])).rejects.toThrow(/unknown projection "nope"; known: ledger/);
    await expect(cli(['frobnicate'])).rejects.toBeInstanceOf(UsageError);
    await expect(cli(['projections', 'cutover', 'ledger', 'x'])).rejects.toThrow(/slot number/);
    await expect(cli(['projections', 'drop-retired', '--older-than', 'soon'])).rejects.toThrow(/minutes/);
  });

  it('runs as a process: migrate, status, usage on bad input', async () => {
    const env = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' };
    const migrated = await run(process.execPath, [cliEntry, 'migrate'], { env });
    expect(migrated.stdout).toMatch(/schema is up to date \(version \d+\)/);
    const status = await run(process.execPath, [cliEntry, 'projections', 'status'], { env });
    expect(status.stdout).toContain('ledger v2  live');
    expect(status.stdout).toContain('(not in this code)');
    const bad = await run(process.execPath, [cliEntry, 'projections', 'explode'], { env }).catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain('unknown projections command "explode"');
    const badUrl = await run(process.execPath, [cliEntry, 'migrate'], { env: { ...env, DATABASE_URL: 'mysql://x/y' } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(badUrl).toMatchObject({ code: 1 });
    expect((badUrl as { stderr: string }).stderr).toContain('DATABASE_URL');
  });
});
