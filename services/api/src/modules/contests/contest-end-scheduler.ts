/**
 * Appends ContestEnded when a contest's end passes: projections never read the clock, so folds that act on
 * an end (ratings) learn of it from the log. Each tick reads the contests whose end has passed from the
 * contests read model and runs the decider's `end` command on each end not yet confirmed, then sleeps until
 * the soonest future end (or the poll interval, whichever comes first), so an end is confirmed about as soon
 * as it passes. The first tick, at start, catches up on every end that passed while no scheduler ran.
 *
 * Any number of processes may run one: the decider appends at most one ContestEnded per end, and two
 * schedulers racing on one contest meet at the stream's expected version.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { contestsProjection } from '@otog/projections';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import { runCommand } from '@otog/platform/eventstore/command';
import { WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import { readModel } from '@otog/platform/runner/read-model';
import { HttpError } from '../../http/errors.ts';
import { contestDecider, contestStream } from './contest-decider.ts';

export const DEFAULT_CONTEST_END_POLL_MS = 5_000;
/** Timers may fire a millisecond early; waking a little late finds the end passed instead of sleeping again. */
const WAKE_SLACK_MS = 5;
/** Who appended, in the events' meta (no user: the system did). */
const ACTOR = 'contest-end-scheduler';

export interface ContestEndScheduler {
  /** Confirms every passed end not yet confirmed; resolves to how many ContestEnded it appended. */
  tick(): Promise<number>;
  /** Clears the timer and waits for a running tick. */
  stop(): Promise<void>;
}

const DueContest = z.object({ id: z.number().int(), timeEnd: z.string() });
const NextEnd = z.object({ nextEnd: z.string().nullable() });

const live = readModel({ c: contestsProjection });

/** The contests whose end is at or before `now`, and the soonest end after it (null: none). */
async function readEnds(pool: DatabasePool, now: number): Promise<{ due: readonly z.infer<typeof DueContest>[]; nextEnd: number | null }> {
  const { c } = await live(pool);
  const at = new Date(now).toISOString();
  const due = await pool.any(sql.type(DueContest)`
    SELECT id, time_end AS "timeEnd" FROM ${c.contests} WHERE time_end <= ${at}::timestamptz ORDER BY time_end, id`);
  const nextEnd = await pool.oneFirst(sql.type(NextEnd)`
    SELECT min(time_end) AS "nextEnd" FROM ${c.contests} WHERE time_end > ${at}::timestamptz`);
  return { due, nextEnd: nextEnd === null ? null : Date.parse(nextEnd) };
}

export function startContestEndScheduler(options: {
  pool: DatabasePool;
  store: EventStore;
  logger: Logger;
  /** The longest sleep between ticks: how soon a new or moved end is noticed. */
  pollMs?: number;
}): ContestEndScheduler {
  const { pool, store, logger } = options;
  const pollMs = options.pollMs ?? DEFAULT_CONTEST_END_POLL_MS;
  /**
   * contestId -> the end known to need nothing more (confirmed, or the contest deleted), so later ticks
   * skip it without reading its stream. A moved end no longer matches and is run again.
   */
  const settled = new Map<number, string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  /** Ticks run one after another, whether the timer or a caller asked. */
  let running: Promise<unknown> = Promise.resolve();

  /** Runs `end` on one contest; how many events it appended. Failures are logged, never thrown. */
  async function endContest(contestId: number, timeEnd: string, now: number): Promise<number> {
    try {
      const result = await runCommand(store, contestStream(contestId), contestDecider, { kind: 'end', contestId, timeEnd, now }, {
        meta: { actor: ACTOR },
        // A lost race is retried once on the fresh stream, where the winner's ContestEnded makes it a no-op.
        attempts: 2,
      });
      // Nothing appended and not confirmed: the end moved after the read model was read; the next tick sees the new one.
      if (result.after?.endedAt === timeEnd) settled.set(contestId, timeEnd);
      return result.appended?.events.length ?? 0;
    } catch (error) {
      if (error instanceof HttpError && error.statusCode === 404) {
        // Deleted after the read model was read: ids are never reused, so it never needs an end again.
        settled.set(contestId, timeEnd);
        return 0;
      }
      if (error instanceof WrongExpectedVersionError) {
        logger.info({ contestId, timeEnd }, 'contest changed while confirming its end; trying again at the next tick');
        return 0;
      }
      logger.error({ err: error, contestId, timeEnd }, 'confirming a contest end failed');
      return 0;
    }
  }

  /** A tick nobody awaits: its failure is logged, and the next wake-up is armed all the same. */
  function tickInBackground(): void {
    tick().catch((error: unknown) => logger.error({ err: error }, 'the contest end scheduler could not read the contests'));
  }

  function arm(delayMs: number): void {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(tickInBackground, delayMs);
    // The scheduler alone never keeps a process alive.
    timer.unref();
  }

  async function runTick(): Promise<number> {
    if (stopped) return 0;
    let nextEnd: number | null = null;
    try {
      const now = Date.now();
      const ends = await readEnds(pool, now);
      nextEnd = ends.nextEnd;
      let appended = 0;
      for (const { id, timeEnd } of ends.due) {
        if (stopped) break;
        const end = new Date(timeEnd).toISOString();
        if (settled.get(id) === end) continue;
        appended += await endContest(id, end, now);
      }
      return appended;
    } finally {
      arm(nextEnd === null ? pollMs : Math.min(pollMs, Math.max(0, nextEnd - Date.now()) + WAKE_SLACK_MS));
    }
  }

  function tick(): Promise<number> {
    if (stopped) return Promise.resolve(0);
    const result = running.then(runTick);
    running = result.catch(() => undefined);
    return result;
  }

  // Catch up at once on the ends that passed while no scheduler ran; a tick asked for now runs after it.
  tickInBackground();

  return {
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
