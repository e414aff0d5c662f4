import { usePageTitle } from '../../lib/page-title.ts';

/** The contest section: the contest API arrives with the contest issue; until then there is none to list. */
export default function ContestPage() {
  usePageTitle('แข่งขัน');
  return (
    <section className="page page-narrow center-text">
      <h1 className="page-title">ยังไม่มีการแข่งขัน</h1>
      <p className="muted">เมื่อมีการแข่งขันที่กำลังจะเริ่มหรือกำลังแข่งอยู่ จะแสดงที่หน้านี้</p>
    </section>
  );
}
