import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@otog/platform/db/pool';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { ledgerProjection } from '../support/test-projections.ts';
import { startTestProjector } from '../support/test-runtime.ts';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { testRegistry } from '../support/test-events.ts';

const EVENTS = 500;
const BLOCK_ON_SEQ = 250;
const child = fileURLToPath(new URL('./fixtures/projector-process.ts', import.meta.url));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('crash proof', () => {
  it('a projector killed with SIGKILL in the middle of a batch resumes with nothing lost or doubled', async () => {
    const store = createEventStore(db.pool, testRegistry);
    const events = Array.from({ length: EVENTS }, (_, i) => ({
      type: 'CounterIncremented',
      scope: 'user:1',
      data: { counter: 'c', by: 1, seq: i + 1 },
    }));
    const appended = await store.append('counter-crash', events);

    // Hold the lock the fold waits on at event 250, so the child is provably inside a batch.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(4242)');
    const projector = spawn(process.execPath, [child], {
      env: { ...process.env, DATABASE_URL: db.url, BLOCK_ON_SEQ: String(BLOCK_ON_SEQ) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const waiting = await db.pool.oneFirst(sql.unsafe`
          SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted`);
        if (waiting === 1n) break;
        if (Date.now() > deadline) throw new Error('the projector never reached the blocking event');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Batches of 100: events 1-200 are committed, 201-249 are written in the open transaction.
      const checkpointBefore = await db.pool.oneFirst(sql.unsafe`
        SELECT last_gpos FROM consumer_checkpoints WHERE consumer = 'projection:ledger:v1'`);
      expect(checkpointBefore).toBe(appended.events[199]!.gpos);
      projector.kill('SIGKILL');
      await once(projector, 'exit');
    } finally {
      await holder.query('SELECT pg_advisory_unlock(4242)');
      await holder.end();
    }

    const resumed = await startTestProjector(db, [ledgerProjection()]);
    try {
      await resumed.runner.waitFor('ledger', { ...appended.lastPosition, scope: 'user:1' }, 30_000);
    } finally {
      await resumed.stop();
    }
    const seqs = (await db.pool.any(sql.unsafe`SELECT seq FROM rm_ledger_v1_applied ORDER BY n`)).map((r) => (r as { seq: number }).seq);
    expect(seqs).toEqual(Array.from({ length: EVENTS }, (_, i) => i + 1));
    expect(await db.pool.one(sql.unsafe`SELECT total, events FROM rm_ledger_v1_totals`)).toEqual({ total: BigInt(EVENTS), events: EVENTS });
  });
});
