/**
 * Elo-MMR rating (Ebtekar and Liu, "Elo-MMR: A Rating System for Massive Multiplayer Competitions",
 * WWW 2021): the exact logistic variant, Elo-MMR(ρ) with ρ = 1. Pure and deterministic: no clock, no
 * randomness, no IO; the same previous states, standings and end time give the same numbers to the last
 * bit whatever the order of the standings or of the map, since every sum runs in (rank, userId) order
 * (across JavaScript engines Math.exp and Math.tanh may differ in the last bit).
 *
 * One rated contest, for every participant (the paper's two phases, plus its skill drift):
 *
 * 1. Drift. The skill may have changed since the player's previous rated contest, so the variance grows by
 *    a per-contest amount plus `varianceDriftPerDay` for every day since `lastContestAt`, never beyond
 *    `initialSigma`. The paper's pseudo-diffusion with transfer speed ρ spreads this over the belief: all
 *    weights shrink by old / new variance, and a share of the stored performances' weight moves onto the
 *    Gaussian anchor, re-centred at the current rating, so the rating itself does not move.
 * 2. Performance. Each opponent j is a logistic distribution centred at mu_j with deviation
 *    delta_j = sqrt(sigma_j² + beta²). The player's performance p is the zero of
 *      Σ_j (1/delta_j) tanh((p - mu_j) / (2 d_j)) = Σ_{j ranked below} 1/delta_j - Σ_{j ranked above} 1/delta_j
 *    (d_j = delta_j √3 / π), where the sum on the left runs over everyone, the player included. Ties count
 *    as half a win plus half a loss (as DMOJ does; the paper allows it): a shared score in a judge's contest
 *    (everybody at 0, everybody at 100) says the players were not told apart, not that they performed
 *    exactly alike. With that choice the left side is ONE increasing function of p for the whole contest,
 *    and only the right side depends on the rank, so every player of one rank gets the same performance
 *    and a better rank a strictly higher one.
 * 3. Belief. The performance joins the player's history as a logistic factor of weight 1/beta², and
 *    1/sigma² grows by 1/beta². The new rating is the mode of the belief (Gaussian anchor times logistic
 *    factors), the zero of  w0 (x - m0) + Σ_k w_k (beta² / b) tanh((x - p_k) / (2b)),  b = beta √3 / π:
 *    a robust average of the anchor and the past performances, in which an outlier weighs little.
 *
 * Exact variant, not the subsampled "fast" one, and no O(N²) loop: the left side of step 2, G, is the same
 * for everyone, so it is tabulated exactly (with G' and G'') on a uniform grid over [worst, best
 * performance], spacing a twentieth of the narrowest term (a few hundred points), each term's
 * exponential advanced along the grid by one multiplication; each distinct rank then solves a quintic
 * Hermite piece of it. That is O(N · grid) instead of O(N² · iterations); the best and the worst rank,
 * which bound the grid, are solved on the direct sum. Measured against a direct solve, performances agree
 * to ~3e-8 rating points on fields of 2,000 and 10,000 players.
 *
 * Parameters (ELO_MMR_PARAMS), on the reference implementation's defaults where it has them:
 * - initialMu 1500, initialSigma 350: the paper's (and Glicko's) newcomer prior.
 * - sigmaFloor 80 and beta 80·√6 ≈ 196: the reference's sig_limit 80 with each contest weighing 0.2
 *   (beta² = sigmaFloor² (1 + 1/0.2)). beta is the spread of one performance around the skill; the
 *   per-contest drift sigmaFloor⁴ / (beta² - sigmaFloor²) = 1280 is the one that makes sigmaFloor the
 *   limit of sigma for a player who plays back to back, so sigma never goes below it.
 * - varianceDriftPerDay 50: variance added per day away (the reference defaults to none; OTOG asked for
 *   a decay with inactivity). A player at the floor is at sigma ≈ 161 after a year away, ≈ 210 after two,
 *   and back at initialSigma (the cap) after about six; a weekly player settles near sigma ≈ 86.
 * - transferSpeed 1: the reference's ρ. Larger keeps less memory of individual performances (∞ would be
 *   a single Gaussian); 0 never forgets an outlier.
 * - historyLimit 24: performances kept as logistic factors; older ones fold into the Gaussian anchor with
 *   their weight (the paper's history compression). By then a regular player's oldest factor weighs under
 *   2e-4 of a fresh one; over the benchmark's 500 contests, keeping every factor instead changes no rating
 *   by more than 0.002.
 *
 * displayRating is round(mu): the skill estimate itself, on the scale of the performances, and the quantity
 * the paper proves incentive compatible. user.rating is null until a first rated contest, so there is no
 * unproven 1500 on show that a conservative "mu - k·(sigma - floor)" display (as DMOJ's) would hide.
 *
 * Contests are to be rated in order of end time; a gap measured backwards counts as no time. Every given
 * standing is rated, also a contest where everyone shares one rank (the players move towards each other)
 * or that has a single participant (the rating stays, sigma shrinks); skipping such contests is the
 * caller's policy.
 */

export interface EloMmrParams {
  /** Rating of a newcomer. */
  readonly initialMu: number;
  /** Deviation of a newcomer's rating; also the most that drift can grow a deviation to. */
  readonly initialSigma: number;
  /** Limit of the deviation for a player who keeps playing; it never goes below. */
  readonly sigmaFloor: number;
  /** Deviation of one contest performance around the skill (beta). Must exceed sigmaFloor. */
  readonly beta: number;
  /** Skill variance added per day since the previous rated contest. */
  readonly varianceDriftPerDay: number;
  /** Rate (ρ) at which drift moves weight from stored performances onto the Gaussian anchor. */
  readonly transferSpeed: number;
  /** Most performances kept as logistic factors (at least 1). */
  readonly historyLimit: number;
}

export const ELO_MMR_PARAMS: EloMmrParams = Object.freeze({
  initialMu: 1500,
  initialSigma: 350,
  sigmaFloor: 80,
  beta: 80 * Math.sqrt(6),
  varianceDriftPerDay: 50,
  transferSpeed: 1,
  historyLimit: 24,
});

/** One past performance kept in the belief: a logistic factor centred at `performance`. */
export interface PerformanceTerm {
  readonly performance: number;
  /** Its share of 1/sigma² (1/beta² when new, decaying with drift). */
  readonly weight: number;
}

/** The Gaussian factor of the belief: the newcomer prior plus weight moved off old performances. */
export interface GaussianAnchor {
  readonly mu: number;
  readonly weight: number;
}

export interface PlayerState {
  /** The rating: the most likely skill. */
  readonly mu: number;
  /** Its uncertainty; 1/sigma² equals anchor.weight plus the history's weights. */
  readonly sigma: number;
  readonly anchor: GaussianAnchor;
  /** Oldest first, at most historyLimit. */
  readonly history: readonly PerformanceTerm[];
  /** End (epoch ms) of the previous rated contest, null for a newcomer. */
  readonly lastContestAt: number | null;
  /** Rated contests played. */
  readonly contests: number;
}

export interface Standing {
  readonly userId: number;
  /** Competition rank (1, 1, 3): lower is better, equal ranks tie. */
  readonly rank: number;
}

const DAY_MS = 86_400_000;
/** √3/π: a logistic distribution's scale per unit of standard deviation. */
const LOGISTIC_SCALE = Math.sqrt(3) / Math.PI;
/** Grid points per narrowest term scale; at 20 the interpolant is within ~1e-11 of the total weight. */
const GRID_POINTS_PER_SCALE = 20;
/** The grid restarts each term's exponential from Math.exp this often, bounding the rounding drift. */
const EXP_RESTART = 32;
/**
 * Root finding stops once a Newton step is below NEWTON_STEP (convergence is quadratic, so the result is
 * then good to ~1e-12) or the bracket is narrower than BRACKET_WIDTH.
 */
const NEWTON_STEP = 1e-6;
const BRACKET_WIDTH = 1e-9;
const ROOT_MAX_STEPS = 200;

export function newPlayer(params: EloMmrParams = ELO_MMR_PARAMS): PlayerState {
  const { initialMu, initialSigma } = params;
  return { mu: initialMu, sigma: initialSigma, anchor: { mu: initialMu, weight: 1 / initialSigma ** 2 }, history: [], lastContestAt: null, contests: 0 };
}

/** The integer shown as user.rating and ratingAfterUpdate. */
export function displayRating(state: PlayerState): number {
  return Math.round(state.mu);
}

/**
 * Rates one contest: the new states of its participants (and only theirs). Players missing from
 * `previous` are newcomers. `contestEndAt` (epoch ms) becomes their lastContestAt.
 */
export function rateContest(
  previous: ReadonlyMap<number, PlayerState>,
  standings: readonly Standing[],
  contestEndAt: number,
  params: EloMmrParams = ELO_MMR_PARAMS,
): Map<number, PlayerState> {
  checkParams(params);
  if (!Number.isFinite(contestEndAt)) throw new RangeError(`contestEndAt must be finite, got ${contestEndAt}`);
  const ordered = canonicalStandings(standings);
  const priors = ordered.map(({ userId }) => drift(previous.get(userId) ?? newPlayer(params), contestEndAt, params));
  const performances = fieldPerformances(ordered, priors, params.beta);
  const rated = new Map<number, PlayerState>();
  ordered.forEach(({ userId }, index) => rated.set(userId, updateBelief(priors[index]!, performances[index]!, contestEndAt, params)));
  return rated;
}

function checkParams(params: EloMmrParams): void {
  const { initialSigma, sigmaFloor, beta, varianceDriftPerDay, transferSpeed, historyLimit } = params;
  if (!(sigmaFloor > 0 && beta > sigmaFloor && initialSigma >= sigmaFloor)) throw new RangeError('Elo-MMR needs 0 < sigmaFloor < beta and sigmaFloor <= initialSigma');
  if (!(varianceDriftPerDay >= 0 && transferSpeed >= 0)) throw new RangeError('Elo-MMR needs varianceDriftPerDay >= 0 and transferSpeed >= 0');
  if (!(Number.isInteger(historyLimit) && historyLimit >= 1)) throw new RangeError('Elo-MMR needs an integer historyLimit >= 1');
}

/** By rank, then userId: every sum below runs in this order, so the input order cannot change a bit. */
function canonicalStandings(standings: readonly Standing[]): Standing[] {
  const seen = new Set<number>();
  for (const { userId, rank } of standings) {
    if (seen.has(userId)) throw new RangeError(`user ${userId} appears twice in the standings`);
    if (!Number.isFinite(rank)) throw new RangeError(`user ${userId} has rank ${rank}`);
    seen.add(userId);
  }
  return [...standings].sort((a, b) => a.rank - b.rank || a.userId - b.userId);
}

/** A player's belief just before the contest: after drift, before the performance. */
interface Prior {
  readonly mu: number;
  readonly sigma: number;
  readonly anchor: GaussianAnchor;
  /** The stored performances, whose weights drift multiplies by `historyDecay` (applied in updateBelief). */
  readonly history: readonly PerformanceTerm[];
  readonly historyDecay: number;
  readonly contests: number;
}

/**
 * Step 1, the paper's pseudo-diffusion: the variance grows by the per-contest drift plus the daily drift
 * (capped at initialSigma); every weight shrinks by kappa = old / new variance, and the fraction
 * 1 - kappa^ρ of all weight moves onto the anchor, re-centred at mu so that mu stays the belief's mode.
 */
function drift(state: PlayerState, contestEndAt: number, params: EloMmrParams): Prior {
  const { initialSigma, sigmaFloor, beta, varianceDriftPerDay, transferSpeed } = params;
  const days = state.lastContestAt === null ? 0 : Math.max(0, contestEndAt - state.lastContestAt) / DAY_MS;
  const perContest = sigmaFloor ** 4 / (beta ** 2 - sigmaFloor ** 2);
  const variance = state.sigma ** 2;
  const driftedVariance = Math.max(variance, Math.min(initialSigma ** 2, variance + perContest + varianceDriftPerDay * days));
  const kappa = variance / driftedVariance;
  const transfer = kappa === 1 ? 1 : kappa ** transferSpeed;
  const historyWeight = state.history.reduce((total, term) => total + term.weight, 0);
  const keptOnAnchor = transfer * state.anchor.weight;
  const movedToAnchor = (1 - transfer) * (state.anchor.weight + historyWeight);
  const anchorWeight = keptOnAnchor + movedToAnchor;
  return {
    mu: state.mu,
    sigma: Math.sqrt(driftedVariance),
    anchor: { mu: (keptOnAnchor * state.anchor.mu + movedToAnchor * state.mu) / anchorWeight, weight: kappa * anchorWeight },
    history: state.history,
    historyDecay: kappa * transfer,
    contests: state.contests,
  };
}

/** Every participant as an opponent: a logistic term w_j tanh((x - mu_j) / s_j) of the field sum G. */
interface Field {
  readonly mus: Float64Array;
  readonly scales: Float64Array;
  readonly weights: Float64Array;
  readonly totalWeight: number;
}

/**
 * Step 2: each participant's performance (indexes follow `ordered`), solved once per distinct rank, best
 * first. The best and the worst rank are solved on the exact sum, the ranks between on the interpolated
 * one, each bounded above by the rank before it, so a better rank never gets a lower performance.
 */
function fieldPerformances(ordered: readonly Standing[], priors: readonly Prior[], beta: number): Float64Array {
  const performances = new Float64Array(ordered.length);
  if (ordered.length === 0) return performances;
  const field = opponents(priors, beta);
  const groups = rankGroups(ordered, field);
  const best = groups[0]!;
  const worst = groups[groups.length - 1]!;
  const top = solveExactField(field, best.target);
  const bottom = groups.length === 1 ? top : solveExactField(field, worst.target);
  const grid = groups.length > 2 ? tabulateField(field, bottom, top) : null;
  let ceiling = top;
  for (const group of groups) {
    const performance = group === best ? top : group === worst ? Math.min(bottom, ceiling) : solveGrid(grid!, group.target, ceiling);
    performances.fill(performance, group.start, group.end);
    ceiling = performance;
  }
  return performances;
}

function opponents(priors: readonly Prior[], beta: number): Field {
  const mus = new Float64Array(priors.length);
  const scales = new Float64Array(priors.length);
  const weights = new Float64Array(priors.length);
  priors.forEach((prior, index) => {
    const delta = Math.hypot(prior.sigma, beta);
    mus[index] = prior.mu;
    scales[index] = 2 * LOGISTIC_SCALE * delta;
    weights[index] = 1 / delta;
  });
  return { mus, scales, weights, totalWeight: weights.reduce((sum, weight) => sum + weight, 0) };
}

interface RankGroup {
  /** Indexes [start, end) in the canonical order. */
  readonly start: number;
  readonly end: number;
  /** Weight of the players below minus weight of the players above: the right side of the equation. */
  readonly target: number;
}

function rankGroups(ordered: readonly Standing[], field: Field): RankGroup[] {
  const groups: RankGroup[] = [];
  let above = 0;
  let start = 0;
  while (start < ordered.length) {
    let end = start;
    let tied = 0;
    while (end < ordered.length && ordered[end]!.rank === ordered[start]!.rank) tied += field.weights[end++]!;
    groups.push({ start, end, target: field.totalWeight - above - tied - above });
    above += tied;
    start = end;
  }
  return groups;
}

/**
 * The x where G(x) = target, on the direct sum, in a proven bracket: for x above every mu each term is at
 * least w_j tanh((x - maxMu) / maxScale), so G(x) >= W tanh((x - maxMu) / maxScale) and a root above maxMu
 * is at most maxMu + maxScale·atanh(target / W); symmetrically below minMu.
 */
function solveExactField(field: Field, target: number): number {
  const { mus, scales, weights, totalWeight } = field;
  const maxScale = scales.reduce((max, scale) => Math.max(max, scale), 0);
  const reach = maxScale * Math.atanh(target / totalWeight);
  const lo = mus.reduce((min, mu) => Math.min(min, mu), Infinity) + Math.min(0, reach);
  const hi = mus.reduce((max, mu) => Math.max(max, mu), -Infinity) + Math.max(0, reach);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new RangeError('Elo-MMR: the performance range is unbounded');
  const sum = (x: number): readonly [number, number] => {
    let value = -target;
    let slope = 0;
    for (let j = 0; j < mus.length; j++) {
      const tanh = Math.tanh((x - mus[j]!) / scales[j]!);
      value += weights[j]! * tanh;
      slope += (weights[j]! / scales[j]!) * (1 - tanh * tanh);
    }
    return [value, slope];
  };
  return solveIncreasing(sum, lo, hi, lo + (hi - lo) / 2);
}

/**
 * G(x) = Σ_j w_j tanh((x - mu_j) / s_j), tabulated exactly with G' and G'' on a uniform grid
 * (value[k] = G(start + k·step)); between grid points it is the quintic Hermite piece matching all three.
 */
interface FieldGrid {
  readonly start: number;
  readonly step: number;
  readonly value: Float64Array;
  readonly slope: Float64Array;
  readonly curvature: Float64Array;
}

/** The grid over [bottom, top] (the extreme roots), spaced at a fraction of the narrowest term. */
function tabulateField(field: Field, bottom: number, top: number): FieldGrid {
  const { mus, scales, weights } = field;
  const step = scales.reduce((min, scale) => Math.min(min, scale), Infinity) / GRID_POINTS_PER_SCALE;
  const start = bottom - step;
  const points = Math.ceil((top - bottom) / step) + 3;
  const value = new Float64Array(points);
  const slope = new Float64Array(points);
  const curvature = new Float64Array(points);
  for (let j = 0; j < mus.length; j++) {
    const inverseScale = 1 / scales[j]!;
    const weight = weights[j]!;
    const slopeWeight = weight * inverseScale;
    const curvatureWeight = -2 * weight * inverseScale * inverseScale;
    const stepFactor = Math.exp(2 * step * inverseScale);
    // growth = exp(2z), z = (x - mu)/s, advanced by one multiplication per point: tanh z = 1 - 2/(growth + 1).
    let growth = 0;
    for (let k = 0; k < points; k++) {
      growth = k % EXP_RESTART === 0 ? Math.exp(2 * (start + k * step - mus[j]!) * inverseScale) : growth * stepFactor;
      const share = 1 / (growth + 1);
      const tanh = 1 - 2 * share;
      const sech2 = 4 * share * (1 - share);
      value[k]! += weight * tanh;
      slope[k]! += slopeWeight * sech2;
      curvature[k]! += curvatureWeight * tanh * sech2;
    }
  }
  return { start, step, value, slope, curvature };
}

/** The x where the interpolated G(x) = target, at most `ceiling`. */
function solveGrid(grid: FieldGrid, target: number, ceiling: number): number {
  const cell = cellOf(grid, target);
  const left = grid.start + cell * grid.step;
  const hi = Math.min(left + grid.step, ceiling);
  const lo = Math.min(left, hi);
  return solveIncreasing((x) => hermitePiece(grid, cell, (x - left) / grid.step, target), lo, hi, lo + (hi - lo) / 2);
}

/** The last grid cell whose left value is at most the target (binary search; G is increasing). */
function cellOf(grid: FieldGrid, target: number): number {
  let lo = 0;
  let hi = grid.value.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (grid.value[mid]! <= target) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** [G(x) - target, G'(x)] at t = (x - left) / step in `cell`, from the quintic matching G, G', G'' at both ends. */
function hermitePiece(grid: FieldGrid, cell: number, t: number, target: number): readonly [number, number] {
  const h = grid.step;
  const f0 = grid.value[cell]!;
  const rise = grid.value[cell + 1]! - f0;
  const d0 = h * grid.slope[cell]!;
  const d1 = h * grid.slope[cell + 1]!;
  const c0 = h * h * grid.curvature[cell]!;
  const c1 = h * h * grid.curvature[cell + 1]!;
  const a3 = 10 * rise - 6 * d0 - 4 * d1 - 1.5 * c0 + 0.5 * c1;
  const a4 = -15 * rise + 8 * d0 + 7 * d1 + 1.5 * c0 - c1;
  const a5 = 6 * rise - 3 * d0 - 3 * d1 - 0.5 * c0 + 0.5 * c1;
  const value = f0 - target + t * (d0 + t * (0.5 * c0 + t * (a3 + t * (a4 + t * a5))));
  const slope = d0 + t * (c0 + t * (3 * a3 + t * (4 * a4 + t * 5 * a5)));
  return [value, slope / h];
}

/** Step 3: add the performance to the belief and find the new rating and deviation. */
function updateBelief(prior: Prior, performance: number, contestEndAt: number, params: EloMmrParams): PlayerState {
  const { beta, sigmaFloor, historyLimit } = params;
  // History compression: factors beyond the limit, oldest first, become Gaussian weight on the anchor.
  const folded = Math.max(0, prior.history.length + 1 - historyLimit);
  let anchorMu = prior.anchor.mu;
  let anchorWeight = prior.anchor.weight;
  const history: PerformanceTerm[] = [];
  prior.history.forEach((term, index) => {
    const weight = prior.historyDecay * term.weight;
    if (index < folded) {
      anchorMu = (anchorWeight * anchorMu + weight * term.performance) / (anchorWeight + weight);
      anchorWeight += weight;
    } else {
      history.push({ performance: term.performance, weight });
    }
  });
  history.push({ performance, weight: 1 / beta ** 2 });
  const anchor = { mu: anchorMu, weight: anchorWeight };
  // Newton starts from the Gaussian update (what the mode would be if every factor were Gaussian): close.
  const gaussianGuess = (prior.mu * prior.sigma ** -2 + performance * beta ** -2) / (prior.sigma ** -2 + beta ** -2);
  return {
    mu: solveRating(anchor, history, beta, gaussianGuess),
    sigma: Math.max(sigmaFloor, 1 / Math.sqrt(prior.sigma ** -2 + beta ** -2)),
    anchor,
    history,
    lastContestAt: contestEndAt,
    contests: prior.contests + 1,
  };
}

/**
 * The belief's mode: the zero of  w0 (x - m0) + Σ_k w_k (beta² / b) tanh((x - p_k) / (2b)),  b = beta √3 / π,
 * the derivative of minus the log of the Gaussian anchor times the logistic factors. It lies between the
 * smallest and the largest of m0 and the p_k, outside which every term has the same sign.
 */
function solveRating(anchor: GaussianAnchor, history: readonly PerformanceTerm[], beta: number, start: number): number {
  const argumentScale = 1 / (2 * LOGISTIC_SCALE * beta);
  const amplitude = beta / LOGISTIC_SCALE;
  let lo = anchor.mu;
  let hi = anchor.mu;
  for (const term of history) {
    lo = Math.min(lo, term.performance);
    hi = Math.max(hi, term.performance);
  }
  const lossDerivative = (x: number): readonly [number, number] => {
    let value = anchor.weight * (x - anchor.mu);
    let slope = anchor.weight;
    for (const term of history) {
      const tanh = Math.tanh((x - term.performance) * argumentScale);
      value += term.weight * amplitude * tanh;
      slope += term.weight * amplitude * argumentScale * (1 - tanh * tanh);
    }
    return [value, slope];
  };
  return solveIncreasing(lossDerivative, lo, hi, start);
}

/**
 * The zero of an increasing function on [lo, hi] (given as [value, slope]): Newton steps from `start`,
 * bisecting instead whenever a step would leave the bracket.
 */
function solveIncreasing(f: (x: number) => readonly [number, number], lo: number, hi: number, start: number): number {
  let x = Math.min(hi, Math.max(lo, start));
  for (let step = 0; step < ROOT_MAX_STEPS; step++) {
    const [value, slope] = f(x);
    if (value === 0) return x;
    if (value < 0) lo = x;
    else hi = x;
    const newton = x - value / slope;
    if (Math.abs(newton - x) <= NEWTON_STEP && newton >= lo && newton <= hi) return newton;
    x = newton > lo && newton < hi ? newton : lo + (hi - lo) / 2;
    if (hi - lo <= BRACKET_WIDTH) return x;
  }
  return x;
}
