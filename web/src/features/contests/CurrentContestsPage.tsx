import { usePageTitle } from '../../lib/page-title.ts';

/** /contest: the running and upcoming contests (placeholder until the contest pages land). */
export default function CurrentContestsPage() {
  usePageTitle('แข่งขัน');
  return (
    <section className="page page-narrow center-text">
      <h1 className="page-title">ยังไม่มีการแข่งขัน</h1>
    </section>
  );
}
