/** /admin: every problem (hidden ones too), server-paginated, with show/hide, edit, rejudge, attachment and delete. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { problemContract } from '@otog/schemas/api/problem';
import { Button } from '../../components/ui/Button.tsx';
import { EyeIcon, EyeOffIcon, PlusIcon } from '../../components/ui/icons.tsx';
import { MenuItem } from '../../components/ui/Menu.tsx';
import { apiUrl, callApi, errorMessage } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import { AttachmentDialog } from './AttachmentDialog.tsx';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { invalidatePaths } from '../../lib/query.ts';
import { Pager, PlaceholderRows, SearchBox, useClampPage, useListParams, WideRow } from './list.tsx';
import { ProblemFormDialog } from './ProblemFormDialog.tsx';
import { RejudgeProblemDialog } from './RejudgeProblemDialog.tsx';
import { RowMenu } from '../../components/ui/RowMenu.tsx';
import type { AdminProblem } from './types.ts';

const COLUMNS = 9;

type Action = { kind: 'create' } | { kind: 'edit' | 'rejudge' | 'attachment' | 'delete'; problem: AdminProblem };

const seconds = (milliseconds: number) => String(Number((milliseconds / 1000).toFixed(3)));

function ShowToggle({ problem }: { problem: AdminProblem }) {
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (show: boolean) =>
      toast.promise(callApi(problemContract.showProblem, { params: { problemId: problem.id }, body: { show } }), {
        loading: show ? 'กำลังเปิดโจทย์...' : 'กำลังปิดโจทย์...',
        success: show ? `เปิดโจทย์ ${problem.name} แล้ว` : `ปิดโจทย์ ${problem.name} แล้ว`,
        error: (error) => errorMessage(error, show ? 'เปิดโจทย์ไม่สำเร็จ' : 'ปิดโจทย์ไม่สำเร็จ'),
      }),
    onSettled: () => invalidatePaths(queryClient, '/problem'),
  });
  // While the request runs, show where it is going.
  const shown = toggle.isPending && toggle.variables !== undefined ? toggle.variables : problem.show;
  return (
    <Button
      size="sm"
      variant="ghost"
      className={shown ? 'admin-show admin-show-on' : 'admin-show'}
      icon={shown ? <EyeIcon width={16} height={16} /> : <EyeOffIcon width={16} height={16} />}
      title={shown ? 'เปิดอยู่: กดเพื่อปิดโจทย์' : 'ปิดอยู่: กดเพื่อเปิดโจทย์'}
      disabled={toggle.isPending}
      onClick={() => toggle.mutate(!problem.show)}
    >
      {shown ? 'เปิด' : 'ปิด'}
      <span className="sr-only">{shown ? `อยู่ กดเพื่อปิดโจทย์ ${problem.name}` : `อยู่ กดเพื่อเปิดโจทย์ ${problem.name}`}</span>
    </Button>
  );
}

export function ProblemsPage() {
  usePageTitle('ระบบจัดการ: โจทย์');
  const queryClient = useQueryClient();
  const list = useListParams();
  const query = useQuery({ ...apiQuery(problemContract.adminList, { query: list.query }), placeholderData: keepPreviousData });
  const [action, setAction] = useState<Action | null>(null);
  const close = () => setAction(null);
  useClampPage(list, query.data?.total);

  const rows = query.data?.data;
  let body;
  if (rows === undefined && query.isError) {
    body = (
      <WideRow columns={COLUMNS}>
        <p className="admin-error-text" role="alert">
          โหลดรายการโจทย์ไม่สำเร็จ: {errorMessage(query.error)}
        </p>
        <Button size="sm" onClick={() => void query.refetch()}>
          ลองใหม่
        </Button>
      </WideRow>
    );
  } else if (rows === undefined) {
    body = <PlaceholderRows columns={COLUMNS} rows={Math.min(list.size, 10)} />;
  } else if (rows.length === 0) {
    body = <WideRow columns={COLUMNS}>{list.search ? `ไม่พบโจทย์ที่ตรงกับ “${list.search}”` : 'ยังไม่มีโจทย์ กด “เพิ่ม” เพื่อเพิ่มโจทย์แรก'}</WideRow>;
  } else {
    body = rows.map((problem) => (
      <tr key={problem.id} className={problem.show ? undefined : 'admin-row-hidden'}>
        <td className="num">{problem.id}</td>
        <td className="admin-name-cell">
          <a href={apiUrl(problemContract.getProblemDoc, { params: { problemId: problem.id } })} target="_blank" rel="noreferrer">
            {problem.name}
            <span className="sr-only"> (เปิด PDF ในแท็บใหม่)</span>
          </a>
        </td>
        <td className="admin-nowrap">{problem.sname ?? '-'}</td>
        <td className="num">{problem.score}</td>
        <td className="num">{seconds(problem.timeLimit)}</td>
        <td className="num">{problem.memoryLimit}</td>
        <td className="num">{problem.case ?? '-'}</td>
        <td>
          <ShowToggle problem={problem} />
        </td>
        <td>
          <RowMenu label={`ตัวเลือกของโจทย์ ${problem.name}`}>
            <MenuItem onSelect={() => setAction({ kind: 'edit', problem })}>แก้ไขโจทย์</MenuItem>
            <MenuItem onSelect={() => setAction({ kind: 'rejudge', problem })}>ตรวจข้อนี้ใหม่</MenuItem>
            <MenuItem onSelect={() => setAction({ kind: 'attachment', problem })}>ไฟล์แนบ</MenuItem>
            <MenuItem danger onSelect={() => setAction({ kind: 'delete', problem })}>
              ลบโจทย์
            </MenuItem>
          </RowMenu>
        </td>
      </tr>
    ));
  }

  return (
    <div className="stack">
      <div className="admin-toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="ค้นหาโจทย์ด้วยเลขข้อ ชื่อ หรือชื่อเล่น" />
        <Button variant="primary" icon={<PlusIcon width={16} height={16} />} onClick={() => setAction({ kind: 'create' })}>
          เพิ่ม
        </Button>
      </div>
      <div className="table-wrap">
        <table className="table admin-table" aria-busy={query.isFetching || undefined}>
          <caption className="sr-only">โจทย์ทั้งหมด</caption>
          <thead>
            <tr>
              <th scope="col" className="num">#</th>
              <th scope="col">ชื่อ</th>
              <th scope="col">ชื่อเล่น</th>
              <th scope="col" className="num">คะแนน</th>
              <th scope="col" className="num">เวลา (s)</th>
              <th scope="col" className="num">หน่วยความจำ (MB)</th>
              <th scope="col" className="num">จำนวนเคส</th>
              <th scope="col">สถานะ</th>
              <th scope="col">
                <span className="sr-only">ตัวเลือก</span>
              </th>
            </tr>
          </thead>
          <tbody>{body}</tbody>
        </table>
      </div>
      <Pager list={list} total={query.data?.total} fetching={query.isFetching && rows !== undefined} noun="ข้อ" />

      {action?.kind === 'create' ? <ProblemFormDialog problem={null} onClose={close} /> : null}
      {action?.kind === 'edit' ? <ProblemFormDialog problem={action.problem} onClose={close} /> : null}
      {action?.kind === 'attachment' ? <AttachmentDialog problem={action.problem} onClose={close} /> : null}
      {action?.kind === 'rejudge' ? <RejudgeProblemDialog problem={action.problem} onClose={close} /> : null}
      {action?.kind === 'delete' ? (
        <ConfirmDialog
          title="ลบโจทย์"
          confirmLabel="ลบโจทย์"
          danger
          onClose={close}
          onConfirm={async () => {
            await toast.promise(callApi(problemContract.deleteProblem, { params: { problemId: action.problem.id } }), {
              loading: 'กำลังลบโจทย์...',
              success: `ลบโจทย์ ${action.problem.name} แล้ว`,
              error: (error) => errorMessage(error, 'ลบโจทย์ไม่สำเร็จ'),
            });
            void invalidatePaths(queryClient, '/problem', '/submission');
          }}
        >
          <p>
            ต้องการลบโจทย์ <strong>#{action.problem.id} {action.problem.name}</strong> ใช่หรือไม่? ผลตรวจของข้อนี้จะหายไปจากรายการด้วย และย้อนกลับไม่ได้
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
