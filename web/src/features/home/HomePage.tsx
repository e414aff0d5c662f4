import { Navigate } from 'react-router';
import { ButtonLink } from '../../components/ui/Button.tsx';
import { config } from '../../lib/config.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { useSession } from '../../lib/session.tsx';
import './home.css';

/** The landing page; signed-in users go straight to the problems, an offline site to sign-in (as OTOG). */
export default function HomePage() {
  const { isAuthenticated } = useSession();
  usePageTitle(undefined);
  if (config.offline) return <Navigate to="/login" replace />;
  if (isAuthenticated) return <Navigate to="/problem" replace />;
  return (
    <section className="hero">
      <div className="hero-text">
        <h1 className="hero-title">
          ก้าวสู่การเป็น<span className="hero-accent">เทพแห่งการเขียนโปรแกรม</span>
        </h1>
        <p className="hero-lead">ฝึกเขียนโค้ดและออกแบบอัลกอริทึมให้มีประสิทธิภาพ กับโจทย์จากค่ายและการแข่งขันทั่วประเทศ ส่งคำตอบเป็นภาษา C, C++ หรือ Python แล้วรู้ผลตรวจทันที</p>
        <div className="row">
          <ButtonLink to="/register" variant="primary" size="lg">
            ลงทะเบียน
          </ButtonLink>
          <ButtonLink to="/login" variant="outline" size="lg">
            เข้าสู่ระบบ
          </ButtonLink>
        </div>
      </div>
      <pre className="hero-code" aria-hidden>
        {`#include <bits/stdc++.h>
using namespace std;

int main() {
  long long a, b;
  cin >> a >> b;
  cout << a + b << '\\n';
}`}
        <span className="hero-verdict">ผ่านแล้ว · PPPPPPPPPP · 100</span>
      </pre>
    </section>
  );
}
