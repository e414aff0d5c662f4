/**
 * Elo-MMR (projections/src/ratings/rules/elo-mmr.ts): small contests worked by hand from the paper's
 * equations, a check against a direct solve of the performance equation, and properties over random
 * contests from a seeded generator.
 *
 * Hand values. A newcomer has sigma 350 and no drift (it is capped at 350), so as an opponent it is a
 * logistic of deviation delta = sqrt(350² + beta²), beta² = 6·80² = 38400, i.e. scale s = 2·delta·√3/π
 * = 442.30. In a field of n newcomers every term is the same, so the performance equation
 * n·tanh((p - 1500) / s) = (players below) - (players above) gives p = 1500 + s·atanh((below - above) / n).
 * The rating is then the zero of (mu - 1500) / 350² + (π / (√3·beta))·tanh((mu - p)·π / (2√3·beta)), and
 * sigma = (350⁻² + beta⁻²)^(-1/2) = 170.984.
 */
import { describe, expect, it } from 'vitest';
import { displayRating, ELO_MMR_PARAMS, newPlayer, rateContest, type PlayerState, type Standing } from '@otog/projections/ratings/rules/elo-mmr';
import { mulberry32 } from '../support/mulberry32.ts';

const T0 = Date.UTC(2024, 0, 1);
const DAY = 86_400_000;
const BETA = ELO_MMR_PARAMS.beta;
const NEWCOMER_SCALE = ((2 * Math.sqrt(3)) / Math.PI) * Math.hypot(350, BETA);
/** sigma after a newcomer's first contest. */
const FIRST_SIGMA = 170.984063676;

const ranked = (...ranks: number[]): Standing[] => ranks.map((rank, index) => ({ userId: index + 1, rank }));
const performanceOf = (state: PlayerState): number => state.history[state.history.length - 1]!.performance;
const closedFormPerformance = (below: number, above: number, n: number) => 1500 + NEWCOMER_SCALE * Math.atanh((below - above) / n);

/** A settled player: sigma at the floor, everything on the Gaussian anchor, last played at `lastContestAt`. */
const veteran = (mu: number, lastContestAt = T0): PlayerState => ({ mu, sigma: 80, anchor: { mu, weight: 1 / 80 ** 2 }, history: [], lastContestAt, contests: 30 });

/** 1/sigma² as the belief's factors add it up. */
const precisionOf = (state: PlayerState): number => state.history.reduce((sum, term) => sum + term.weight, state.anchor.weight);

function get(states: ReadonlyMap<number, PlayerState>, userId: number): PlayerState {
  const state = states.get(userId);
  if (!state) throw new Error(`user ${userId} was not rated`);
  return state;
}

describe('Elo-MMR: small contests worked by hand', () => {
  it('two newcomers: the winner goes up and the loser down by the same amount about 1500', () => {
    const after = rateContest(new Map(), ranked(1, 2), T0);
    const [winner, loser] = [get(after, 1), get(after, 2)];
    expect(performanceOf(winner)).toBeCloseTo(closedFormPerformance(1, 0, 2), 6); // 1742.959133
    expect(performanceOf(loser)).toBeCloseTo(closedFormPerformance(0, 1, 2), 6); // 1257.040867
    expect(winner.mu).toBeCloseTo(1703.712392987, 6);
    expect(loser.mu).toBeCloseTo(1296.287607013, 6);
    expect(winner.mu + loser.mu).toBeCloseTo(3000, 6);
    expect([displayRating(winner), displayRating(loser)]).toEqual([1704, 1296]);
    expect(winner.sigma).toBeCloseTo(FIRST_SIGMA, 6);
    expect(loser.sigma).toBeCloseTo(FIRST_SIGMA, 6);
    expect([winner.contests, winner.lastContestAt]).toEqual([1, T0]);
  });

  it('a tie between two equal newcomers changes nothing but sigma', () => {
    const after = rateContest(new Map(), ranked(1, 1), T0);
    for (const userId of [1, 2]) {
      expect(get(after, userId).mu).toBeCloseTo(1500, 6);
      expect(get(after, userId).sigma).toBeCloseTo(FIRST_SIGMA, 6);
      expect(displayRating(get(after, userId))).toBe(1500);
    }
  });

  it('a tie between two equal veterans keeps their rating and shrinks the drifted sigma back', () => {
    const before = veteranWithHistory();
    const later = (before.lastContestAt ?? T0) + 200 * DAY;
    const after = rateContest(new Map([[1, before], [2, before]]), ranked(1, 1), later);
    for (const userId of [1, 2]) {
      expect(get(after, userId).mu).toBeCloseTo(before.mu, 6);
      // 200 days add 1280 + 200·50 to the variance; the contest adds 1/beta² to the precision.
      expect(get(after, userId).sigma).toBeCloseTo(1 / Math.sqrt(1 / (before.sigma ** 2 + 1280 + 200 * 50) + 1 / BETA ** 2), 9);
    }
  });

  it('a newcomer beating two veterans rated 1800 (who tie) jumps far; they drop a little, equally', () => {
    const previous = new Map([
      [2, veteran(1800)],
      [3, veteran(1800)],
    ]);
    const after = rateContest(previous, ranked(1, 2, 2), T0);
    // Direct solve of the paper's equations (veterans drift 80 -> sqrt(80² + 1280) before the contest).
    expect(performanceOf(get(after, 1))).toBeCloseTo(2044.163075277, 6);
    expect(get(after, 1).mu).toBeCloseTo(1952.793109683, 6);
    expect(performanceOf(get(after, 2))).toBeCloseTo(1704.436607721, 6);
    expect(get(after, 2).mu).toBeCloseTo(1776.989422634, 6);
    expect(get(after, 3).mu).toBe(get(after, 2).mu);
    expect(get(after, 2).sigma).toBeCloseTo(80, 9); // a settled player stays at the floor
  });

  it('three newcomers, two tied for first: the tied pair share everything', () => {
    const after = rateContest(new Map(), ranked(1, 1, 3), T0);
    expect(performanceOf(get(after, 1))).toBeCloseTo(closedFormPerformance(1, 0, 3), 6); // 1653.290146
    expect(performanceOf(get(after, 3))).toBeCloseTo(closedFormPerformance(0, 2, 3), 6); // 1144.071303
    expect(get(after, 1).mu).toBeCloseTo(1628.664866196, 6);
    expect(get(after, 3).mu).toBeCloseTo(1202.186508673, 6);
    expect(get(after, 2)).toEqual(get(after, 1));
    expect([1, 2, 3].map((userId) => displayRating(get(after, userId)))).toEqual([1629, 1629, 1202]);
  });

  it('five newcomers in a row: every performance is the closed form (the interpolated ranks too)', () => {
    const after = rateContest(new Map(), ranked(1, 2, 3, 4, 5), T0);
    for (let index = 0; index < 5; index++) {
      expect(performanceOf(get(after, index + 1))).toBeCloseTo(closedFormPerformance(4 - index, index, 5), 6);
    }
    expect(get(after, 2).mu).toBeCloseTo(1657.224675133, 6);
    expect(get(after, 3).mu).toBeCloseTo(1500, 6);
  });
});

describe('Elo-MMR: the performance equation', () => {
  it('matches a direct bisection of the paper equation for a field of 300 varied players', () => {
    const random = mulberry32(7);
    const previous = new Map<number, PlayerState>();
    for (let userId = 1; userId <= 300; userId++) {
      const mu = 1500 + 500 * (random() - 0.5) * 2;
      const sigma = 80 + 270 * random() ** 2;
      previous.set(userId, { mu, sigma, anchor: { mu, weight: 1 / sigma ** 2 }, history: [], lastContestAt: T0, contests: 5 });
    }
    const standings = randomStandings([...previous.keys()], random);
    const after = rateContest(previous, standings, T0);
    // Before the contest each deviation drifts by the per-contest 1280 (no days pass), capped at 350.
    const field = standings.map(({ userId, rank }) => {
      const { mu, sigma } = get(previous, userId);
      const delta = Math.hypot(Math.min(350, Math.hypot(sigma, Math.sqrt(1280))), BETA);
      return { mu, rank, weight: 1 / delta, scale: ((2 * Math.sqrt(3)) / Math.PI) * delta };
    });
    for (const { userId, rank } of standings) {
      const equation = (p: number) =>
        field.reduce((sum, other) => sum + other.weight * (Math.tanh((p - other.mu) / other.scale) + (other.rank < rank ? 1 : other.rank > rank ? -1 : 0)), 0);
      expect(performanceOf(get(after, userId))).toBeCloseTo(bisect(equation, -10_000, 10_000), 6);
    }
  });
});

describe('Elo-MMR: properties over random contests', () => {
  const random = mulberry32(20_210_419);
  const history = randomHistory(random, 50);

  it('is incentive compatible: with the same prior state, a better rank never ends lower, an equal rank equal', () => {
    for (const { previous, standings, endAt } of history) {
      const after = rateContest(previous, standings, endAt);
      const rankOf = new Map(standings.map(({ userId, rank }) => [userId, rank]));
      const byPrior = new Map<string, number[]>();
      for (const { userId } of standings) {
        const key = JSON.stringify(previous.get(userId) ?? null);
        byPrior.set(key, [...(byPrior.get(key) ?? []), userId]);
      }
      let comparedPairs = 0;
      for (const twins of byPrior.values()) {
        for (const a of twins) {
          for (const b of twins) {
            if (rankOf.get(a)! < rankOf.get(b)!) expect(get(after, a).mu).toBeGreaterThan(get(after, b).mu);
            if (rankOf.get(a) === rankOf.get(b)) expect(get(after, a).mu).toBe(get(after, b).mu);
            comparedPairs += a === b ? 0 : 1;
          }
        }
      }
      expect(comparedPairs).toBeGreaterThan(0);
    }
  });

  it('gives every participant a performance that falls strictly with the rank', () => {
    for (const { previous, standings, endAt } of history) {
      const after = rateContest(previous, standings, endAt);
      const ordered = [...standings].sort((a, b) => a.rank - b.rank);
      for (let index = 1; index < ordered.length; index++) {
        const [better, worse] = [ordered[index - 1]!, ordered[index]!];
        const [high, low] = [performanceOf(get(after, better.userId)), performanceOf(get(after, worse.userId))];
        if (better.rank === worse.rank) expect(low).toBe(high);
        else expect(low).toBeLessThan(high);
      }
    }
  });

  it('gives identical outputs for identical inputs, whatever the order of the standings or of the map', () => {
    const shuffle = mulberry32(99);
    for (const { previous, standings, endAt } of history) {
      const expected = rateContest(previous, standings, endAt);
      expect(rateContest(previous, standings, endAt)).toEqual(expected);
      const shuffledStandings = shuffled(standings, shuffle);
      const shuffledPrevious = new Map(shuffled([...previous], shuffle));
      const actual = rateContest(shuffledPrevious, shuffledStandings, endAt);
      expect([...actual.keys()].sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
      for (const [userId, state] of expected) expect(get(actual, userId)).toEqual(state);
    }
  });

  it('rates exactly the participants', () => {
    for (const { previous, standings, endAt } of history) {
      const after = rateContest(previous, standings, endAt);
      expect([...after.keys()].sort((a, b) => a - b)).toEqual(standings.map(({ userId }) => userId).sort((a, b) => a - b));
    }
  });

  it('keeps sigma at or above the floor, and brings a player who plays back to back down to it', () => {
    for (const { previous, standings, endAt } of history) {
      for (const state of rateContest(previous, standings, endAt).values()) expect(state.sigma).toBeGreaterThanOrEqual(ELO_MMR_PARAMS.sigmaFloor);
    }
    let states = new Map<number, PlayerState>();
    const rng = mulberry32(5);
    for (let contest = 0; contest < 50; contest++) {
      states = rateContest(states, randomStandings([1, 2, 3, 4, 5, 6], rng), T0);
      for (const state of states.values()) expect(state.sigma).toBeGreaterThanOrEqual(80);
    }
    for (const state of states.values()) expect(state.sigma).toBeLessThan(80.5);
  });

  it('keeps the weights of the belief adding up to 1/sigma²', () => {
    for (const { previous, standings, endAt } of history) {
      for (const state of rateContest(previous, standings, endAt).values()) expect(precisionOf(state) * state.sigma ** 2).toBeCloseTo(1, 9);
    }
  });
});

describe('Elo-MMR: history compression', () => {
  it('keeps the last historyLimit performances and folds older ones into the anchor, weight preserved', () => {
    let states = new Map<number, PlayerState>();
    const random = mulberry32(11);
    for (let contest = 0; contest < 40; contest++) {
      states = rateContest(states, randomStandings([1, 2, 3, 4], random), T0 + contest * 3 * DAY);
      const state = get(states, 1);
      expect(state.history).toHaveLength(Math.min(contest + 1, ELO_MMR_PARAMS.historyLimit));
      expect(precisionOf(state) * state.sigma ** 2).toBeCloseTo(1, 9);
    }
    const state = get(states, 1);
    expect(state.contests).toBe(40);
    expect(state.anchor.mu).not.toBe(1500); // folded performances moved it
  });
});

describe('Elo-MMR: drift with inactivity', () => {
  it('grows sigma with the time away, up to the newcomer deviation, without moving the rating', () => {
    const before = veteranWithHistory();
    const last = before.lastContestAt ?? T0;
    const afterGap = (days: number) => get(rateContest(new Map([[1, before], [2, before]]), ranked(1, 1), last + days * DAY), 1);
    const sigmas = [0, 30, 365, 1000].map((days) => afterGap(days).sigma);
    for (let index = 1; index < sigmas.length; index++) expect(sigmas[index]).toBeGreaterThan(sigmas[index - 1]!);
    // Ten years away already reach the cap (350 before the contest), as a newcomer.
    expect(afterGap(3650).sigma).toBeCloseTo(FIRST_SIGMA, 9);
    expect(afterGap(36_500).sigma).toBeCloseTo(FIRST_SIGMA, 9);
    // A tie with one's twin performs exactly at the rating: drift alone does not move it.
    for (const days of [0, 365, 36_500]) expect(afterGap(days).mu).toBeCloseTo(before.mu, 6);
  });

  it('lets a player back from a long break move further on the same result', () => {
    const before = veteranWithHistory();
    const last = before.lastContestAt ?? T0;
    const opponents = new Map([2, 3, 4, 5].map((userId): [number, PlayerState] => [userId, veteran(before.mu, last)]));
    const gainAfter = (days: number) => get(rateContest(new Map([...opponents, [1, before]]), ranked(1, 2, 3, 4, 5), last + days * DAY), 1).mu - before.mu;
    expect(gainAfter(0)).toBeGreaterThan(0);
    expect(gainAfter(365)).toBeGreaterThan(gainAfter(7));
  });
});

describe('Elo-MMR: robust response', () => {
  it("bounds a settled player's drop however extreme the last place, by the paper's pi / (beta√3) / w0", () => {
    // veteran(1500) drifts to an anchor weight w0 = 1/(80² + 1280) and holds no other factor.
    const bound = (Math.PI / (BETA * Math.sqrt(3))) * (80 ** 2 + 1280); // 71.086
    const drops = [9, 100, 1000].map((size) => {
      const field = new Map(Array.from({ length: size }, (_, index): [number, PlayerState] => [index + 1, veteran(1500)]));
      const standings = [...field.keys()].map((userId) => ({ userId, rank: userId === 1 ? size : userId - 1 }));
      const after = get(rateContest(field, standings, T0), 1);
      // A Gaussian update would move mu by (1500 - p) · beta⁻² / (w0 + beta⁻²), without bound.
      const gaussianDrop = ((1500 - performanceOf(after)) * BETA ** -2) / ((80 ** 2 + 1280) ** -1 + BETA ** -2);
      return { drop: 1500 - after.mu, gaussianDrop };
    });
    for (const { drop } of drops) expect(drop).toBeLessThan(bound);
    expect(drops[1]!.drop).toBeGreaterThan(drops[0]!.drop);
    expect(drops[2]!.drop).toBeGreaterThan(drops[1]!.drop);
    expect(drops[2]!.drop).toBeLessThan(drops[2]!.gaussianDrop * 0.5);
  });

  it('moves a settled player less than a newcomer for the same last place', () => {
    const field = new Map([2, 3, 4, 5, 6, 7, 8, 9].map((userId): [number, PlayerState] => [userId, veteran(1500)]));
    const standings = ranked(9, 1, 2, 3, 4, 5, 6, 7, 8); // user 1 is last
    const newcomerDrop = 1500 - get(rateContest(field, standings, T0), 1).mu;
    const veteranDrop = 1500 - get(rateContest(new Map([...field, [1, veteran(1500)]]), standings, T0), 1).mu;
    expect(veteranDrop).toBeGreaterThan(0);
    expect(veteranDrop).toBeLessThan(newcomerDrop / 3);
  });
});

describe('Elo-MMR: inputs', () => {
  it('starts newcomers at 1500 ± 350 with nothing played', () => {
    expect(newPlayer()).toEqual({ mu: 1500, sigma: 350, anchor: { mu: 1500, weight: 1 / 350 ** 2 }, history: [], lastContestAt: null, contests: 0 });
    expect(displayRating(newPlayer())).toBe(1500);
  });

  it('rates an empty contest to nobody and refuses a user listed twice', () => {
    expect(rateContest(new Map(), [], T0).size).toBe(0);
    expect(() => rateContest(new Map(), [{ userId: 1, rank: 1 }, { userId: 1, rank: 2 }], T0)).toThrow(RangeError);
  });
});

// --- helpers -----------------------------------------------------------------------------------------

interface RatedContest {
  readonly previous: ReadonlyMap<number, PlayerState>;
  readonly standings: readonly Standing[];
  readonly endAt: number;
}

/**
 * `count` contests rated in sequence over a pool of 60 users, 2 to 40 participants each, a few days to a
 * year apart. Each contest also seats twins (fresh users given the prior state of an existing one) and a
 * couple of brand-new users, so players with the same prior state meet in every contest.
 */
function randomHistory(random: () => number, count: number): RatedContest[] {
  const states = new Map<number, PlayerState>();
  const contests: RatedContest[] = [];
  let nextUserId = 1000;
  let endAt = T0;
  for (let contest = 0; contest < count; contest++) {
    endAt += Math.ceil(random() * (random() < 0.1 ? 365 : 14)) * DAY;
    const previous = new Map(states);
    const regulars = shuffled(Array.from({ length: 60 }, (_, index) => index + 1), random).slice(0, 2 + Math.floor(random() * 39));
    const rated = regulars.filter((userId) => previous.has(userId));
    const twins = rated.slice(0, 2).map((userId) => {
      const twin = nextUserId++;
      previous.set(twin, get(previous, userId));
      return twin;
    });
    const newcomers = [nextUserId++, nextUserId++];
    const standings = randomStandings([...regulars, ...twins, ...newcomers], random);
    contests.push({ previous, standings, endAt });
    for (const [userId, state] of rateContest(previous, standings, endAt)) if (userId < 1000) states.set(userId, state);
  }
  return contests;
}

/** Competition ranks for the users in a random order, with ties about a fifth of the time. */
function randomStandings(userIds: readonly number[], random: () => number): Standing[] {
  const order = shuffled(userIds, random);
  const standings: Standing[] = [];
  order.forEach((userId, index) => {
    const previous = standings[index - 1];
    standings.push({ userId, rank: previous && random() < 0.2 ? previous.rank : index + 1 });
  });
  return standings;
}

/** A player with a few contests behind them, so drift has logistic factors to reweigh. */
function veteranWithHistory(): PlayerState {
  let states = new Map<number, PlayerState>();
  const random = mulberry32(3);
  for (let contest = 0; contest < 6; contest++) states = rateContest(states, randomStandings([1, 2, 3, 4], random), T0 + contest * 7 * DAY);
  return get(states, 1);
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const swap = Math.floor(random() * (index + 1));
    [copy[index], copy[swap]] = [copy[swap]!, copy[index]!];
  }
  return copy;
}

/** The zero of an increasing function, by plain bisection. */
function bisect(f: (x: number) => number, lo: number, hi: number): number {
  for (let step = 0; step < 200; step++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
