/**
 * The rounding of scores, shared by the judge (one submission's score) and the contest scoring rules
 * (the bestSubtask contest score), so both round exactly alike.
 */

/**
 * Round half to even (banker's rounding), as OTOG's Python `round` does for the submission score.
 *
 * Why a tolerance: the score is Σ raw × problem.score ÷ Σ full, computed in binary floating point from
 * checker fractions (0.2, 0.64, ...), so a value whose exact decimal is x.5 may arrive as
 * x.4999999999999 or x.5000000000001 and would round by accident rather than by the rule. We treat
 * anything within 1e-9 (relative to the value, at least absolute 1e-9) of a half as exactly half.
 * Why 1e-9: accumulated float error in these sums is ~1e-15 relative per operation, a few thousand tests
 * keep it below ~1e-12, so 1e-9 catches every artifact; real scores are sums of points times fractions
 * that checkers print with at most ~6 significant digits (ties are decided with 1e-4 precision), so a
 * genuine value within 1e-9 of a half does not occur. OTOG, which rounds the raw binary value, differs
 * only in those artifact cases, where its answer was an accident anyway.
 */
export const HALF_TIE_TOLERANCE = 1e-9;

export function roundHalfToEven(value: number): number {
  if (!Number.isFinite(value)) throw new RangeError(`cannot round ${value}`);
  const floor = Math.floor(value);
  const aboveHalf = value - floor - 0.5;
  if (Math.abs(aboveHalf) <= HALF_TIE_TOLERANCE * Math.max(1, Math.abs(value))) {
    // `+ 0` turns -0 into 0.
    return (floor % 2 === 0 ? floor : floor + 1) + 0;
  }
  return (aboveHalf < 0 ? floor : floor + 1) + 0;
}

/**
 * The submission score: round-half-to-even(Σ raw subtask scores × problem.score ÷ Σ full subtask
 * scores). Multiplying before dividing keeps exact integers exact (82 × 100 / 170, not 82 / 170 × 100).
 */
export function scaleScore(rawTotal: number, fullTotal: number, problemScore: number): number {
  if (!(fullTotal > 0)) throw new RangeError(`the full score must be positive, got ${fullTotal}`);
  return roundHalfToEven((rawTotal * problemScore) / fullTotal);
}
