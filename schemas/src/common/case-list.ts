/**
 * The `case` field of a subtask in subtask.json: comma-separated items, each a range `a-b` or a single
 * test number, e.g. "1-3, 5". The result is deduplicated and sorted (DOMAIN.md "Test data").
 */

export type CaseListResult =
  | { readonly ok: true; readonly cases: readonly number[]; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

const single = /^(\d+)$/;
const range = /^(\d+)\s*-\s*(\d+)$/;

/**
 * Parses a case list whose test numbers must lie in 1..testCount. Every bad item is reported (not just
 * the first) so an admin can fix the file in one go. Bounds are checked before a range is expanded, so
 * "1-1000000000" cannot allocate a huge array.
 */
export function parseCaseList(text: string, testCount: number): CaseListResult {
  const problems: string[] = [];
  const warnings: string[] = [];
  const cases = new Set<number>();
  const items = text.split(',').map((item) => item.trim());
  if (items.length === 1 && items[0] === '') return { ok: false, problems: ['case is empty'] };

  const inBounds = (value: number, item: string): boolean => {
    if (Number.isSafeInteger(value) && value >= 1 && value <= testCount) return true;
    problems.push(`case item "${item}": test ${value} is outside 1..${testCount}`);
    return false;
  };

  for (const item of items) {
    if (item === '') {
      problems.push(`case "${text}" has an empty item`);
      continue;
    }
    const one = single.exec(item);
    if (one) {
      const value = Number(one[1]);
      if (inBounds(value, item)) cases.add(value);
      continue;
    }
    const both = range.exec(item);
    if (!both) {
      problems.push(`case item "${item}" is neither a test number nor a range a-b`);
      continue;
    }
    let from = Number(both[1]);
    let to = Number(both[2]);
    // OTOG swaps a reversed range instead of rejecting it; we keep that but tell the admin.
    if (from > to) {
      warnings.push(`case item "${item}" is reversed; read as ${to}-${from}`);
      [from, to] = [to, from];
    }
    const fromOk = inBounds(from, item);
    const toOk = inBounds(to, item);
    if (!fromOk || !toOk) continue;
    for (let test = from; test <= to; test += 1) cases.add(test);
  }

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, cases: [...cases].sort((a, b) => a - b), warnings };
}
