/** The profile's rating bands (web/src/lib/rating.ts): every boundary of the rule, both sides. */
import { describe, expect, it } from 'vitest';
import { formatRatingChange, ratingBand, withRatingChanges, type RatingBand } from '../../web/src/lib/rating.ts';

describe('ratingBand', () => {
  const table: Array<[number | null | undefined, RatingBand | null]> = [
    [null, null],
    [undefined, null],
    [Number.NaN, null],
    [3200, 'orange'],
    [2500, 'orange'],
    [2499, 'purple'],
    [2000, 'purple'],
    [1999, 'red'],
    [1800, 'red'],
    [1799, 'pink'],
    [1650, 'pink'],
    [1649, 'green'],
    [1500, 'green'],
    [1499, 'cyan'],
    [0, 'cyan'],
    [-50, 'cyan'],
  ];
  it.each(table)('%s → %s', (rating, band) => {
    expect(ratingBand(rating)).toBe(band);
  });
});

describe('formatRatingChange', () => {
  it.each([
    [15, '+15'],
    [-8, '−8'],
    [0, '±0'],
  ])('%s → %s', (change, text) => {
    expect(formatRatingChange(change)).toBe(text);
  });
});

describe('withRatingChanges', () => {
  it('measures each contest against the one before, the first against the starting 1500', () => {
    expect(withRatingChanges([{ rating: 1540 }, { rating: 1512 }, { rating: 1512 }]).map((entry) => entry.change)).toEqual([40, -28, 0]);
    expect(withRatingChanges([])).toEqual([]);
  });
});
