/**
 * Which element (slot) shows which row of a virtualised list. A row that stays on screen keeps its slot; the
 * slots of rows that left go to the rows that came, in the order they were in. A scroll step then refills
 * elements in place instead of making new ones, and a jump of a whole screen reuses every slot in the same
 * document order, so nothing moves in the DOM (a moved element is laid out and styled again from nothing).
 * The rows stay in index order in the document, as screen readers read them.
 */
export function assignSlots(previous: ReadonlyMap<number, number>, indices: ReadonlyArray<number>): Map<number, number> {
  const next = new Map<number, number>();
  for (const index of indices) {
    const slot = previous.get(index);
    if (slot !== undefined) next.set(index, slot);
  }
  // The freed slots in their document order: the rows that left, by index.
  const freed = [...previous].filter(([index]) => !next.has(index)).sort((a, b) => a[0] - b[0]).map(([, slot]) => slot);
  let fresh = Math.max(-1, ...previous.values()) + 1;
  let reused = 0;
  for (const index of indices) {
    if (next.has(index)) continue;
    next.set(index, reused < freed.length ? freed[reused++]! : fresh++);
  }
  return next;
}
