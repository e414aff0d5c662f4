/**
 * The board: TanStack Table for the columns (the compact mode hides the problem ones) and TanStack Virtual
 * for the rows, inside its own scroll box so the header and the rank and name columns stay put while the
 * body scrolls both ways. Only the rows on screen are in the DOM; spacer rows stand for the rest, which
 * keeps it a real <table> (aria-rowcount, aria-rowindex). A refetch replaces the data in place: the box,
 * its scrollTop and the rows (keyed by user) stay.
 */
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable, type Row } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useImperativeHandle, useLayoutEffect, useMemo, useRef, type Ref } from 'react';
import { Link } from 'react-router';
import type { ContestScoreCell, ScoreboardRow } from '@otog/schemas/api/contest';
import { formatContestClock } from '../phase.ts';
import { cellTone } from './board.ts';
import { BloodDropIcon } from './prize-icons.tsx';

export const ROW_HEIGHT = 44;
const OVERSCAN = 10;
/** Rows further than this travel only this far when they change rank (a long slide says nothing more). */
const MAX_SLIDE_ROWS = 8;

export interface BoardProblem {
  readonly id: number;
  readonly name: string;
  readonly score: number;
}

export interface BoardRow {
  readonly row: ScoreboardRow;
  readonly rank: number;
  readonly cells: ReadonlyMap<number, ContestScoreCell>;
}

export interface BoardHandle {
  /** Scrolls the box so the user's row is in the middle; false when they are not on the board. */
  scrollToUser(userId: number): boolean;
}

export interface BoardActions {
  openHistory(row: ScoreboardRow, problemId?: number): void;
}

interface TableMeta {
  readonly meId: number | null;
  readonly firstBlood: ReadonlyMap<number, number>;
  readonly actions: BoardActions;
}

const column = createColumnHelper<BoardRow>();

function ScoreCell({ entry, problem, meta }: { entry: BoardRow; problem: BoardProblem; meta: TableMeta }) {
  const cell = entry.cells.get(problem.id);
  const tone = cellTone(cell?.score, problem.score);
  const pending = cell?.pending ?? 0;
  const firstBlood = meta.firstBlood.get(problem.id) === entry.row.user.id;
  const label = `${problem.name}: ${cell ? `${cell.score} คะแนน` : 'ยังไม่ส่ง'}${pending > 0 ? `, รอผลอีก ${pending} ครั้ง` : ''}`;
  return (
    <button type="button" className={`sb-cell sb-cell-${tone}${pending > 0 ? ' sb-cell-pending' : ''}`} aria-label={label} onClick={() => meta.actions.openHistory(entry.row, problem.id)}>
      <span className="sb-cell-score" aria-hidden>{cell ? cell.score : '-'}</span>
      {pending > 0 ? (
        <span className="sb-pending" aria-hidden>
          ? +{pending}
        </span>
      ) : null}
      {firstBlood ? (
        <span className="sb-first-blood" role="img" aria-label="First Blood" title="First Blood">
          <BloodDropIcon />
        </span>
      ) : null}
    </button>
  );
}

function boardColumns(problems: ReadonlyArray<BoardProblem>) {
  return [
    column.display({
      id: 'rank',
      header: '#',
      size: 56,
      cell: ({ row }) => <span className="sb-rank">{row.original.rank}</span>,
    }),
    column.display({
      id: 'name',
      header: 'ชื่อ',
      size: 180,
      meta: { flexible: true },
      cell: ({ row, table }) => {
        const user = row.original.row.user;
        const meta = table.options.meta as TableMeta;
        return (
          <Link to={`/user/${user.id}`} className="sb-name" title={user.showName}>
            {user.showName}
            {meta.meId === user.id ? <span className="sr-only"> (คุณ)</span> : null}
          </Link>
        );
      },
    }),
    column.display({
      id: 'total',
      header: 'คะแนนรวม',
      size: 96,
      cell: ({ row, table }) => (
        <button
          type="button"
          className="sb-total"
          aria-label={`คะแนนรวม ${row.original.row.totalScore}: ดูรายละเอียดคะแนนของ ${row.original.row.user.showName}`}
          onClick={() => (table.options.meta as TableMeta).actions.openHistory(row.original.row)}
        >
          {row.original.row.totalScore}
        </button>
      ),
    }),
    column.display({
      id: 'time',
      header: 'ส่งล่าสุดเมื่อ',
      size: 108,
      cell: ({ row }) => <span className="sb-time">{formatContestClock(row.original.row.maxPenalty)}</span>,
    }),
    ...problems.map((problem) =>
      column.display({
        id: `problem-${problem.id}`,
        header: () => (
          <span className="sb-problem-head" title={problem.name}>
            {problem.name}
          </span>
        ),
        size: 112,
        meta: { flexible: true },
        cell: ({ row, table }) => <ScoreCell entry={row.original} problem={problem} meta={table.options.meta as TableMeta} />,
      }),
    ),
  ];
}

const BoardRowView = memo(function BoardRowView({
  row,
  index,
  isMe,
  animate,
}: {
  row: Row<BoardRow>;
  index: number;
  isMe: boolean;
  animate: boolean;
  /** Not read here: a new meta or column set must re-render the memoised row. */
  meta: TableMeta;
  compact: boolean;
}) {
  const element = useRef<HTMLTableRowElement>(null);
  const shownAt = useRef(index);
  // FLIP: a row that changed place starts where it was and slides to where it is now.
  useLayoutEffect(() => {
    const previous = shownAt.current;
    shownAt.current = index;
    const tr = element.current;
    if (!animate || previous === index || !tr || window.matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    const rows = Math.max(-MAX_SLIDE_ROWS, Math.min(MAX_SLIDE_ROWS, previous - index));
    tr.style.transition = 'none';
    tr.style.transform = `translateY(${rows * ROW_HEIGHT}px)`;
    tr.getBoundingClientRect();
    tr.style.transition = '';
    tr.style.transform = '';
  }, [index, animate]);
  return (
    <tr ref={element} className={isMe ? 'sb-row sb-row-me' : 'sb-row'} aria-rowindex={index + 2} data-user-id={row.original.row.user.id} data-rank={row.original.rank}>
      {row.getVisibleCells().map((cell) => (
        <td key={cell.column.id} className={`sb-td sb-col-${cell.column.id.startsWith('problem-') ? 'problem' : cell.column.id}`}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
});

export function ScoreboardTable({
  rows,
  problems,
  compact,
  meId,
  firstBlood,
  actions,
  animate,
  busy,
  ref,
}: {
  rows: ReadonlyArray<BoardRow>;
  problems: ReadonlyArray<BoardProblem>;
  compact: boolean;
  meId: number | null;
  firstBlood: ReadonlyMap<number, number>;
  actions: BoardActions;
  animate: boolean;
  busy: boolean;
  ref?: Ref<BoardHandle>;
}) {
  const columns = useMemo(() => boardColumns(problems), [problems]);
  const columnVisibility = useMemo(() => Object.fromEntries(problems.map((problem) => [`problem-${problem.id}`, !compact])), [problems, compact]);
  const meta = useMemo<TableMeta>(() => ({ meId, firstBlood, actions }), [meId, firstBlood, actions]);
  const table = useReactTable({
    data: rows as BoardRow[],
    columns,
    state: { columnVisibility },
    getCoreRowModel: getCoreRowModel(),
    getRowId: (entry) => String(entry.row.user.id),
    meta,
  });
  const tableRows = table.getRowModel().rows;
  const scrollBox = useRef<HTMLDivElement>(null);
  const header = useRef<HTMLTableSectionElement>(null);
  // A new getItemKey makes the virtualizer measure every row again: keep it while the rows stay.
  const getItemKey = useCallback((index: number) => tableRows[index]?.id ?? index, [tableRows]);
  const virtualizer = useVirtualizer({
    count: tableRows.length,
    getScrollElement: () => scrollBox.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
    getItemKey,
  });

  useImperativeHandle(
    ref,
    () => ({
      scrollToUser(userId) {
        const index = tableRows.findIndex((row) => row.original.row.user.id === userId);
        if (index < 0) return false;
        virtualizer.scrollToIndex(index, { align: 'center' });
        return true;
      },
    }),
    [tableRows, virtualizer],
  );

  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = items.length > 0 ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;
  const visibleColumns = table.getVisibleLeafColumns();
  const width = visibleColumns.reduce((sum, col) => sum + col.getSize(), 0);

  return (
    <div className="sb-scroll" ref={scrollBox} tabIndex={0} role="region" aria-label="ตารางคะแนน (เลื่อนดูได้)">
      <table className="table sb-table" style={{ minWidth: width }} aria-label="ตารางคะแนน" aria-rowcount={tableRows.length + 1} aria-busy={busy || undefined}>
        <colgroup>
          {visibleColumns.map((col) => (
            // Fixed columns keep their width; the name and problem columns share what the box has left.
            <col key={col.id} style={(col.columnDef.meta as { flexible?: boolean } | undefined)?.flexible ? undefined : { width: col.getSize() }} />
          ))}
        </colgroup>
        <thead ref={header}>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((head) => (
                <th key={head.id} scope="col" className={`sb-th sb-col-${head.column.id.startsWith('problem-') ? 'problem' : head.column.id}`}>
                  {flexRender(head.column.columnDef.header, head.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {tableRows.length === 0 ? (
            <tr>
              <td colSpan={visibleColumns.length} className="sb-message">
                ยังไม่มีผู้เข้าแข่งขัน
              </td>
            </tr>
          ) : null}
          {before > 0 ? (
            <tr className="sb-spacer" aria-hidden style={{ height: before }}>
              <td colSpan={visibleColumns.length} />
            </tr>
          ) : null}
          {items.map((item) => {
            const row = tableRows[item.index]!;
            return <BoardRowView key={row.id} row={row} index={item.index} isMe={row.original.row.user.id === meId} animate={animate} meta={meta} compact={compact} />;
          })}
          {after > 0 ? (
            <tr className="sb-spacer" aria-hidden style={{ height: after }}>
              <td colSpan={visibleColumns.length} />
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
