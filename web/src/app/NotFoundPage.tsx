import { ButtonLink } from '../components/ui/Button.tsx';
import { usePageTitle } from '../lib/page-title.ts';

export function NotFoundPage() {
  usePageTitle('ไม่พบหน้านี้');
  return (
    <section className="page page-narrow center-text">
      <h1 className="page-title">ไม่พบหน้าที่คุณต้องการ</h1>
      <p className="muted">ลิงก์อาจไม่ถูกต้อง หรือหน้านี้ถูกลบไปแล้ว</p>
      <ButtonLink to="/" variant="primary">
        กลับหน้าแรก
      </ButtonLink>
    </section>
  );
}
