import { usePageTitle } from '../../lib/page-title.ts';

/** /contest/history: every contest, a page at a time (placeholder until the contest pages land). */
export default function ContestHistoryPage() {
  usePageTitle('ประวัติการแข่งขัน');
  return (
    <section className="page">
      <h1 className="page-title">ประวัติการแข่งขัน</h1>
    </section>
  );
}
