/**
 * Rating bands: the colour a rating is shown in, from OTOG's profile rule (≥2500 orange, 2000–2499
 * purple, 1800–1999 red, 1650–1799 pink, 1500–1649 green, below 1500 cyan). Every player starts at 1500.
 */
export const INITIAL_RATING = 1500;

export type RatingBand = 'orange' | 'purple' | 'red' | 'pink' | 'green' | 'cyan';

export interface RatingBandRange {
  readonly band: RatingBand;
  /** Inclusive lower bound; the lowest band has none. */
  readonly min: number;
}

/** Highest first: a rating falls in the first band whose `min` it reaches. */
export const RATING_BANDS: readonly RatingBandRange[] = [
  { band: 'orange', min: 2500 },
  { band: 'purple', min: 2000 },
  { band: 'red', min: 1800 },
  { band: 'pink', min: 1650 },
  { band: 'green', min: 1500 },
  { band: 'cyan', min: Number.NEGATIVE_INFINITY },
];

/** The band of a rating; null for a user not rated yet. */
export function ratingBand(rating: number | null | undefined): RatingBand | null {
  if (rating === null || rating === undefined || Number.isNaN(rating)) return null;
  return RATING_BANDS.find((range) => rating >= range.min)!.band;
}

/** "+12", "−8", "±0": a rating change as contestants read it (a real minus sign). */
export function formatRatingChange(change: number): string {
  if (change > 0) return `+${change}`;
  if (change < 0) return `−${-change}`;
  return '±0';
}

export interface RatedContest {
  readonly rating: number;
}

/** Each rated contest with how much it moved the rating (the first one from the starting 1500). */
export function withRatingChanges<T extends RatedContest>(history: readonly T[]): Array<T & { change: number }> {
  return history.map((entry, index) => ({ ...entry, change: entry.rating - (index === 0 ? INITIAL_RATING : history[index - 1]!.rating) }));
}
