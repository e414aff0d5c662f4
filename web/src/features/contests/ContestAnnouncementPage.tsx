/** /contest/{id}/announcement: the contest's shown announcements, newest first; admins get a link to manage them. */
import { useQuery } from '@tanstack/react-query';
import { announcementContract } from '@otog/schemas/api/announcement';
import type { Contest } from '@otog/schemas/api/contest';
import { RichText } from '../../components/problem/RichText.tsx';
import { ButtonLink } from '../../components/ui/Button.tsx';
import { Empty, LoadFailed } from '../../components/ui/Empty.tsx';
import { PageLoading } from '../../components/ui/Spinner.tsx';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { useSession } from '../../lib/session.tsx';

export function ContestAnnouncementPage({ contest }: { contest: Contest }) {
  usePageTitle(`ประกาศ ${contest.name}`);
  const { isAdmin } = useSession();
  // Admins see what contestants see here; hidden ones are managed on the admin page.
  const announcements = useQuery(apiQuery(announcementContract.getAnnouncements, { query: { contestId: contest.id, show: true } }));
  const shown = (announcements.data ?? []).filter((announcement) => announcement.show);
  return (
    <section className="page">
      <div className="row-between">
        <h1 className="page-title">ประกาศ</h1>
        {isAdmin ? (
          <ButtonLink to={`/admin/contest/${contest.id}`} variant="outline">
            จัดการประกาศ
          </ButtonLink>
        ) : null}
      </div>
      {announcements.isPending ? (
        <PageLoading />
      ) : announcements.isError ? (
        <LoadFailed error={announcements.error} fallback='โหลดประกาศไม่สำเร็จ กรุณาลองใหม่อีกครั้ง' onRetry={() => void announcements.refetch()} />
      ) : shown.length === 0 ? (
        <Empty>
          <p>ยังไม่มีประกาศ</p>
        </Empty>
      ) : (
        <ol className="contest-announcements" aria-label={`ประกาศของ ${contest.name}`}>
          {shown.map((announcement) => (
            <li key={announcement.id} className="card contest-announcement" data-announcement-id={announcement.id}>
              <RichText value={announcement.value} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
