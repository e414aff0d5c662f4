/**
 * The board: TanStack Table for the columns (the compact mode hides the problem ones) and TanStack Virtual
 * for the rows, inside its own scroll box so the header and the rank and name columns stay put while the
 * body scrolls both ways. Only the rows on screen are in the DOM, each placed absolutely in a body as tall
 * as every row, with its layout contained: a scroll step lays out the rows it adds, not the table. It stays
 * a real <table> (aria-rowcount, aria-rowindex) drawn with flex rows. Row elements are slots (row-slots.ts):
 * a scroll step or a refetch refills the elements it has, so the box, its scrollTop and its rows stay. A
 * score cell is plain text: one click handler on the body opens its history (keyboard users reach the same
 * dialog by the total's button), which keeps a row light enough to refill a screen of them per frame.
 */
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useImperativeHandle, useMemo, useRef, type CSSProperties, type MouseEvent, type ReactNode, type Ref } from 'react';
import { Link } from 'react-router';
import { formatContestClock } from '../phase.ts';
import { cellTone, type BoardProblem, type BoardRow } from './board.ts';
import { BloodDropIcon } from './prize-icons.tsx';
import { assignSlots } from './row-slots.ts';

export const ROW_HEIGHT = 44;
const OVERSCAN = 2;

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
  const pending = entry.pending[column] ?? 0;
  const tone = cellTone(score, problem.score);
  const firstBlood = meta.firstBlood.get(problem.id) === entry.userId;
  // An empty cell is the same element as a scored one, named by aria-label: a row refilled with another
  // contestant changes text and attributes, not elements, and no Thai text is laid out per empty cell.
  const empty = score === null && pending === 0;
  return (
    <span
      className={`sb-cell sb-cell-${tone}${pending > 0 ? ' sb-cell-pending' : ''}`}
      data-problem-id={problem.id}
      role={empty ? 'img' : undefined}
      aria-label={empty ? 'ยังไม่ส่ง' : undefined}
    >
      {score ??
        (empty ? (
          '-'
        ) : (
          <span role="img" aria-label="ยังไม่ส่ง">
            -
          </span>
        ))}
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

/**
 * A column of the board: TanStack Table gets its id, header and size (the header row, widths, the compact
 * mode's visibility); the body rows call `cell` with their entry directly, so a scroll step builds no row or
 * cell models for the rows it shows.
 */
interface BoardColumn {
  readonly id: string;
  readonly header: string | (() => ReactNode);
  readonly size: number;
  readonly cell: (entry: BoardRow, meta: TableMeta) => ReactNode;
}

function boardColumns(problems: ReadonlyArray<BoardProblem>): BoardColumn[] {
  return [
    { id: 'rank', header: '#', size: 56, cell: (entry) => <span className="sb-rank">{entry.rank}</span> },
    {
      id: 'name',
      header: 'ชื่อ',
      size: 180,
      cell: ({ userId, showName }, meta) => (
        <Link to={`/user/${userId}`} className="sb-name" title={showName}>
          {showName}
          {meta.meId === userId ? <span className="sr-only"> (คุณ)</span> : null}
        </Link>
      ),
    },
    {
      id: 'total',
      header: 'คะแนนรวม',
      size: 96,
      cell: (entry, meta) => (
        <button type="button" className="sb-total" aria-label={`คะแนนรวม ${entry.totalScore}: ดูรายละเอียดคะแนนของ ${entry.showName}`} onClick={() => meta.actions.openHistory(entry)}>
          {entry.totalScore}
        </button>
      ),
    },
    { id: 'time', header: 'ส่งล่าสุดเมื่อ', size: 108, cell: (entry) => <span className="sb-time">{formatContestClock(entry.maxPenalty)}</span> },
    ...problems.map((problem, index) => ({
      id: `problem-${problem.id}`,
      header: () => (
        <span className="sb-problem-head" title={problem.name}>
          {problem.name}
        </span>
      ),
      size: 112,
      cell: (entry: BoardRow, meta: TableMeta) => <ScoreCell entry={entry} problem={problem} column={index} meta={meta} />,
    })),
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

/** The table only models columns: its rows are drawn by BoardRowView from the entries on screen. */
const NO_ROWS: BoardRow[] = [];

interface RowProps {
  entry: BoardRow;
  index: number;
  start: number;
  isMe: boolean;
  meta: TableMeta;
  columns: ReadonlyArray<BoardColumn>;
}

/** A row re-renders when what it shows changes (its props are kept values, compared by identity). */
const BoardRowView = memo(function BoardRowView({ entry, index, start, isMe, meta, columns }: RowProps) {
  return (
    <tr
      className={isMe ? 'sb-row sb-row-me' : 'sb-row'}
      style={{ transform: `translateY(${start}px)` }}
      aria-rowindex={index + 2}
      data-user-id={entry.userId}
      data-rank={entry.rank}
    >
      {columns.map((column) => (
        <td key={column.id} className={`sb-td sb-col-${columnKind(column.id)}`}>
          {column.cell(entry, meta)}
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
  // Not state: which element shows which row is a cache of the last render's, kept for the next one.
  const slots = useRef(new Map<number, number>());
  if (!animate) slots.current = assignSlots(slots.current, items.map((item) => item.index));
  const tableColumns = useMemo(() => columns.map(({ id, header, size }) => column.display({ id, header, size })), [columns]);
  const table = useReactTable({ data: NO_ROWS, columns: tableColumns, state: { columnVisibility }, getCoreRowModel: getCoreRowModel() });
  const visibleColumns = table.getVisibleLeafColumns();
  const shownColumns = useMemo(() => {
    const byId = new Map(columns.map((entry) => [entry.id, entry]));
    return visibleColumns.flatMap((leaf) => byId.get(leaf.id) ?? []);
  }, [columns, visibleColumns]);

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
    const entry = userId === undefined ? undefined : rows.find((candidate) => String(candidate.userId) === userId);
    if (cell && entry) actions.openHistory(entry, Number(cell.dataset.problemId));
  };

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
            const entry = rows[item.index];
            // During the replay a row keeps its element as it changes rank, so it slides there.
            return entry ? <BoardRowView key={animate ? `user-${entry.userId}` : (slots.current.get(item.index) ?? item.index)} entry={entry} index={item.index} start={item.start} isMe={entry.userId === meId} meta={meta} columns={shownColumns} /> : null;
          })}
        </tbody>
      </table>
    </div>
  );
}
