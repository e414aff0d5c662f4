/**
 * What the admin tables share: page, page size and search kept in the URL (so back, reload and links keep
 * them), a search box debounced by 300 ms, the pager, placeholder rows while the first page loads, and
 * invalidation of every query under a path.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { Button } from '../../components/ui/Button.tsx';
import { SearchInput } from '../../components/ui/SearchInput.tsx';
import { SEARCH_DEBOUNCE_MS } from '../../lib/use-debounced.ts';
import { Spinner } from '../../components/ui/Spinner.tsx';

export const PAGE_SIZES = [10, 25, 50] as const;
/** The contracts' bound on `search` (skipLimitQuery). */
const SEARCH_MAX_LENGTH = 200;

export interface ListParams {
  readonly page: number;
  readonly size: number;
  readonly search: string;
  /** The skip/limit/search query of the admin list routes. */
  readonly query: { skip: number; limit: number; search: string | undefined };
  setPage(page: number): void;
  setSize(size: number): void;
  setSearch(search: string): void;
}

export function useListParams(): ListParams {
  const [params, setParams] = useSearchParams();
  const rawSize = Number(params.get('size'));
  const size = (PAGE_SIZES as readonly number[]).includes(rawSize) ? rawSize : PAGE_SIZES[0];
  const page = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  const search = params.get('q') ?? '';
  const update = (changes: Record<string, string | null>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value === null || value === '') next.delete(key);
          else next.set(key, value);
        }
        return next;
      },
      { replace: true },
    );
  return {
    page,
    size,
    search,
    query: { skip: (page - 1) * size, limit: size, search: search.trim() || undefined },
    setPage: (value) => update({ page: value > 1 ? String(value) : null }),
    setSize: (value) => update({ size: value === PAGE_SIZES[0] ? null : String(value), page: null }),
    setSearch: (value) => update({ q: value, page: null }),
  };
}

/** The search box: types freely, tells the list 300 ms after the last key. */
export function SearchBox({ value, onChange, label }: { value: string; onChange(value: string): void; label: string }) {
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  // The URL changed from outside (back button, another tab of the admin): show its value.
  if (value !== seen) {
    setSeen(value);
    setText(value);
  }
  const latest = useRef(onChange);
  useEffect(() => {
    latest.current = onChange;
  });
  useEffect(() => {
    if (text === value) return;
    const timer = window.setTimeout(() => latest.current(text), SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [text, value]);
  return (
    <SearchInput className="admin-search" label={label} value={text} maxLength={SEARCH_MAX_LENGTH} onChange={setText} />
  );
}

/** Total, page size and previous/next, under a table. */
export function Pager({ list, total, fetching, noun }: { list: ListParams; total: number | undefined; fetching: boolean; noun: string }) {
  const sizeId = useId();
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / list.size));
  return (
    <div className="admin-pager">
      <p className="admin-pager-total" aria-live="polite">
        {total === undefined ? '\u00a0' : `ทั้งหมด ${total.toLocaleString('th-TH')} ${noun}`}
        <span className="admin-pager-spinner">{fetching ? <Spinner size="sm" label="กำลังโหลด..." /> : null}</span>
      </p>
      <div className="admin-pager-controls">
        <span className="admin-pager-group">
          <label htmlFor={sizeId} className="muted">
            แสดง
          </label>
          <select id={sizeId} className="input select admin-pager-size" value={list.size} onChange={(event) => list.setSize(Number(event.target.value))}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size} รายการ
              </option>
            ))}
          </select>
        </span>
        <span className="admin-pager-group">
          <Button size="sm" variant="outline" disabled={list.page <= 1} onClick={() => list.setPage(list.page - 1)}>
            ก่อนหน้า
          </Button>
          <span className="admin-pager-page">
            หน้า {list.page} / {pages ?? '-'}
          </span>
          <Button size="sm" variant="outline" disabled={pages === undefined || list.page >= pages} onClick={() => list.setPage(list.page + 1)}>
            ถัดไป
          </Button>
        </span>
      </div>
    </div>
  );
}

/** When a page is past the end (rows were deleted, or an old link), go to the last page. */
export function useClampPage(list: ListParams, total: number | undefined): void {
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / list.size));
  const { page, setPage } = list;
  useEffect(() => {
    if (pages !== undefined && page > pages) setPage(pages);
  }, [page, pages, setPage]);
}

/** Grey rows the size of real ones while the first page loads (the table does not jump when it arrives). */
export function PlaceholderRows({ columns, rows }: { columns: number; rows: number }) {
  return (
    <>
      {Array.from({ length: rows }, (_, row) => (
        <tr key={row} aria-hidden>
          {Array.from({ length: columns }, (_, column) => (
            <td key={column}>
              <span className="admin-placeholder" />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

/** A table cell spanning every column, for "nothing found" and errors. */
export function WideRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={columns} className="admin-wide-cell">
        {children}
      </td>
    </tr>
  );
}
