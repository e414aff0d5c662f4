/**
 * The board: TanStack Table for the columns (the compact mode hides the problem ones) and TanStack Virtual
 * for the rows, inside its own scroll box so the header and the rank and name columns stay put while the
 * body scrolls both ways. Only the rows on screen are in the DOM, each placed absolutely in a body as tall
 * as every row, with its layout contained: a scroll step lays out the rows it adds, not the table. It stays
 * a real <table> (aria-rowcount, aria-rowindex) drawn with flex rows. A refetch replaces the data in place:
 * the box, its scrollTop and the rows (keyed by user) stay. A score cell is plain text: one click handler on
 * the body opens its history (keyboard users reach the same dialog by the total's button), which keeps a
 * row light enough to add ten per frame.
 */
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable, type Row } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useImperativeHandle, useMemo, useRef, type CSSProperties, type MouseEvent, type Ref } from 'react';
import { Link } from 'react-router';
import { formatContestClock } from '../phase.ts';
import { cellTone, type BoardProblem, type BoardRow } from './board.ts';
import { BloodDropIcon } from './prize-icons.tsx';

export const ROW_HEIGHT = 44;
const OVERSCAN = 3;

export interface BoardHandle {
  /** Scrolls the box so the user's row is in the middle; false when they are not on the board. */
  scrollToUser(userId: number): boolean;
}

export interface BoardActions {
  openHistory(row: BoardRow, problemId?: number): void;
}

interface TableMeta {
  readonly meId: number | null;
  readonly firstBlood: ReadonlyMap<number, number>;
  readonly actions: BoardActions;
}

const column = createColumnHelper<BoardRow>();

function ScoreCell({ entry, problem, column, meta }: { entry: BoardRow; problem: BoardProblem; column: number; meta: TableMeta }) {
  const score = entry.scores[column] ?? null;
  const tone = cellTone(score, problem.score);
  const pending = entry.pending[column] ?? 0;
  const firstBlood = meta.firstBlood.get(problem.id) === entry.userId;
  return (
    <span className={`sb-cell sb-cell-${tone}${pending > 0 ? ' sb-cell-pending' : ''}`} data-problem-id={problem.id}>
      {/* Named by aria-label, not by hidden text: laying out a Thai text per empty cell was over a third of a scroll step's layout. */}
      {score ?? (
        <span role="img" aria-label="ยังไม่ส่ง">
          -
        </span>
      )}
      {pending > 0 ? (
        <span className="sb-pending" role="img" aria-label={`รอผลอีก ${pending} ครั้ง`}>
          ? +{pending}
        </span>
      ) : null}
      {firstBlood ? (
        <span className="sb-first-blood" role="img" aria-label="First Blood" title="First Blood">
          <BloodDropIcon />
        </span>
      ) : null}
    </span>
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
      cell: ({ row, table }) => {
        const { userId, showName } = row.original;
        const meta = table.options.meta as TableMeta;
        return (
          <Link to={`/user/${userId}`} className="sb-name" title={showName}>
            {showName}
            {meta.meId === userId ? <span className="sr-only"> (คุณ)</span> : null}
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
          aria-label={`คะแนนรวม ${row.original.totalScore}: ดูรายละเอียดคะแนนของ ${row.original.showName}`}
          onClick={() => (table.options.meta as TableMeta).actions.openHistory(row.original)}
        >
          {row.original.totalScore}
        </button>
      ),
    }),
    column.display({
      id: 'time',
      header: 'ส่งล่าสุดเมื่อ',
      size: 108,
      cell: ({ row }) => <span className="sb-time">{formatContestClock(row.original.maxPenalty)}</span>,
    }),
    ...problems.map((problem, index) =>
      column.display({
        id: `problem-${problem.id}`,
        header: () => (
          <span className="sb-problem-head" title={problem.name}>
            {problem.name}
          </span>
        ),
        size: 112,
        cell: ({ row, table }) => <ScoreCell entry={row.original} problem={problem} column={index} meta={table.options.meta as TableMeta} />,
      }),
    ),
  ];
}

/** The problem columns share one class and one width. */
const columnKind = (id: string) => (id.startsWith('problem-') ? 'problem' : id);

/**
 * The columns' widths as variables on the table, read by each column's class: one style for the table, none
 * per cell (setting styles on the cells of every new row was the costliest part of a scroll step).
 */
function widthVariables(columns: ReadonlyArray<{ id: string; getSize(): number }>): CSSProperties {
  return Object.fromEntries(columns.map((column) => [`--sb-w-${columnKind(column.id)}`, `${column.getSize()}px`]));
}

/** Rows off the replay are keyed by their place on screen: a scroll step refills the rows it has instead of making new ones. */
const ROW_SLOTS = 128;

/** A row re-renders when what it shows changes; its row model is rebuilt on every scroll step, its data is not. */
const sameRow = (a: RowProps, b: RowProps) =>
  a.row.original === b.row.original && a.index === b.index && a.start === b.start && a.isMe === b.isMe && a.meta === b.meta && a.compact === b.compact;

interface RowProps {
  row: Row<BoardRow>;
  index: number;
  start: number;
  isMe: boolean;
  /** Not read here: a new meta or column set must re-render the memoised row. */
  meta: TableMeta;
  compact: boolean;
}

const BoardRowView = memo(function BoardRowView({
  row,
  index,
  start,
  isMe,
}: RowProps) {
  return (
    <tr
      className={isMe ? 'sb-row sb-row-me' : 'sb-row'}
      style={{ transform: `translateY(${start}px)` }}
      aria-rowindex={index + 2}
      data-user-id={row.original.userId}
      data-rank={row.original.rank}
    >
      {row.getVisibleCells().map((cell) => (
        <td key={cell.column.id} className={`sb-td sb-col-${columnKind(cell.column.id)}`}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
}, sameRow);

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
  /** Rows slide to their new ranks (the replay). */
  animate: boolean;
  busy: boolean;
  ref?: Ref<BoardHandle>;
}) {
  const columns = useMemo(() => boardColumns(problems), [problems]);
  const columnVisibility = useMemo(() => Object.fromEntries(problems.map((problem) => [`problem-${problem.id}`, !compact])), [problems, compact]);
  const meta = useMemo<TableMeta>(() => ({ meId, firstBlood, actions }), [meId, firstBlood, actions]);
  const scrollBox = useRef<HTMLDivElement>(null);
  // A new getItemKey makes the virtualizer measure every row again: keep it while the rows stay.
  const getItemKey = useCallback((index: number) => rows[index]?.userId ?? index, [rows]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollBox.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
    getItemKey,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const end = (items[items.length - 1]?.index ?? -1) + 1;
  // The table models only the rows on screen: a live board of 10,000 rows costs a few dozen row models per update, not 10,000.
  const shownRows = useMemo(() => rows.slice(first, end), [rows, first, end]);
  const table = useReactTable({
    data: shownRows,
    columns,
    state: { columnVisibility },
    getCoreRowModel: getCoreRowModel(),
    getRowId: (entry) => String(entry.userId),
    meta,
  });
  const tableRows = table.getRowModel().rows;

  useImperativeHandle(
    ref,
    () => ({
      scrollToUser(userId) {
        const index = rows.findIndex((entry) => entry.userId === userId);
        if (index < 0) return false;
        virtualizer.scrollToIndex(index, { align: 'center' });
        return true;
      },
    }),
    [rows, virtualizer],
  );

  // A click on a score cell opens that contestant's history on that problem.
  const openCell = (event: MouseEvent<HTMLTableSectionElement>) => {
    const cell = (event.target as Element).closest<HTMLElement>('[data-problem-id]');
    const userId = cell?.closest<HTMLElement>('tr[data-user-id]')?.dataset.userId;
    const entry = userId === undefined ? undefined : table.getRow(userId, true)?.original;
    if (cell && entry) actions.openHistory(entry, Number(cell.dataset.problemId));
  };

  const visibleColumns = table.getVisibleLeafColumns();
  const width = visibleColumns.reduce((sum, col) => sum + col.getSize(), 0);

  return (
    <div className="sb-scroll" ref={scrollBox} tabIndex={0} role="region" aria-label="ตารางคะแนน (เลื่อนดูได้)">
      <table className={animate ? 'table sb-table sb-table-animate' : 'table sb-table'} style={{ minWidth: width, ...widthVariables(visibleColumns) }} aria-label="ตารางคะแนน" aria-rowcount={rows.length + 1} aria-busy={busy || undefined}>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((head) => (
                <th key={head.id} scope="col" className={`sb-th sb-col-${columnKind(head.column.id)}`}>
                  {flexRender(head.column.columnDef.header, head.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody style={{ height: virtualizer.getTotalSize() }} onClick={openCell}>
          {rows.length === 0 ? (
            <tr>
              <td className="sb-message">ยังไม่มีผู้เข้าแข่งขัน</td>
            </tr>
          ) : null}
          {items.map((item) => {
            const row = tableRows[item.index - first];
            // During the replay a row keeps its element as it changes rank, so it slides there.
            return row ? <BoardRowView key={animate ? row.id : item.index % ROW_SLOTS} row={row} index={item.index} start={item.start} isMe={row.original.userId === meId} meta={meta} compact={compact} /> : null;
          })}
        </tbody>
      </table>
    </div>
  );
}
