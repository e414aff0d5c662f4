/**
 * The contest end scheduler on a real stack: contests are made through the contest routes, the scheduler
 * reads their ends from the contests read model and appends ContestEnded to `contest-<id>`, once per end,
 * whether it catches up after downtime, wakes at an end, races another scheduler or meets a moved or
 * deleted contest.
 */
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { contestsProjection } from '@otog/projections';
import { createDbPool, sql, type DatabasePool } from '@otog/platform/db/pool';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import { createLogger } from '@otog/platform/log/logger';
import { readModel } from '@otog/platform/runner/read-model';
import { startContestEndScheduler, type ContestEndScheduler } from '@otog/api/modules/contests/contest-end-scheduler';
import { contestContract as contract, type ContestInput } from '@otog/schemas/api/contest';
import { startStack, type Stack, type TestUser } from '../api/support/stack.ts';
import { until } from '../support/until.ts';

let stack: Stack;
let admin: TestUser;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.createUser({ role: 'admin' });
}, 60_000);
afterAll(() => stack?.stop());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Long enough that no test waits on the poll: a timely end proves the wake-up timer. */
const NO_POLL = 10 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
const silent = createLogger({ name: 'contest-end-test', level: 'silent' });

const running: ContestEndScheduler[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((scheduler) => scheduler.stop()));
});

function startScheduler(
  options: { pollMs?: number; pool?: DatabasePool; store?: EventStore; logger?: ReturnType<typeof createLogger> } = {},
): ContestEndScheduler {
  const scheduler = startContestEndScheduler({
    pool: options.pool ?? stack.deps.pool,
    store: options.store ?? stack.deps.store,
    logger: options.logger ?? silent,
    pollMs: options.pollMs ?? NO_POLL,
  });
  running.push(scheduler);
  return scheduler;
}

/** A contest through the routes (which wait for the contests read model), an hour long, ending at `endMs`. */
async function contestEndingAt(endMs: number): Promise<{ id: number; timeEnd: string }> {
  const body: ContestInput = {
    name: 'Ending',
    mode: 'rated',
    gradingMode: 'classic',
    scoreboardPolicy: 'DURING_CONTEST',
    timeStart: iso(endMs - HOUR),
    timeEnd: iso(endMs),
  };
  const contest = await stack.expectCall(contract.createContest, 200, { as: admin, body });
  return { id: contest.id, timeEnd: contest.timeEnd };
}

/** The contest's ContestEnded events, oldest first. */
async function endsOf(contestId: number) {
  const events = await stack.deps.store.readStream(`contest-${contestId}`);
  return events.filter((event) => event.type === 'ContestEnded');
}
const endTimes = async (contestId: number) => (await endsOf(contestId)).map((event) => (event.data as { timeEnd: string }).timeEnd);

/** A logger that keeps its lines. */
function capturingLogger() {
  const lines: string[] = [];
  const destination = new PassThrough();
  destination.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return { logger: createLogger({ name: 'contest-end-test', level: 'info', destination }), lines };
}

/** The event store, counting the contest streams read (each `end` command reads one). */
function countingStore(): { store: EventStore; reads: () => number } {
  const store = stack.deps.store;
  let reads = 0;
  return {
    store: {
      ...store,
      registry: store.registry,
      readStreamOf(streamId, types) {
        reads += 1;
        return store.readStreamOf(streamId, types);
      },
    },
    reads: () => reads,
  };
}

describe('the contest end scheduler', () => {
  it('catches up at its first tick: every contest that ended while none ran gets exactly one ContestEnded', async () => {
    const anHourAgo = await contestEndingAt(Date.now() - HOUR);
    const aDayAgo = await contestEndingAt(Date.now() - 24 * HOUR);
    const later = await contestEndingAt(Date.now() + HOUR);

    // The start itself catches up: no tick asked.
    const scheduler = startScheduler();
    await until('both ended contests have their ContestEnded', async () => (await endsOf(anHourAgo.id)).length > 0 && (await endsOf(aDayAgo.id)).length > 0);
    expect(await scheduler.tick()).toBe(0);
    expect(await endTimes(anHourAgo.id)).toEqual([anHourAgo.timeEnd]);
    expect(await endTimes(aDayAgo.id)).toEqual([aDayAgo.timeEnd]);
    expect(await endTimes(later.id)).toEqual([]);
    const [event] = await endsOf(anHourAgo.id);
    expect(event).toMatchObject({ scope: `contest:${anHourAgo.id}`, data: { contestId: anHourAgo.id }, meta: { actor: 'contest-end-scheduler' } });
  });

  it('a second tick appends nothing, and skips the confirmed ends without reading their streams', async () => {
    const ended = await contestEndingAt(Date.now() - MINUTE);
    const counting = countingStore();
    const scheduler = startScheduler({ store: counting.store });
    await scheduler.tick();
    expect(await endTimes(ended.id)).toEqual([ended.timeEnd]);

    const readsBefore = counting.reads();
    expect(await scheduler.tick()).toBe(0);
    expect(counting.reads()).toBe(readsBefore);
    // A scheduler started afresh (nothing in memory) reads the streams and still appends nothing.
    expect(await startScheduler().tick()).toBe(0);
    expect(await endTimes(ended.id)).toEqual([ended.timeEnd]);
  });

  it('wakes at an end ~1.5 s away and confirms it within a second, with no tick asked and no poll due', async () => {
    const endMs = Math.ceil((Date.now() + 1_500) / 1_000) * 1_000;
    const soon = await contestEndingAt(endMs);
    startScheduler();
    await until('the contest has its ContestEnded', async () => (await endsOf(soon.id)).length > 0, endMs - Date.now() + 3_000);
    const [event] = await endsOf(soon.id);
    expect(event!.data).toEqual({ contestId: soon.id, timeEnd: soon.timeEnd });
    const lateBy = Date.parse(event!.occurredAt) - endMs;
    expect(lateBy).toBeGreaterThanOrEqual(0);
    expect(lateBy).toBeLessThan(1_000);
  });

  it('an end moved later after it was confirmed: nothing until the new end passes, then one ContestEnded naming it', async () => {
    const contest = await contestEndingAt(Date.now() - HOUR);
    const scheduler = startScheduler();
    await scheduler.tick();
    expect(await endTimes(contest.id)).toEqual([contest.timeEnd]);

    const newEndMs = Math.ceil((Date.now() + 1_500) / 1_000) * 1_000;
    const patched = await stack.expectCall(contract.patchContest, 200, { as: admin, params: { contestId: contest.id }, body: { timeEnd: iso(newEndMs) } });
    // This tick reads the new end: nothing to confirm yet, and it sets the timer for it.
    expect(await scheduler.tick()).toBe(0);
    expect(await endTimes(contest.id)).toEqual([contest.timeEnd]);

    await until('the new end is confirmed', async () => (await endsOf(contest.id)).length === 2, newEndMs - Date.now() + 3_000);
    expect(await endTimes(contest.id)).toEqual([contest.timeEnd, patched.timeEnd]);
    expect(await scheduler.tick()).toBe(0);
    expect(await endTimes(contest.id)).toEqual([contest.timeEnd, patched.timeEnd]);
  });

  it('a deleted contest gets none, also one the read model still lists after its deletion', async () => {
    const contest = await contestEndingAt(Date.now() - HOUR);
    await stack.expectCall(contract.deleteContest, 200, { as: admin, params: { contestId: contest.id } });

    // A row the read model has not dropped yet: its stream says the contest is gone (404), which is skipped.
    const ghostId = 1_900_000_000;
    const { c } = await readModel({ c: contestsProjection })(stack.deps.pool);
    const endedAt = iso(Date.now() - MINUTE);
    await stack.deps.pool.query(sql.unsafe`
      INSERT INTO ${c.contests} (id, name, mode, grading_mode, scoreboard_policy, time_start, time_end, created_at, updated_at)
      VALUES (${ghostId}, 'ghost', 'rated', 'classic', 'DURING_CONTEST', ${iso(Date.now() - HOUR)}::timestamptz, ${endedAt}::timestamptz, now(), now())`);
    try {
      const counting = countingStore();
      const scheduler = startScheduler({ store: counting.store });
      await scheduler.tick();
      expect(await endTimes(contest.id)).toEqual([]);
      expect(await stack.deps.store.readStream(`contest-${ghostId}`)).toEqual([]);
      // Gone for good: later ticks do not ask again.
      const readsBefore = counting.reads();
      expect(await scheduler.tick()).toBe(0);
      expect(counting.reads()).toBe(readsBefore);
    } finally {
      await stack.deps.pool.query(sql.unsafe`DELETE FROM ${c.contests} WHERE id = ${ghostId}`);
    }
  });

  it('two schedulers ticking at the same time append exactly one ContestEnded per end', async () => {
    const first = startScheduler();
    const second = startScheduler();
    // Past their catch-up, so both ticks below are the first to see the new contests.
    await Promise.all([first.tick(), second.tick()]);

    const contests = await Promise.all(Array.from({ length: 30 }, (_, minutes) => contestEndingAt(Date.now() - (minutes + 1) * MINUTE)));
    const appended = await Promise.all([first.tick(), second.tick()]);
    const counts = await Promise.all(contests.map(async (contest) => (await endTimes(contest.id)).length));
    expect(counts).toEqual(contests.map(() => 1));
    expect(appended[0] + appended[1]).toBe(contests.length);
    expect(await Promise.all([first.tick(), second.tick()])).toEqual([0, 0]);
  });

  it('logs a contest it cannot end and goes on with the others', async () => {
    const broken = await contestEndingAt(Date.now() - 2 * MINUTE);
    const fine = await contestEndingAt(Date.now() - MINUTE);
    const { logger, lines } = capturingLogger();
    const store = stack.deps.store;
    const failing: EventStore = {
      ...store,
      registry: store.registry,
      readStreamOf(streamId, types) {
        return streamId === `contest-${broken.id}` ? Promise.reject(new Error('disk on fire')) : store.readStreamOf(streamId, types);
      },
    };
    const scheduler = startScheduler({ store: failing, logger });
    await scheduler.tick();
    expect(await endTimes(broken.id)).toEqual([]);
    expect(await endTimes(fine.id)).toEqual([fine.timeEnd]);
    await until('the failure is logged', () => lines.some((line) => line.includes('confirming a contest end failed') && line.includes('disk on fire')));

    // Stopped, it does nothing more; a fresh scheduler with a working store ends the contest that failed.
    await scheduler.stop();
    expect(await scheduler.tick()).toBe(0);
    await startScheduler().tick();
    expect(await endTimes(broken.id)).toEqual([broken.timeEnd]);
  });

  it('a failing read of the contests is logged at every wake-up and never thrown out of the timer', async () => {
    const closed = await createDbPool(stack.db.url, { maximumPoolSize: 1 });
    await closed.end();
    const { logger, lines } = capturingLogger();
    const scheduler = startScheduler({ pool: closed, logger, pollMs: 20 });
    const failures = () => lines.filter((line) => line.includes('could not read the contests')).length;
    await until('the timer failed twice', () => failures() >= 2);
    // Asked directly, the same failure is the caller's.
    await expect(scheduler.tick()).rejects.toThrow();
  });
});
