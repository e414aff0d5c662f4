/**
 * /submission: the signed-in user's latest submission ("ส่งข้อล่าสุด", with a quick re-submit), then the
 * table "ผลตรวจ": only your own unless "เฉพาะคุณ" is off (`?all=`, on by default for users, off for admins;
 * everyone's for signed-out readers), searchable by problem name, loaded as you scroll.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { submissionContract, type SubmissionDetail } from '@otog/schemas/api/submission';
import { SubmissionTable, useSubmissionPages } from '../../components/submission/SubmissionTable.tsx';
import { SubmissionStatusBadge } from '../../components/submission/SubmissionStatus.tsx';
import { useSettledSubmission } from '../../components/submission/polling.ts';
import { SubmitDialog } from '../../components/submit/SubmitDialog.tsx';
import { Button } from '../../components/ui/Button.tsx';
import { UploadIcon } from '../../components/ui/icons.tsx';
import { SearchInput } from '../../components/ui/SearchInput.tsx';
import { useDebounced } from '../../lib/use-debounced.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { useSession } from '../../lib/session.tsx';
import './submissions.css';

export default function SubmissionListPage() {
  usePageTitle('ผลตรวจ');
  const { user, isAdmin } = useSession();
  const [searchParams, setSearchParams] = useSearchParams();
  const allParam = searchParams.get('all');
  const all = user === null || (allParam === null ? isAdmin : allParam === 'true');
  const [search, setSearch] = useState('');
  const problemSearch = useDebounced(search.trim());

  const pages = useSubmissionPages(submissionContract.getSubmissions, {
    query: { userId: all ? undefined : user?.id, problemSearch: problemSearch || undefined },
  });
  const submissions = pages.data?.pages.flat() ?? [];

  const setOnlyMine = (onlyMine: boolean) =>
    setSearchParams(
      (params) => {
        const next = new URLSearchParams(params);
        next.set('all', String(!onlyMine));
        return next;
      },
      { replace: true },
    );

  return (
    <section className="page">
      <h1 className="sr-only">ผลตรวจ</h1>
      {user ? <LatestSubmission /> : null}
      <div className="stack">
        <div className="row-between submission-toolbar">
          <h2 className="section-title">ผลตรวจ</h2>
          <div className="row submission-filters">
            {user ? (
              <label className="switch">
                <input type="checkbox" role="switch" checked={!all} onChange={(event) => setOnlyMine(event.target.checked)} />
                <span className="switch-track" aria-hidden />
                <span>เฉพาะคุณ</span>
              </label>
            ) : null}
            <SearchInput className="search-field" label="ค้นหาโจทย์" placeholder="ค้นหาโจทย์" value={search} onChange={setSearch} />
          </div>
        </div>
        <SubmissionTable
          submissions={submissions}
          loading={pages.isPending}
          error={pages.error}
          hasMore={pages.hasNextPage}
          loadingMore={pages.isFetchingNextPage}
          onLoadMore={() => void pages.fetchNextPage()}
          emptyText={problemSearch ? 'ไม่พบผลตรวจของโจทย์ที่ค้นหา' : 'ยังไม่มีผลตรวจ'}
        />
      </div>
    </section>
  );
}

function LatestSubmission() {
  const { data, isPending } = useQuery(apiQuery(submissionContract.getLatestSubmissionByUserId));
  const latest = data?.submission ?? null;
  if (isPending) return <div className="card latest-card latest-card-loading" aria-hidden />;
  if (!latest) return null;
  return <LatestCard submission={latest} />;
}

function LatestCard({ submission: latest }: { submission: SubmissionDetail }) {
  const submission = useSettledSubmission(latest);
  const [open, setOpen] = useState(false);
  const { problem } = submission;
  return (
    <div className="card latest-card">
      <h2 className="card-title">ส่งข้อล่าสุด</h2>
      <div className="row-between">
        <p className="latest-problem">
          <Link to={`/problem/${problem.id}`}>{problem.name}</Link>{' '}
          <span className="muted nowrap">
            ({problem.timeLimit / 1000} วินาที {problem.memoryLimit} MB)
          </span>
        </p>
        <div className="row">
          <Link to={`/submission/${submission.id}`} className="latest-status" aria-label={`ดูผลตรวจล่าสุด #${submission.id}`}>
            <SubmissionStatusBadge status={submission.status} />
          </Link>
          <Button variant="primary" size="sm" icon={<UploadIcon width={16} height={16} />} onClick={() => setOpen(true)}>
            ส่งใหม่
          </Button>
        </div>
      </div>
      <SubmitDialog problem={{ id: problem.id, name: problem.name }} open={open} onClose={() => setOpen(false)} />
    </div>
  );
}
