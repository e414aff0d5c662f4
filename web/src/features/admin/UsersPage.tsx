/** /admin/user: every account, server-paginated and searchable, each editable (names, role, password). */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { userContract } from '@otog/schemas/api/user';
import { Badge } from '../../components/ui/Badge.tsx';
import { Button, IconButton } from '../../components/ui/Button.tsx';
import { PencilIcon } from '../../components/ui/icons.tsx';
import { errorMessage } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { Pager, PlaceholderRows, SearchBox, useClampPage, useListParams, WideRow } from './list.tsx';
import type { AdminUser } from './types.ts';
import { UserEditDialog } from './UserEditDialog.tsx';

const COLUMNS = 5;

export function UsersPage() {
  usePageTitle('ระบบจัดการ: ผู้ใช้งาน');
  const list = useListParams();
  const query = useQuery({ ...apiQuery(userContract.adminList, { query: list.query }), placeholderData: keepPreviousData });
  const [editing, setEditing] = useState<AdminUser | null>(null);
  useClampPage(list, query.data?.total);

  const rows = query.data?.data;
  let body;
  if (rows === undefined && query.isError) {
    body = (
      <WideRow columns={COLUMNS}>
        <p className="admin-error-text" role="alert">
          โหลดรายชื่อผู้ใช้ไม่สำเร็จ: {errorMessage(query.error)}
        </p>
        <Button size="sm" onClick={() => void query.refetch()}>
          ลองใหม่
        </Button>
      </WideRow>
    );
  } else if (rows === undefined) {
    body = <PlaceholderRows columns={COLUMNS} rows={Math.min(list.size, 10)} />;
  } else if (rows.length === 0) {
    body = <WideRow columns={COLUMNS}>{list.search ? `ไม่พบผู้ใช้ที่ตรงกับ “${list.search}”` : 'ยังไม่มีผู้ใช้'}</WideRow>;
  } else {
    body = rows.map((user) => (
      <tr key={user.id}>
        <td className="num">{user.id}</td>
        <td className="admin-name-cell">{user.username}</td>
        <td className="admin-name-cell">
          <Link to={`/user/${user.id}`}>{user.showName}</Link>
        </td>
        <td>{user.role === 'admin' ? <Badge tone="orange">ผู้ดูแล</Badge> : <Badge tone="gray">ผู้ใช้</Badge>}</td>
        <td>
          <IconButton size="sm" label={`แก้ไขผู้ใช้ ${user.username}`} onClick={() => setEditing(user)}>
            <PencilIcon width={16} height={16} />
          </IconButton>
        </td>
      </tr>
    ));
  }

  return (
    <div className="stack">
      <div className="admin-toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="ค้นหาผู้ใช้ด้วยเลขผู้ใช้ ชื่อผู้ใช้ หรือชื่อที่แสดง" />
      </div>
      <div className="table-wrap">
        <table className="table admin-table" aria-busy={query.isFetching || undefined}>
          <caption className="sr-only">ผู้ใช้งานทั้งหมด</caption>
          <thead>
            <tr>
              <th scope="col" className="num">#</th>
              <th scope="col">ชื่อผู้ใช้</th>
              <th scope="col">ชื่อที่แสดง</th>
              <th scope="col">สิทธิ์</th>
              <th scope="col">
                <span className="sr-only">แก้ไข</span>
              </th>
            </tr>
          </thead>
          <tbody>{body}</tbody>
        </table>
      </div>
      <Pager list={list} total={query.data?.total} fetching={query.isFetching && rows !== undefined} noun="คน" />
      {editing ? <UserEditDialog user={editing} onClose={() => setEditing(null)} /> : null}
    </div>
  );
}
