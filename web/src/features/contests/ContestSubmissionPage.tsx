/** /contest/{id}/submission (admins): every submission of the contest, searchable by problem and by user. */
import { useState } from 'react';
import { submissionContract } from '@otog/schemas/api/submission';
import type { Contest } from '@otog/schemas/api/contest';
import { SubmissionTable, useSubmissionPages } from '../../components/submission/SubmissionTable.tsx';
import { SearchInput } from '../../components/ui/SearchInput.tsx';
import { usePageTitle } from '../../lib/page-title.ts';
import { useDebounced } from '../../lib/use-debounced.ts';

export function ContestSubmissionPage({ contest }: { contest: Contest }) {
  usePageTitle(`การส่งทั้งหมด ${contest.name}`);
  const [problemText, setProblemText] = useState('');
  const [userText, setUserText] = useState('');
  const problemSearch = useDebounced(problemText.trim());
  const userSearch = useDebounced(userText.trim());
  const pages = useSubmissionPages(submissionContract.getContestSubmissionsForAdmin, {
    params: { contestId: contest.id },
    query: { problemSearch: problemSearch || undefined, userSearch: userSearch || undefined },
  });
  const searching = Boolean(problemSearch || userSearch);
  return (
    <section className="page">
      <h1 className="page-title">การส่งทั้งหมดในการแข่งขัน</h1>
      <div className="row contest-submission-filters">
        <SearchInput className="contest-search" label="ค้นหาชื่อโจทย์" placeholder="ค้นหาโจทย์" value={problemText} onChange={setProblemText} />
        <SearchInput className="contest-search" label="ค้นหาชื่อผู้ใช้" placeholder="ค้นหาผู้ใช้" value={userText} onChange={setUserText} />
      </div>
      <SubmissionTable
        submissions={pages.data?.pages.flat() ?? []}
        loading={pages.isPending}
        error={pages.error}
        hasMore={pages.hasNextPage}
        loadingMore={pages.isFetchingNextPage}
        onLoadMore={() => void pages.fetchNextPage()}
        label={`การส่งทั้งหมดใน ${contest.name}`}
        emptyText={searching ? 'ไม่พบการส่งที่ค้นหา' : 'ยังไม่มีการส่งในการแข่งขันนี้'}
      />
    </section>
  );
}
