/**
 * /problem: the announcements, five counters that are also filters (ทั้งหมด, ผ่านแล้ว, ยังไม่ผ่าน,
 * ยังไม่ได้ส่ง, โจทย์วันนี้), a sticky filter bar (search, status, the "ผู้ที่ผ่าน" column), and the
 * virtualised problem table with its dialogs (submit, passed users, latest submission). The search and
 * the filters live in the URL: Back and bookmarks bring them back.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useDeferredValue, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { problemContract, type ProblemTableRow } from '@otog/schemas/api/problem';
import { SubmitDialog } from '../../components/submit/SubmitDialog.tsx';
import { Button } from '../../components/ui/Button.tsx';
import { Empty } from '../../components/ui/Empty.tsx';
import { XIcon } from '../../components/ui/icons.tsx';
import { SearchInput } from '../../components/ui/SearchInput.tsx';
import { useDebounced } from '../../lib/use-debounced.ts';
import { callApi, errorMessage } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiKey, apiQuery } from '../../lib/query.ts';
import { useSession } from '../../lib/session.tsx';
import { toast } from '../../lib/toast.tsx';
import { AnnouncementCarousel } from './AnnouncementCarousel.tsx';
import { countRows, filterRows, filtersFromParams, paramsWithFilters, type Filters, type StatusFilter } from './filters.ts';
import { LatestSubmissionDialog } from './LatestSubmissionDialog.tsx';
import { PassedUsersDialog } from './PassedUsersDialog.tsx';
import { ProblemTable, type TableActions, type TableColumns } from './ProblemTable.tsx';
import './problems.css';

export const PASSED_COLUMN_KEY = 'preferredColumn.passedCount';

function readPassedColumn(): boolean {
  try {
    return localStorage.getItem(PASSED_COLUMN_KEY) !== 'false';
  } catch {
    return true;
  }
}

type Counter = { readonly id: 'all' | Exclude<StatusFilter, 'all'> | 'today'; readonly label: string; readonly tone: string };
const COUNTERS: readonly Counter[] = [
  { id: 'all', label: 'ทั้งหมด', tone: 'orange' },
  { id: 'passed', label: 'ผ่านแล้ว', tone: 'green' },
  { id: 'notPassed', label: 'ยังไม่ผ่าน', tone: 'red' },
  { id: 'notSubmitted', label: 'ยังไม่ได้ส่ง', tone: 'yellow' },
  { id: 'today', label: 'โจทย์วันนี้', tone: 'blue' },
];
const STATUS_OPTIONS: ReadonlyArray<{ value: StatusFilter; label: string }> = [
  { value: 'all', label: 'ทั้งหมด' },
  { value: 'passed', label: 'ผ่านแล้ว' },
  { value: 'notPassed', label: 'ยังไม่ผ่าน' },
  { value: 'notSubmitted', label: 'ยังไม่ได้ส่ง' },
];

type OpenDialog = { kind: 'submit' | 'passed'; row: ProblemTableRow } | { kind: 'latest'; submissionId: number } | null;

export default function ProblemListPage() {
  usePageTitle('โจทย์');
  const { user, isAuthenticated, isAdmin } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const problems = useQuery(apiQuery(problemContract.getProblems));
  const page = useRef<HTMLElement>(null);
  const filterBar = useRef<HTMLDivElement>(null);
  const statusId = useId();

  const [params, setParams] = useSearchParams();
  const { search: searchText, status, today } = filtersFromParams(params);
  // Replaced, not pushed: Back leaves the list (with its filters kept) instead of undoing keystrokes.
  const changeFilters = (changes: Partial<Filters>) => setParams((current) => paramsWithFilters(current, changes), { replace: true });
  const setSearchText = (search: string) => changeFilters({ search });
  const search = useDebounced(searchText);
  const [showPassed, setShowPassed] = useState(readPassedColumn);
  const [dialog, setDialog] = useState<OpenDialog>(null);

  // The table header sticks under the filter bar (wide screens), whose height depends on how it wraps.
  useEffect(() => {
    const bar = filterBar.current;
    const section = page.current;
    if (!bar || !section) return;
    const observer = new ResizeObserver(() => section.style.setProperty('--filter-bar-height', `${bar.offsetHeight}px`));
    observer.observe(bar);
    return () => observer.disconnect();
  }, []);

  // "New" is judged against the time the table was loaded, so rows do not change while one looks at them.
  const now = useMemo(() => (problems.data ? Date.now() : 0), [problems.data]);
  const counts = useMemo(() => (problems.data ? countRows(problems.data, now) : undefined), [problems.data, now]);
  const filters = useDeferredValue(useMemo(() => ({ search, status: isAuthenticated ? status : 'all', today }), [search, status, today, isAuthenticated]));
  const rows = useMemo(() => (problems.data ? filterRows(problems.data, filters, now) : []), [problems.data, filters, now]);
  const filtered = filters.search.trim() !== '' || filters.status !== 'all' || filters.today;

  const columns = useMemo<TableColumns>(() => ({ passed: showPassed, mine: isAuthenticated, admin: isAdmin, userId: user?.id ?? null }), [showPassed, isAuthenticated, isAdmin, user?.id]);

  const toggleShow = useCallback(
    async (row: ProblemTableRow) => {
      const show = !row.show;
      try {
        await toast.promise(callApi(problemContract.showProblem, { params: { problemId: row.id }, body: { show } }), {
          loading: show ? 'กำลังเปิดโจทย์...' : 'กำลังปิดโจทย์...',
          success: show ? `เปิดโจทย์ ${row.name} แล้ว` : `ปิดโจทย์ ${row.name} แล้ว`,
          error: (error) => errorMessage(error, show ? 'เปิดโจทย์ไม่สำเร็จ' : 'ปิดโจทย์ไม่สำเร็จ'),
        });
        await queryClient.invalidateQueries({ queryKey: apiKey(problemContract.getProblems) });
      } catch {
        // The toast said why.
      }
    },
    [queryClient],
  );

  const actions = useMemo<TableActions>(
    () => ({
      submit: (row) => setDialog({ kind: 'submit', row }),
      showPassed: (row) => setDialog({ kind: 'passed', row }),
      showLatest: (row) => (row.latestSubmission ? setDialog({ kind: 'latest', submissionId: row.latestSubmission.id }) : undefined),
      toggleShow: (row) => void toggleShow(row),
    }),
    [toggleShow],
  );

  const choosePassedColumn = (visible: boolean) => {
    setShowPassed(visible);
    try {
      localStorage.setItem(PASSED_COLUMN_KEY, String(visible));
    } catch {
      // Private mode: the choice lasts for this visit.
    }
  };

  const pressCounter = (id: Counter['id']) => {
    if (id === 'all') changeFilters({ status: 'all', today: false, search: '' });
    else if (id === 'today') changeFilters({ today: !today });
    else changeFilters({ status: status === id ? 'all' : id });
  };
  const counterPressed = (id: Counter['id']) =>
    id === 'all' ? status === 'all' && !today && searchText === '' : id === 'today' ? today : status === id;
  const counters = isAuthenticated ? COUNTERS : COUNTERS.filter((counter) => counter.id === 'all' || counter.id === 'today');

  const clearFilters = () => pressCounter('all');

  return (
    <section className="page problems-page" ref={page} aria-labelledby="problems-title">
      <h1 id="problems-title" className="sr-only">
        โจทย์
      </h1>
      <AnnouncementCarousel />

      <div className="counters" role="group" aria-label="สรุปและตัวกรองโจทย์" data-count={counters.length}>
        {counters.map((counter) => (
          <button
            key={counter.id}
            type="button"
            className={`counter counter-${counter.tone}`}
            aria-pressed={counterPressed(counter.id)}
            onClick={() => pressCounter(counter.id)}
            data-testid={`counter-${counter.id}`}
          >
            <span className="counter-value">{counts?.[counter.id].toLocaleString('th-TH') ?? '–'}</span>
            <span className="counter-label">{counter.label}</span>
          </button>
        ))}
      </div>

      <div className="filter-bar" ref={filterBar} role="search" aria-label="ตัวกรองโจทย์">
        <SearchInput className="filter-search" label="ค้นหาโจทย์" value={searchText} onChange={setSearchText} />
        {isAuthenticated ? (
          <div className="filter-status">
            <label htmlFor={statusId} className="filter-label">
              สถานะ
            </label>
            <select id={statusId} className="input select" value={status} onChange={(event) => changeFilters({ status: event.target.value as StatusFilter })}>
              {STATUS_OPTIONS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        {today ? (
          <button type="button" className="chip" onClick={() => changeFilters({ today: false })} aria-label="เอาตัวกรองโจทย์วันนี้ออก">
            โจทย์วันนี้
            <XIcon width={14} height={14} />
          </button>
        ) : null}
        <label className="checkbox filter-column">
          <input type="checkbox" checked={showPassed} onChange={(event) => choosePassedColumn(event.target.checked)} />
          ผู้ที่ผ่าน
        </label>
        <p className="filter-summary muted" aria-live="polite">
          {problems.data ? (filtered ? `พบ ${rows.length.toLocaleString('th-TH')} จาก ${problems.data.length.toLocaleString('th-TH')} ข้อ` : `${problems.data.length.toLocaleString('th-TH')} ข้อ`) : ''}
        </p>
      </div>

      {problems.isError ? (
        <Empty tone="error">
          <p>{errorMessage(problems.error, 'โหลดรายการโจทย์ไม่สำเร็จ กรุณาลองใหม่อีกครั้ง')}</p>
          <Button onClick={() => void problems.refetch()} loading={problems.isFetching}>
            ลองใหม่
          </Button>
        </Empty>
      ) : (
        <ProblemTable
          rows={rows}
          now={now}
          columns={columns}
          actions={actions}
          loading={problems.isPending}
          pageRef={page}
          empty={
            filtered ? (
              <span>
                ไม่พบโจทย์ที่ตรงกับตัวกรอง{' '}
                <button type="button" className="link-button" onClick={clearFilters}>
                  ล้างตัวกรอง
                </button>
              </span>
            ) : (
              'ยังไม่มีโจทย์'
            )
          }
        />
      )}

      {dialog?.kind === 'submit' ? (
        <SubmitDialog
          open
          problem={{ id: dialog.row.id, name: dialog.row.name }}
          onClose={() => setDialog(null)}
          onSubmitted={() => void navigate('/submission?all=false')}
        />
      ) : null}
      {dialog?.kind === 'passed' ? <PassedUsersDialog problem={dialog.row} onClose={() => setDialog(null)} /> : null}
      {dialog?.kind === 'latest' ? <LatestSubmissionDialog submissionId={dialog.submissionId} onClose={() => setDialog(null)} /> : null}
    </section>
  );
}
