import { describe, expect, it } from 'vitest';
import { sql } from '@otog/platform/db/pool';
import { comparePositions, type Position } from '@otog/platform/eventstore/position';
import { createTestDatabase } from '../support/test-db.ts';
import { ledgerProjection } from '../support/test-projections.ts';
import { startTestProjector } from '../support/test-runtime.ts';

const RUNS = 20;
const APPENDERS = 8;
const APPENDS_PER_WRITER = 12;

/**
 * The event-store pitfall: positions are handed out before commit, so a reader that trusts them skips
 * events of slow transactions. Here 8 writers hold their transactions open for random milliseconds while
 * 2 projector instances compete for the same projection; every event must be applied exactly once, in
 * log order, in every run.
 */
describe('concurrency proof', () => {
  it(`applies every event exactly once and in order (${RUNS} runs, ${APPENDERS} slow writers, 2 projectors)`, async () => {
    for (let run = 1; run <= RUNS; run += 1) {
      const db = await createTestDatabase({ maximumPoolSize: 30 });
      const projection = ledgerProjection();
      const subscribeOptions = { batchSize: 7 };
      const a = await startTestProjector(db, [projection], { subscribeOptions, pollIntervalMs: 5 });
      const b = await startTestProjector(db, [projection], { subscribeOptions, pollIntervalMs: 5 });
      try {
        const lastPositions = await Promise.all(
          Array.from({ length: APPENDERS }, async (_, writer) => {
            let last: Position & { scope: string } = { txid: 0n, gpos: 0n, scope: '' };
            for (let seq = 1; seq <= APPENDS_PER_WRITER; seq += 1) {
              const events = Array.from({ length: 1 + (seq % 3) }, () => ({
                type: 'CounterIncremented',
                scope: `user:${writer}`,
                data: { counter: `w${writer}`, by: seq, seq },
              }));
              const result = await a.store.append(`counter-w${writer}`, events, {
                withinTransaction: () => new Promise((resolve) => setTimeout(resolve, Math.random() * 12)),
              });
              last = { ...result.lastPosition, scope: `user:${writer}` };
            }
            return last;
          }),
        );
        for (const position of lastPositions) await a.runner.waitFor('ledger', position, 30_000);

        const logged = (await db.pool.any(sql.unsafe`SELECT event_id FROM event_log ORDER BY txid, gpos`)).map((r) => (r as { event_id: string }).event_id);
        const applied = (await db.pool.any(sql.unsafe`SELECT event_id, txid, gpos FROM rm_ledger_v1_applied ORDER BY n`)) as Array<
          Position & { event_id: string }
        >;
        expect(applied.map((r) => r.event_id), `run ${run}: applied list differs from the log`).toEqual(logged);
        for (let i = 1; i < applied.length; i += 1) {
          expect(comparePositions(applied[i - 1]!, applied[i]!), `run ${run}: out of order at ${i}`).toBe(-1);
        }
        const totals = await db.pool.any(sql.unsafe`SELECT counter, total, events FROM rm_ledger_v1_totals ORDER BY counter`);
        const expectedEvents = Array.from({ length: APPENDS_PER_WRITER }, (_, i) => 1 + ((i + 1) % 3)).reduce((x, y) => x + y, 0);
        const expectedTotal = Array.from({ length: APPENDS_PER_WRITER }, (_, i) => (i + 1) * (1 + ((i + 1) % 3))).reduce((x, y) => x + y, 0);
        expect(totals).toEqual(
          Array.from({ length: APPENDERS }, (_, w) => ({ counter: `w${w}`, total: BigInt(expectedTotal), events: expectedEvents })),
        );
      } finally {
        await a.stop();
        await b.stop();
        await db.drop();
      }
    }
  }, 300_000);
});
