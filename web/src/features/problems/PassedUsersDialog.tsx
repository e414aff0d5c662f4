/** "ผู้ที่ผ่านข้อ {name}": the users who passed a problem, with their avatars and profile links (admins: their passing submission too). */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { problemContract } from '@otog/schemas/api/problem';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { Empty } from '../../components/ui/Empty.tsx';
import { Spinner } from '../../components/ui/Spinner.tsx';
import { UserAvatar } from '../../components/UserAvatar.tsx';
import { errorMessage } from '../../lib/api.ts';
import { apiQuery } from '../../lib/query.ts';
import { useSession } from '../../lib/session.tsx';

export function PassedUsersDialog({ problem, onClose }: { problem: { id: number; name: string }; onClose(): void }) {
  const { isAdmin } = useSession();
  const users = useQuery(apiQuery(problemContract.passedUsers, { params: { problemId: problem.id } }));
  return (
    <Dialog open onClose={onClose} title={`ผู้ที่ผ่านข้อ ${problem.name}`} size="sm">
      {users.isPending ? (
        <div className="dialog-loading">
          <Spinner />
        </div>
      ) : users.isError ? (
        <Empty tone="error">{errorMessage(users.error, 'โหลดรายชื่อผู้ที่ผ่านไม่สำเร็จ')}</Empty>
      ) : users.data.length === 0 ? (
        <Empty>ยังไม่มีผู้ที่ผ่านข้อนี้</Empty>
      ) : (
        <>
          <p className="muted passed-total">ผ่านแล้ว {users.data.length.toLocaleString('th-TH')} คน</p>
          <ul className="passed-list">
            {users.data.map((user) => (
              <li key={user.id} className="passed-item">
                <UserAvatar userId={user.id} name={user.showName} size="sm" />
                <Link to={`/user/${user.id}`} className="passed-name" onClick={onClose}>
                  {user.showName}
                </Link>
                {isAdmin ? (
                  <Link to={`/submission/${user.passedSubmission.id}`} className="passed-submission" onClick={onClose}>
                    ดูการส่ง #{user.passedSubmission.id}
                  </Link>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      )}
    </Dialog>
  );
}
