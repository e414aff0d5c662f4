/** The scoreboard's row slots as a table: which element shows which row after a scroll step. */
import { describe, expect, it } from 'vitest';
import { assignSlots } from '../../web/src/features/contests/scoreboard/row-slots.ts';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
/** The slots of `indices` after showing `before` then `after`, in the order of `after`. */
const slotsAfter = (before: number[], after: number[]) => {
  const next = assignSlots(assignSlots(new Map(), before), after);
  return after.map((index) => next.get(index));
};

describe('assignSlots', () => {
  it.each([
    { name: 'the first screen takes new slots in order', before: [], after: [0, 1, 2, 3], slots: [0, 1, 2, 3] },
    { name: 'the same rows keep their slots', before: [0, 1, 2, 3], after: [0, 1, 2, 3], slots: [0, 1, 2, 3] },
    { name: 'one row down: the row that left gives its slot to the row that came', before: [0, 1, 2, 3], after: [1, 2, 3, 4], slots: [1, 2, 3, 0] },
    { name: 'one row up: the row that came takes the slot of the one that left', before: [1, 2, 3, 4], after: [0, 1, 2, 3], slots: [3, 0, 1, 2] },
    { name: 'a jump of a whole screen reuses every slot in document order', before: [0, 1, 2, 3], after: [50, 51, 52, 53], slots: [0, 1, 2, 3] },
    { name: 'more rows than before: new slots after the freed ones', before: [0, 1], after: [5, 6, 7], slots: [0, 1, 2] },
    { name: 'fewer rows than before', before: [0, 1, 2, 3], after: [9, 10], slots: [0, 1] },
  ])('$name', ({ before, after, slots }) => {
    expect(slotsAfter(before, after)).toEqual(slots);
  });

  it('never gives one slot to two rows, over a long scroll both ways', () => {
    let slots = new Map<number, number>();
    const steps = [0, 3, 30, 31, 29, 500, 480, 9_970, 0, 12, 2];
    for (const first of steps) {
      const indices = range(first, first + 22);
      slots = assignSlots(slots, indices);
      expect(new Set(indices.map((index) => slots.get(index))).size).toBe(indices.length);
      expect(Math.max(...slots.values())).toBeLessThan(22);
    }
  });
});
