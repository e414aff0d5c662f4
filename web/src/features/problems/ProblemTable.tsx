/**
 * The problem table, virtualised against the window's scroll (only the rows on screen, plus a margin,
 * are in the DOM), so 10,000 problems scroll as smoothly as 10. Rows have one fixed height; spacer rows
 * above and below stand for the rest, which keeps it a real <table> for screen readers (aria-rowcount,
 * aria-rowindex). Columns are fixed widths, so rows do not jump as they come and go.
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore, type ReactNode, type RefObject } from 'react';
import { Link } from 'react-router';
import { problemContract, type ProblemTableRow } from '@otog/schemas/api/problem';
import type { SubmissionStatus } from '@otog/schemas/common/judging';
import { STATUS_LABEL } from '../../components/submission/SubmissionStatus.tsx';
import { Badge } from '../../components/ui/Badge.tsx';
import { Button } from '../../components/ui/Button.tsx';
import { CheckIcon, EyeOffIcon, UploadIcon, XIcon } from '../../components/ui/icons.tsx';
import { apiUrl } from '../../lib/api.ts';
import { isNew } from './filters.ts';
import { RowMenu } from '../../components/ui/RowMenu.tsx';
import { useSettlingSubmission } from '../../components/problem/useSettlingSubmission.ts';

/** Rows are one line on a wide screen (name, then its limits) and two on a narrow one; problems.css agrees. */
export const ROW_HEIGHT = { wide: 44, narrow: 56 } as const;
const WIDE_SCREEN = '(min-width: 720px)';
const OVERSCAN = 12;

function subscribeToWidth(onChange: () => void) {
  const query = window.matchMedia(WIDE_SCREEN);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

function useRowHeight(): number {
  const wide = useSyncExternalStore(subscribeToWidth, () => window.matchMedia(WIDE_SCREEN).matches);
  return wide ? ROW_HEIGHT.wide : ROW_HEIGHT.narrow;
}

export interface TableActions {
  submit(row: ProblemTableRow): void;
  showPassed(row: ProblemTableRow): void;
  showLatest(row: ProblemTableRow): void;
  toggleShow(row: ProblemTableRow): void;
}

export interface TableColumns {
  readonly passed: boolean;
  /** Status and submit: signed-in users only. */
  readonly mine: boolean;
  readonly admin: boolean;
  /** Whose latest submission may be opened: your own, any for admins, public ones. */
  readonly userId: number | null;
}

/** Where an element starts, from the top of the document; followed as what is above it changes size. */
function useDocumentTop(ref: RefObject<HTMLElement | null>, watch: RefObject<HTMLElement | null>): number {
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setTop(Math.round(element.getBoundingClientRect().top + window.scrollY));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(watch.current ?? document.body);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, [ref, watch]);
  return top;
}

const seconds = (milliseconds: number) => `${Number((milliseconds / 1000).toFixed(3))}`;

function StatusIcon({ status }: { status: SubmissionStatus }) {
  switch (status) {
    case 'accept':
      return <CheckIcon className="status-icon status-accept" width={16} height={16} />;
    case 'reject':
      return <XIcon className="status-icon status-reject" width={16} height={16} />;
    case 'waiting':
    case 'grading':
      return <span className="spinner spinner-sm status-pending" aria-hidden />;
    default:
      return (
        <span className="status-icon status-error" aria-hidden>
          !
        </span>
      );
  }
}

function StatusCell({ row, canOpen, onOpen }: { row: ProblemTableRow; canOpen: boolean; onOpen(): void }) {
  const latest = row.latestSubmission!;
  const { status } = useSettlingSubmission(latest);
  const label = STATUS_LABEL[status];
  return canOpen ? (
    <button type="button" className="status-button" title={`${label}: เปิดผลตรวจล่าสุด`} aria-label={`${label}: เปิดผลตรวจล่าสุดข้อ ${row.name}`} onClick={onOpen} data-status={status}>
      <StatusIcon status={status} />
    </button>
  ) : (
    <span className="status-button" title={label} role="img" aria-label={label} data-status={status}>
      <StatusIcon status={status} />
    </span>
  );
}

const ProblemRow = memo(function ProblemRow({
  row,
  index,
  now,
  columns,
  actions,
}: {
  row: ProblemTableRow;
  index: number;
  now: number;
  columns: TableColumns;
  actions: TableActions;
}) {
  const latest = row.latestSubmission;
  const canOpenLatest = latest !== null && (columns.admin || latest.userId === columns.userId || latest.public);
  const docUrl = apiUrl(problemContract.getProblemDoc, { params: { problemId: row.id } });
  return (
    <tr className={row.show ? 'problem-row' : 'problem-row problem-row-hidden'} aria-rowindex={index + 2} data-problem-id={row.id}>
      <td className="num problem-id">
        <Link to={`/problem/${row.id}`} title={`หน้าโจทย์ข้อ ${row.id}`}>
          {row.id}
        </Link>
      </td>
      <td className="problem-name-cell">
        <div className="problem-name-line">
          {row.show ? null : <EyeOffIcon className="problem-hidden-icon" width={14} height={14} aria-label="โจทย์ที่ปิดอยู่" role="img" aria-hidden={false} />}
          <a href={docUrl} target="_blank" rel="noreferrer" className="problem-name" title={row.name}>
            {row.name}
          </a>
          {isNew(row, now) ? (
            <Badge tone="orange" className="problem-new">
              ใหม่ !
            </Badge>
          ) : null}
        </div>
        <div className="problem-limits muted">
          ({seconds(row.timeLimit)} วินาที {row.memoryLimit} MB)
        </div>
      </td>
      {columns.passed ? (
        <td className="num">
          {row.passedCount > 0 ? (
            <button type="button" className="link-button" title={`ผู้ที่ผ่านข้อ ${row.name}`} onClick={() => actions.showPassed(row)}>
              {row.passedCount.toLocaleString('th-TH')}
            </button>
          ) : (
            <span className="muted" aria-label="ยังไม่มีผู้ที่ผ่าน">
              -
            </span>
          )}
        </td>
      ) : null}
      {columns.mine ? (
        <>
          <td className="center-text">{latest ? <StatusCell row={row} canOpen={canOpenLatest} onOpen={() => actions.showLatest(row)} /> : null}</td>
          <td className="center-text">
            <Button size="sm" variant="outline" icon={<UploadIcon width={15} height={15} />} aria-label={`ส่งข้อ ${row.name}`} onClick={() => actions.submit(row)} className="problem-submit">
              <span className="problem-submit-label">ส่ง</span>
            </Button>
          </td>
        </>
      ) : null}
      <td className="center-text">
        <RowMenu label={`ตัวเลือกข้อ ${row.name}`}>
          {columns.mine ? (
            <Link role="menuitem" className="menu-item" to={`/problem/${row.id}?tab=editor`}>
              เขียนส่ง
            </Link>
          ) : null}
          {columns.mine ? (
            <button type="button" role="menuitem" className="menu-item" disabled={!canOpenLatest} onClick={() => actions.showLatest(row)}>
              การส่งล่าสุด
            </button>
          ) : null}
          <button type="button" role="menuitem" className="menu-item" onClick={() => actions.showPassed(row)}>
            ผู้ที่ผ่าน
          </button>
          {columns.admin ? (
            <button type="button" role="menuitem" className="menu-item" onClick={() => actions.toggleShow(row)}>
              {row.show ? 'ปิดโจทย์' : 'เปิดโจทย์'}
            </button>
          ) : null}
        </RowMenu>
      </td>
    </tr>
  );
});

function Header({ columns }: { columns: TableColumns }) {
  return (
    <>
      <colgroup>
        <col className="col-id" />
        <col />
        {columns.passed ? <col className="col-passed" /> : null}
        {columns.mine ? (
          <>
            <col className="col-status" />
            <col className="col-submit" />
          </>
        ) : null}
        <col className="col-menu" />
      </colgroup>
      <thead>
        <tr aria-rowindex={1}>
          <th scope="col" className="num">
            #
          </th>
          <th scope="col">ชื่อ</th>
          {columns.passed ? (
            <th scope="col" className="num">
              ผ่าน
            </th>
          ) : null}
          {columns.mine ? (
            <>
              <th scope="col" className="center-text">
                สถานะ
              </th>
              <th scope="col" className="center-text">
                ส่ง
              </th>
            </>
          ) : null}
          <th scope="col" className="center-text">
            <span className="sr-only">ตัวเลือก</span>
          </th>
        </tr>
      </thead>
    </>
  );
}

const columnCount = (columns: TableColumns) => 3 + (columns.passed ? 1 : 0) + (columns.mine ? 2 : 0);

function MessageRow({ columns, children }: { columns: TableColumns; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={columnCount(columns)} className="table-message">
        {children}
      </td>
    </tr>
  );
}

export function ProblemTable({
  rows,
  now,
  columns,
  actions,
  loading,
  empty,
  pageRef,
}: {
  rows: ReadonlyArray<ProblemTableRow>;
  now: number;
  columns: TableColumns;
  actions: TableActions;
  loading: boolean;
  empty: ReactNode;
  pageRef: RefObject<HTMLElement | null>;
}) {
  const body = useRef<HTMLTableSectionElement>(null);
  const scrollMargin = useDocumentTop(body, pageRef);
  const rowHeight = useRowHeight();
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => rowHeight,
    overscan: OVERSCAN,
    scrollMargin,
    getItemKey: (index) => rows[index]?.id ?? index,
  });
  useEffect(() => virtualizer.measure(), [virtualizer, rowHeight]);
  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items[items.length - 1];
  const before = first ? first.start - scrollMargin : 0;
  const after = last ? virtualizer.getTotalSize() - (last.end - scrollMargin) : 0;
  const span = columnCount(columns);

  return (
    <div className="table-wrap problem-table-wrap">
      <table className="table problem-table" aria-label="รายการโจทย์" aria-rowcount={loading ? -1 : rows.length + 1} aria-busy={loading || undefined}>
        <Header columns={columns} />
        <tbody ref={body}>
          {loading ? (
            Array.from({ length: 8 }, (_, index) => (
              <tr key={index} className="problem-row problem-row-skeleton" aria-hidden>
                <td colSpan={span}>
                  <span className="skeleton-bar" />
                </td>
              </tr>
            ))
          ) : rows.length === 0 ? (
            <MessageRow columns={columns}>{empty}</MessageRow>
          ) : (
            <>
              {before > 0 ? (
                <tr className="spacer-row" aria-hidden style={{ height: before }}>
                  <td colSpan={span} />
                </tr>
              ) : null}
              {items.map((item) => {
                const row = rows[item.index]!;
                return <ProblemRow key={row.id} row={row} index={item.index} now={now} columns={columns} actions={actions} />;
              })}
              {after > 0 ? (
                <tr className="spacer-row" aria-hidden style={{ height: after }}>
                  <td colSpan={span} />
                </tr>
              ) : null}
            </>
          )}
        </tbody>
      </table>
    </div>
  );
}
