/** The score rounding lives in @otog/schemas so the contest scoring rules round exactly like the judge. */
export { HALF_TIE_TOLERANCE, roundHalfToEven, scaleScore } from '@otog/schemas/common/rounding';
