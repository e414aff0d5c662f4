/** /contest/history: every contest (upcoming ones too), newest first, ten to a page (`?page=`). */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { CONTEST_PAGE_DEFAULT, contestContract } from '@otog/schemas/api/contest';
import { Button } from '../../components/ui/Button.tsx';
import { Empty, LoadFailed } from '../../components/ui/Empty.tsx';
import { PageLoading } from '../../components/ui/Spinner.tsx';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { ContestTable } from './ContestTable.tsx';
import './contests.css';

const PAGE_SIZE = CONTEST_PAGE_DEFAULT;

export default function ContestHistoryPage() {
  usePageTitle('ประวัติการแข่งขัน');
  const [searchParams, setSearchParams] = useSearchParams();
  const page = Math.max(1, Math.floor(Number(searchParams.get('page'))) || 1);
  const skip = (page - 1) * PAGE_SIZE;
  const contests = useQuery({ ...apiQuery(contestContract.listContest, { query: { skip, limit: PAGE_SIZE } }), placeholderData: keepPreviousData });
  const pages = contests.data ? Math.max(1, Math.ceil(contests.data.total / PAGE_SIZE)) : 1;
  const goTo = (next: number) => setSearchParams(next > 1 ? { page: String(next) } : {});

  return (
    <section className="page">
      <h1 className="page-title">ประวัติการแข่งขัน</h1>
      {contests.isPending ? (
        <PageLoading />
      ) : contests.isError ? (
        <LoadFailed error={contests.error} fallback='โหลดประวัติการแข่งขันไม่สำเร็จ กรุณาลองใหม่อีกครั้ง' onRetry={() => void contests.refetch()} />
      ) : contests.data.data.length === 0 ? (
        <Empty>
          <p>ยังไม่มีการแข่งขัน</p>
        </Empty>
      ) : (
        <>
          <ContestTable contests={contests.data.data} label="ประวัติการแข่งขัน" />
          <nav className="contest-pager" aria-label="หน้าของประวัติการแข่งขัน">
            <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => goTo(page - 1)}>
              ก่อนหน้า
            </Button>
            <span className="contest-pager-page" aria-live="polite">
              หน้า {page} / {pages}
            </span>
            <Button size="sm" variant="outline" disabled={page >= pages} onClick={() => goTo(page + 1)}>
              ถัดไป
            </Button>
          </nav>
        </>
      )}
    </section>
  );
}
