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

const STATUS_FILTERS: readonly StatusFilter[] = ['all', 'passed', 'notPassed', 'notSubmitted'];

/**
 * The filters as the URL keeps them (`?q=...&status=passed&today=1`), so Back and bookmarks bring them
 * back; anything unknown reads as no filter.
 */
export function filtersFromParams(params: URLSearchParams): Filters {
  const status = params.get('status') as StatusFilter | null;
  return {
    search: params.get('q') ?? '',
    status: status !== null && STATUS_FILTERS.includes(status) ? status : 'all',
    today: params.get('today') === '1',
  };
}

/** `params` with `changes` written in; a filter at its default leaves the URL. */
export function paramsWithFilters(params: URLSearchParams, changes: Partial<Filters>): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (name: string, value: string | null) => (value === null ? next.delete(name) : next.set(name, value));
  if (changes.search !== undefined) set('q', changes.search === '' ? null : changes.search);
  if (changes.status !== undefined) set('status', changes.status === 'all' ? null : changes.status);
  if (changes.today !== undefined) set('today', changes.today ? '1' : null);
  return next;
}
