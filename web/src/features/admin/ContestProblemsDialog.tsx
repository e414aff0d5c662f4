/**
 * "เพิ่มโจทย์" of a contest: every problem (hidden ones too), searchable, ticked when it is in the contest.
 * Saving adds the newly ticked ones (PUT /contest/:id/problems, one request) and removes the unticked
 * ones (PATCH /contest/:id/problem/:pid {show: false}, one each).
 */
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { contestContract } from '@otog/schemas/api/contest';
import { problemContract } from '@otog/schemas/api/problem';
import { Button } from '../../components/ui/Button.tsx';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { Spinner } from '../../components/ui/Spinner.tsx';
import { callApi, errorMessage } from '../../lib/api.ts';
import { apiQuery, invalidatePaths } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import { SearchBox } from './list.tsx';

const PAGE = 10;

export function ContestProblemsDialog({ contestId, current, onClose }: { contestId: number; current: ReadonlySet<number>; onClose(): void }) {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [shown, setShown] = useState(PAGE);
  const [ticked, setTicked] = useState<ReadonlySet<number>>(() => new Set(current));
  const [pending, setPending] = useState(false);
  const query = useQuery({
    ...apiQuery(problemContract.adminList, { query: { skip: 0, limit: shown, search: search.trim() || undefined } }),
    placeholderData: keepPreviousData,
  });
  const added = [...ticked].filter((id) => !current.has(id));
  const removed = [...current].filter((id) => !ticked.has(id));
  const changes = added.length + removed.length;

  const toggle = (problemId: number, on: boolean) =>
    setTicked((before) => {
      const next = new Set(before);
      if (on) next.add(problemId);
      else next.delete(problemId);
      return next;
    });

  const save = async () => {
    setPending(true);
    const apply = async () => {
      if (added.length) await callApi(contestContract.putProblemToContest, { params: { contestId }, body: added.map((problemId) => ({ problemId })) });
      for (const problemId of removed) {
        await callApi(contestContract.toggleProblemToContest, { params: { contestId, problemId }, body: { show: false } });
      }
    };
    try {
      await toast.promise(apply(), {
        loading: 'กำลังบันทึกโจทย์ของการแข่งขัน...',
        success: [added.length ? `เพิ่ม ${added.length} ข้อ` : '', removed.length ? `นำออก ${removed.length} ข้อ` : ''].filter(Boolean).join(' และ ') + ' แล้ว',
        error: (error) => errorMessage(error, 'บันทึกโจทย์ของการแข่งขันไม่สำเร็จ'),
      });
      onClose();
    } catch {
      setPending(false);
    } finally {
      // Part of the changes may have been saved before one failed.
      void invalidatePaths(queryClient, '/contest');
    }
  };

  const rows = query.data?.data;
  const total = query.data?.total;
  return (
    <Dialog
      open
      size="md"
      title="เพิ่มโจทย์ในการแข่งขัน"
      onClose={() => {
        if (!pending) onClose();
      }}
      footer={
        <>
          <Button variant="ghost" onClick={onClose} disabled={pending}>
            ยกเลิก
          </Button>
          <Button variant="primary" loading={pending} disabled={changes === 0} onClick={() => void save()}>
            บันทึก{changes ? ` (${[added.length ? `เพิ่ม ${added.length}` : '', removed.length ? `นำออก ${removed.length}` : ''].filter(Boolean).join(', ')})` : ''}
          </Button>
        </>
      }
    >
      <div className="stack">
        <SearchBox
          value={search}
          onChange={(value) => {
            setSearch(value);
            setShown(PAGE);
          }}
          label="ค้นหาโจทย์ด้วยเลขข้อ ชื่อ หรือชื่อเล่น"
        />
        {rows === undefined && query.isError ? (
          <p className="admin-error-text" role="alert">
            โหลดรายการโจทย์ไม่สำเร็จ: {errorMessage(query.error)}
          </p>
        ) : rows === undefined ? (
          <Spinner label="กำลังโหลด..." />
        ) : rows.length === 0 ? (
          <p className="muted">{search ? `ไม่พบโจทย์ที่ตรงกับ “${search}”` : 'ยังไม่มีโจทย์'}</p>
        ) : (
          <ul className="admin-pick-list" aria-label="โจทย์ทั้งหมด" aria-busy={query.isFetching || undefined}>
            {rows.map((problem) => (
              <li key={problem.id}>
                <label className="checkbox admin-pick">
                  <input type="checkbox" checked={ticked.has(problem.id)} disabled={pending} onChange={(event) => toggle(problem.id, event.target.checked)} />
                  <span className="admin-pick-id">#{problem.id}</span>
                  <span className="admin-pick-name">{problem.name}</span>
                  {problem.sname ? <span className="muted admin-pick-sname">{problem.sname}</span> : null}
                </label>
              </li>
            ))}
          </ul>
        )}
        {total !== undefined && rows !== undefined && rows.length < total ? (
          <Button size="sm" variant="outline" loading={query.isFetching} onClick={() => setShown((count) => count + PAGE)}>
            แสดงเพิ่ม (อีก {(total - rows.length).toLocaleString('th-TH')} ข้อ)
          </Button>
        ) : null}
      </div>
    </Dialog>
  );
}
