/**
 * Ratings. First the Elo-MMR rule on its own (projections/src/ratings/rules/elo-mmr.ts), single thread, no
 * services:
 *
 * 1. one contest of 10,000 participants, once all newcomers and once all veterans with a full history;
 *    the slower field is reported (median of 3 after a warm-up);
 * 2. re-rating 500 contests × 2,000 participants from scratch (--quick: 50), the participants drawn from a
 *    pool of 20,000 users with a seeded generator, ranks from a hidden skill plus noise with ties.
 *
 * Standings are generated before the clock starts; only rateContest is timed. `node bench/ratings.ts
 * [--quick]` prints the rule's figures.
 *
 * Then the ratings projection's recompute (what a rejudge of the first contest, or `ratings recompute`,
 * does) over a live slot seeded in bulk with SQL: 500 finished rated contests of 2,000 participants
 * (1,000,000 judged entries) and a last one of 10,000; timed: the whole history from scratch, and the last
 * contest alone.
 */
import { ratingsProjection } from '@otog/projections';
import { ELO_MMR_PARAMS, rateContest, type PlayerState, type Standing } from '@otog/projections/ratings/rules/elo-mmr';
import { sql } from '@otog/platform/db/pool';
import { ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { recomputeRatings } from '@otog/projections/ratings/ratings-operator';
import type { BenchContext } from './lib/context.ts';
import { createBenchDatabase } from './lib/services.ts';
import type { BenchResult } from './lib/report.ts';
import { int, ms } from './lib/stats.ts';
import { mulberry32 } from '../tests/support/mulberry32.ts';

const ONE_CONTEST_PARTICIPANTS = 10_000;
const REPLAY_CONTESTS = 500;
const QUICK_REPLAY_CONTESTS = 50;
const REPLAY_PARTICIPANTS = 2_000;
const USER_POOL = 20_000;
const DAY_MS = 86_400_000;
const FIRST_CONTEST_END = Date.UTC(2024, 0, 1);
const SEED = 20_210_419;

export interface RatingRulesResult {
  /** The slower of the newcomer and the veteran field. */
  readonly oneContestMs: number;
  readonly participants: number;
  readonly replayMs: number;
  readonly contests: number;
  readonly perContest: number;
}

export async function benchRatingRules(quick: boolean): Promise<RatingRulesResult> {
  const random = mulberry32(SEED);
  const oneContestMs = Math.max(timeOneContest(new Map(), random), timeOneContest(veteranField(random), random));
  const contests = quick ? QUICK_REPLAY_CONTESTS : REPLAY_CONTESTS;
  const replayMs = timeReplay(replayStandings(contests, random));
  return { oneContestMs, participants: ONE_CONTEST_PARTICIPANTS, replayMs, contests, perContest: REPLAY_PARTICIPANTS };
}

const BIG_CONTEST = 10_000;

/**
 * A live ratings slot holding `contests` finished rated contests of REPLAY_PARTICIPANTS (drawn from the
 * user pool by a fixed stride) and a last one of BIG_CONTEST, one judged entry per participant, scores
 * from the user's id (a skill) plus a per-contest wobble, in tens (ties).
 */
async function seedRatingsSlot(adminUrl: string, contests: number) {
  const db = await createBenchDatabase(adminUrl, 'ratings', 4);
  const [version] = await ensureCodeSlot(db.pool, ratingsProjection);
  const t = (table: string) => sql.identifier([`rm_ratings_v${version!}_${table}`]);
  const last = contests + 1;
  await db.pool.query(sql.unsafe`
    INSERT INTO ${t('contests')} (contest_id, mode, grading_mode, time_start, time_end, ended_end)
    SELECT c, 'rated', 'classic', ts, ts + interval '3 hours', ts + interval '3 hours'
    FROM generate_series(1, ${last}) c, LATERAL (SELECT timestamptz '2024-01-01' + c * interval '3 days 12 hours' AS ts) x`);
  await db.pool.query(sql.unsafe`INSERT INTO ${t('problems')} SELECT c, 1 FROM generate_series(1, ${last}) c`);
  await db.pool.query(sql.unsafe`INSERT INTO ${t('problem_scores')} VALUES (1, 100)`);
  await db.pool.query(sql.unsafe`INSERT INTO ${t('roles')} SELECT u, 'user' FROM generate_series(1, ${USER_POOL}) u`);
  // Stride 4729 is coprime with the pool's 20,000: a contest's participants are distinct users.
  await db.pool.query(sql.unsafe`
    INSERT INTO ${t('members')} SELECT c, ((c * 7919 + k * 4729) % ${USER_POOL}) + 1
    FROM generate_series(1, ${contests}) c, generate_series(1, ${REPLAY_PARTICIPANTS}) k`);
  await db.pool.query(sql.unsafe`INSERT INTO ${t('members')} SELECT ${last}, u FROM generate_series(1, ${BIG_CONTEST}) u`);
  await db.pool.query(sql.unsafe`
    INSERT INTO ${t('entries')} (submission_id, contest_id, user_id, problem_id, submitted_at, judging, status, score, subtasks)
    SELECT row_number() OVER (), m.contest_id, m.user_id, 1, c.time_start + (m.user_id % 170) * interval '1 minute', 1, 'reject', s.score,
      jsonb_build_array(jsonb_build_object('score', s.score, 'fullScore', 100))
    FROM ${t('members')} m JOIN ${t('contests')} c USING (contest_id),
      LATERAL (SELECT least(100, greatest(0, (m.user_id * 100 / ${USER_POOL}) + ((m.contest_id * 31 + m.user_id * 17) % 41) - 20)) / 10 * 10 AS score) s`);
  await db.pool.query(sql.unsafe`VACUUM ANALYZE`);
  return db;
}

async function timeRecompute(adminUrl: string, contests: number): Promise<{ allMs: number; results: number; lastMs: number }> {
  const db = await seedRatingsSlot(adminUrl, contests);
  try {
    let started = performance.now();
    const all = await recomputeRatings(db.pool, null);
    const allMs = performance.now() - started;
    started = performance.now();
    await recomputeRatings(db.pool, contests + 1);
    return { allMs, results: all.results, lastMs: performance.now() - started };
  } finally {
    await db.drop();
  }
}

/** The rule's and the projection's figures as a report section (`npm run bench -- --only ratings`). */
export async function benchRatings(context: BenchContext): Promise<BenchResult> {
  const result = await benchRatingRules(context.quick);
  const recompute = await timeRecompute(context.adminUrl, result.contests);
  return {
    id: 'ratings',
    title: 'Ratings: the Elo-MMR rule and the ratings projection',
    method: [
      'projections/src/ratings/rules/elo-mmr.ts alone (the exact logistic variant), single thread, no database: standings are generated before the clock starts and only `rateContest` is timed.',
      `One contest of ${int(result.participants)}: once all newcomers, once all veterans with a full history of performances; the slower field, median of 3 after a warm-up.`,
      `Re-rating from scratch: ${result.contests} contests × ${int(result.perContest)} participants drawn from a pool of ${int(USER_POOL)} users (seeded), ranks from a hidden skill plus noise, scores rounded so that ties occur.`,
    ],
    figures: [
      { name: `Rating one contest of ${int(result.participants)}`, value: result.oneContestMs, unit: 'ms', display: `${ms(result.oneContestMs)} ms`, target: { op: '<', value: 1_000, text: '< 1 s' } },
      {
        name: `Rating one contest of ${int(BIG_CONTEST)} through the ratings projection (read, rate, write)`,
        value: recompute.lastMs,
        unit: 'ms',
        display: `${ms(recompute.lastMs)} ms`,
        target: { op: '<', value: 1_000, text: '< 1 s' },
      },
      {
        name: `Re-rating ${result.contests} contests × ${int(result.perContest)} (+1 of ${int(BIG_CONTEST)}) from scratch through the ratings projection`,
        value: recompute.allMs / 1000,
        unit: 's',
        display: `${(recompute.allMs / 1000).toFixed(1)} s`,
        ...(context.quick ? {} : { target: { op: '<' as const, value: 30, text: '< 30 s' } }),
      },
      {
        name: `Re-rating ${result.contests} contests × ${int(result.perContest)} from scratch`,
        value: result.replayMs / 1000,
        unit: 's',
        display: `${(result.replayMs / 1000).toFixed(1)} s`,
        ...(context.quick ? {} : { target: { op: '<' as const, value: 30, text: '< 30 s' } }),
      },
    ],
    tables: [],
    notes: [
      `${ms(result.replayMs / result.contests)} ms a contest of ${int(result.perContest)} in the re-rating.`,
      `Through the ratings projection (its live slot seeded in bulk with SQL, then \`recomputeRatings\`: standings read from the slot, rated, ${int(recompute.results)} results written): ` +
        `the whole history of ${result.contests} contests × ${int(result.perContest)} and a last one of ${int(BIG_CONTEST)} in ${(recompute.allMs / 1000).toFixed(1)} s; ` +
        `the contest of ${int(BIG_CONTEST)} alone (as when it ends) in ${ms(recompute.lastMs)} ms.`,
    ],
  };
}

function timeOneContest(previous: ReadonlyMap<number, PlayerState>, random: () => number): number {
  const standings = rankedBySkill(
    Array.from({ length: ONE_CONTEST_PARTICIPANTS }, (_, index) => index + 1),
    (userId) => previous.get(userId)?.mu ?? ELO_MMR_PARAMS.initialMu,
    random,
  );
  const end = FIRST_CONTEST_END + 400 * DAY_MS;
  rateContest(previous, standings, end); // warm-up
  const samples = [0, 1, 2].map(() => {
    const started = performance.now();
    rateContest(previous, standings, end);
    return performance.now() - started;
  });
  return samples.sort((a, b) => a - b)[1]!;
}

/** Veterans with a full history: performances scattered around their rating, weights decayed by age. */
function veteranField(random: () => number): Map<number, PlayerState> {
  const { beta, historyLimit } = ELO_MMR_PARAMS;
  const field = new Map<number, PlayerState>();
  for (let userId = 1; userId <= ONE_CONTEST_PARTICIPANTS; userId++) {
    const mu = 1500 + 350 * gaussian(random);
    const history = Array.from({ length: historyLimit }, (_, age) => ({
      performance: mu + beta * gaussian(random),
      weight: 0.7 ** (historyLimit - 1 - age) / beta ** 2,
    }));
    const anchor = { mu, weight: 1 / 350 ** 2 };
    const sigma = 1 / Math.sqrt(history.reduce((total, term) => total + term.weight, anchor.weight));
    const lastContestAt = FIRST_CONTEST_END + Math.floor(random() * 400) * DAY_MS;
    field.set(userId, { mu, sigma, anchor, history, lastContestAt, contests: historyLimit + Math.floor(random() * 50) });
  }
  return field;
}

function replayStandings(contests: number, random: () => number): Standing[][] {
  const skills = Array.from({ length: USER_POOL }, () => 1500 + 400 * gaussian(random));
  const pool = Array.from({ length: USER_POOL }, (_, index) => index + 1);
  return Array.from({ length: contests }, () => {
    // A partial Fisher-Yates shuffle draws this contest's participants.
    for (let index = 0; index < REPLAY_PARTICIPANTS; index++) {
      const swap = index + Math.floor(random() * (USER_POOL - index));
      [pool[index], pool[swap]] = [pool[swap]!, pool[index]!];
    }
    return rankedBySkill(pool.slice(0, REPLAY_PARTICIPANTS), (userId) => skills[userId - 1]!, random);
  });
}

function timeReplay(contests: readonly Standing[][]): number {
  const states = new Map<number, PlayerState>();
  const started = performance.now();
  contests.forEach((standings, index) => {
    for (const [userId, state] of rateContest(states, standings, FIRST_CONTEST_END + index * 3.5 * DAY_MS)) states.set(userId, state);
  });
  return performance.now() - started;
}

/** Competition ranks from skill plus noise; scores rounded to 25 points give ties, as judge scores do. */
function rankedBySkill(userIds: readonly number[], skillOf: (userId: number) => number, random: () => number): Standing[] {
  const scored = userIds.map((userId) => ({ userId, score: Math.round((skillOf(userId) + 200 * gaussian(random)) / 25) }));
  scored.sort((a, b) => b.score - a.score || a.userId - b.userId);
  const standings: Standing[] = [];
  scored.forEach(({ userId, score }, index) => {
    const previous = standings[index - 1];
    standings.push({ userId, rank: previous && scored[index - 1]!.score === score ? previous.rank : index + 1 });
  });
  return standings;
}

/** A standard normal draw (Box-Muller). */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  const result = await benchRatingRules(quick);
  console.log(`Elo-MMR, one contest of ${result.participants.toLocaleString('en-US')}: ${result.oneContestMs.toFixed(1)} ms (target < 1,000 ms)`);
  console.log(
    `Elo-MMR, re-rating ${result.contests} contests × ${result.perContest.toLocaleString('en-US')}: ${(result.replayMs / 1000).toFixed(2)} s ` +
      `(${(result.replayMs / result.contests).toFixed(1)} ms a contest; target < 30 s for 500)`,
  );
}
