/**
 * A contest's participants (from its scoreboard, which admins always see) and signing a user up: search
 * the accounts, then "ลงทะเบียน" (POST /contest/:id/signup; again is harmless).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { contestContract } from '@otog/schemas/api/contest';
import { userContract } from '@otog/schemas/api/user';
import { Button } from '../../components/ui/Button.tsx';
import { PlusIcon } from '../../components/ui/icons.tsx';
import { Spinner } from '../../components/ui/Spinner.tsx';
import { callApi, errorMessage } from '../../lib/api.ts';
import { apiQuery, invalidatePaths } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import { SearchBox } from './list.tsx';

const MATCHES = 5;

export function ContestParticipants({ contestId }: { contestId: number }) {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const board = useQuery(apiQuery(contestContract.getContestScoreboard, { params: { contestId } }));
  const matches = useQuery({
    ...apiQuery(userContract.adminList, { query: { skip: 0, limit: MATCHES, search: search.trim() } }),
    enabled: search.trim() !== '',
  });
  const signedUp = new Set(board.data?.contest.userContest.map((row) => row.userId));
  const signUp = useMutation({
    mutationFn: (user: { id: number; showName: string }) =>
      toast.promise(callApi(contestContract.contestSignUp, { params: { contestId }, body: { userId: user.id } }), {
        loading: 'กำลังลงทะเบียน...',
        success: `ลงทะเบียน ${user.showName} แล้ว`,
        error: (error) => errorMessage(error, 'ลงทะเบียนไม่สำเร็จ'),
      }),
    onSettled: () => invalidatePaths(queryClient, '/contest'),
  });

  // Scoreboard rows are the role-user participants; admins who signed up count in userContest only.
  const participants = board.data?.userContest ?? [];
  const count = board.data?.contest.userContest.length;
  return (
    <div className="stack">
      <div className="card stack admin-signup">
        <h3 className="card-title">ลงทะเบียนผู้เข้าแข่งขัน</h3>
        <SearchBox value={search} onChange={setSearch} label="ค้นหาผู้ใช้ด้วยเลขผู้ใช้ ชื่อผู้ใช้ หรือชื่อที่แสดง" />
        {search.trim() === '' ? (
          <p className="muted admin-signup-hint">พิมพ์ชื่อเพื่อค้นหาผู้ใช้ที่จะลงทะเบียน</p>
        ) : matches.data === undefined ? (
          matches.isError ? (
            <p className="admin-error-text" role="alert">
              ค้นหาผู้ใช้ไม่สำเร็จ: {errorMessage(matches.error)}
            </p>
          ) : (
            <Spinner label="กำลังค้นหา..." />
          )
        ) : matches.data.data.length === 0 ? (
          <p className="muted">ไม่พบผู้ใช้ที่ตรงกับ “{search}”</p>
        ) : (
          <ul className="admin-pick-list" aria-label="ผลการค้นหาผู้ใช้">
            {matches.data.data.map((user) => (
              <li key={user.id} className="admin-pick">
                <span className="admin-pick-id">#{user.id}</span>
                <span className="admin-pick-name">
                  {user.showName} <span className="muted">({user.username})</span>
                </span>
                {signedUp.has(user.id) ? (
                  <span className="muted admin-nowrap">ลงทะเบียนแล้ว</span>
                ) : (
                  <Button
                    size="sm"
                    variant="outline"
                    icon={<PlusIcon width={14} height={14} />}
                    loading={signUp.isPending && signUp.variables.id === user.id}
                    onClick={() => signUp.mutate(user)}
                  >
                    ลงทะเบียน<span className="sr-only"> {user.showName}</span>
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      <h3 className="admin-section-title">ผู้เข้าแข่งขัน{count === undefined ? '' : ` (${count.toLocaleString('th-TH')} คน)`}</h3>
      {board.data === undefined ? (
        board.isError ? (
          <p className="admin-error-text" role="alert">
            โหลดรายชื่อผู้เข้าแข่งขันไม่สำเร็จ: {errorMessage(board.error)}
          </p>
        ) : (
          <Spinner />
        )
      ) : participants.length === 0 ? (
        <p className="muted">{count ? 'มีเฉพาะผู้ดูแลระบบที่ลงทะเบียนไว้' : 'ยังไม่มีผู้เข้าแข่งขัน'}</p>
      ) : (
        <ul className="admin-participants">
          {participants.map((row) => (
            <li key={row.userId}>
              <Link to={`/user/${row.userId}`}>{row.user.showName}</Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
