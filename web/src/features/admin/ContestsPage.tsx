/** /admin/contest: every contest, server-paginated and searchable, with add, edit, add problems and delete. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { contestContract } from '@otog/schemas/api/contest';
import { Badge } from '../../components/ui/Badge.tsx';
import { Button } from '../../components/ui/Button.tsx';
import { PlusIcon } from '../../components/ui/icons.tsx';
import { MenuItem } from '../../components/ui/Menu.tsx';
import { RowMenu } from '../../components/ui/RowMenu.tsx';
import { errorMessage } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/dates.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { CONTEST_MODE_LABELS, GRADING_MODE_LABELS, SCOREBOARD_POLICY_LABELS } from './contest-form.ts';
import { ContestFormDialog } from './ContestFormDialog.tsx';
import { DeleteContestDialog } from './DeleteContestDialog.tsx';
import { Pager, PlaceholderRows, SearchBox, useClampPage, useListParams, WideRow } from './list.tsx';
import type { AdminContest } from './types.ts';

const COLUMNS = 8;

/** DD/MM/BBBB HH:mm (the seconds of formatDateTime are always 00 here). */
const contestTime = (value: string) => formatDateTime(value).slice(0, -3);

type Action = { kind: 'create' } | { kind: 'edit' | 'delete'; contest: AdminContest };

export function ContestsPage() {
  usePageTitle('ระบบจัดการ: การแข่งขัน');
  const navigate = useNavigate();
  const list = useListParams();
  const query = useQuery({ ...apiQuery(contestContract.getContestsForAdmin, { query: list.query }), placeholderData: keepPreviousData });
  const [action, setAction] = useState<Action | null>(null);
  const close = () => setAction(null);
  useClampPage(list, query.data?.total);

  const rows = query.data?.data;
  let body;
  if (rows === undefined && query.isError) {
    body = (
      <WideRow columns={COLUMNS}>
        <p className="admin-error-text" role="alert">
          โหลดรายการการแข่งขันไม่สำเร็จ: {errorMessage(query.error)}
        </p>
        <Button size="sm" onClick={() => void query.refetch()}>
          ลองใหม่
        </Button>
      </WideRow>
    );
  } else if (rows === undefined) {
    body = <PlaceholderRows columns={COLUMNS} rows={Math.min(list.size, 10)} />;
  } else if (rows.length === 0) {
    body = <WideRow columns={COLUMNS}>{list.search ? `ไม่พบการแข่งขันที่ตรงกับ “${list.search}”` : 'ยังไม่มีการแข่งขัน กด “เพิ่ม” เพื่อสร้างการแข่งขันแรก'}</WideRow>;
  } else {
    body = rows.map((contest) => (
      <tr key={contest.id}>
        <td className="num">{contest.id}</td>
        <td className="admin-name-cell">
          <Link to={`/admin/contest/${contest.id}`}>{contest.name}</Link>
        </td>
        <td className="admin-nowrap">{contestTime(contest.timeStart)}</td>
        <td className="admin-nowrap">{contestTime(contest.timeEnd)}</td>
        <td className="admin-nowrap">{GRADING_MODE_LABELS[contest.gradingMode]}</td>
        <td>{contest.mode === 'rated' ? <Badge tone="orange">{CONTEST_MODE_LABELS.rated}</Badge> : <Badge tone="gray">{CONTEST_MODE_LABELS.unrated}</Badge>}</td>
        <td className="admin-nowrap">{SCOREBOARD_POLICY_LABELS[contest.scoreboardPolicy]}</td>
        <td>
          <RowMenu label={`ตัวเลือกของการแข่งขัน ${contest.name}`}>
            <MenuItem onSelect={() => setAction({ kind: 'edit', contest })}>แก้ไขการแข่งขัน</MenuItem>
            <MenuItem onSelect={() => void navigate(`/admin/contest/${contest.id}?add=problems`)}>เพิ่มโจทย์</MenuItem>
            <MenuItem danger onSelect={() => setAction({ kind: 'delete', contest })}>
              ลบการแข่งขัน
            </MenuItem>
          </RowMenu>
        </td>
      </tr>
    ));
  }

  return (
    <div className="stack">
      <div className="admin-toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="ค้นหาการแข่งขันด้วยเลขหรือชื่อ" />
        <Button variant="primary" icon={<PlusIcon width={16} height={16} />} onClick={() => setAction({ kind: 'create' })}>
          เพิ่ม
        </Button>
      </div>
      <div className="table-wrap">
        <table className="table admin-table" aria-busy={query.isFetching || undefined}>
          <caption className="sr-only">การแข่งขันทั้งหมด</caption>
          <thead>
            <tr>
              <th scope="col" className="num">#</th>
              <th scope="col">ชื่อ</th>
              <th scope="col">เวลาเริ่ม</th>
              <th scope="col">เวลาจบ</th>
              <th scope="col">โหมด</th>
              <th scope="col">เรท</th>
              <th scope="col">ดูอันดับ</th>
              <th scope="col">
                <span className="sr-only">ตัวเลือก</span>
              </th>
            </tr>
          </thead>
          <tbody>{body}</tbody>
        </table>
      </div>
      <Pager list={list} total={query.data?.total} fetching={query.isFetching && rows !== undefined} noun="รายการ" />

      {action?.kind === 'create' ? <ContestFormDialog contest={null} onClose={close} /> : null}
      {action?.kind === 'edit' ? <ContestFormDialog contest={action.contest} onClose={close} /> : null}
      {action?.kind === 'delete' ? (
        <DeleteContestDialog contest={action.contest} onClose={close} />
      ) : null}
    </div>
  );
}
