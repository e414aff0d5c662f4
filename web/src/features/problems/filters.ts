/** The problem table's derived facts: each row's status for the caller, the "new" flag, and the filters. */
import type { ProblemTableRow } from '@otog/schemas/api/problem';

export type RowStatus = 'passed' | 'notPassed' | 'notSubmitted';
export type StatusFilter = RowStatus | 'all';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** From the caller's latest submission: none → not submitted, accept → passed, anything else → not passed. */
export function rowStatus(row: Pick<ProblemTableRow, 'latestSubmission'>): RowStatus {
  if (!row.latestSubmission) return 'notSubmitted';
  return row.latestSubmission.status === 'accept' ? 'passed' : 'notPassed';
}

/** "ใหม่ !" / โจทย์วันนี้: shown, and shown again within the last 24 hours. */
export function isNew(row: Pick<ProblemTableRow, 'show' | 'recentShowTime'>, now: number): boolean {
  if (!row.show || !row.recentShowTime) return false;
  return Date.parse(row.recentShowTime) + DAY_MS > now;
}

export interface Counts {
  readonly all: number;
  readonly passed: number;
  readonly notPassed: number;
  readonly notSubmitted: number;
  readonly today: number;
}

export function countRows(rows: ReadonlyArray<ProblemTableRow>, now: number): Counts {
  let passed = 0;
  let notPassed = 0;
  let today = 0;
  for (const row of rows) {
    const status = rowStatus(row);
    if (status === 'passed') passed++;
    else if (status === 'notPassed') notPassed++;
    if (isNew(row, now)) today++;
  }
  return { all: rows.length, passed, notPassed, notSubmitted: rows.length - passed - notPassed, today };
}

export interface Filters {
  readonly search: string;
  readonly status: StatusFilter;
  readonly today: boolean;
}

/** Case-insensitive substring of "{id} {name}". */
export function filterRows(rows: ReadonlyArray<ProblemTableRow>, filters: Filters, now: number): ProblemTableRow[] {
  const needle = filters.search.trim().toLowerCase();
  return rows.filter(
    (row) =>
      (filters.status === 'all' || rowStatus(row) === filters.status) &&
      (!filters.today || isNew(row, now)) &&
      (needle === '' || `${row.id} ${row.name}`.toLowerCase().includes(needle)),
  );
}
