/**
 * /problem/:problemId: the problem's name, then the tabs โจทย์ / เขียนโค้ด / ผลตรวจ kept in `?tab=`.
 * Signed-out visitors get the statement only (and a way to sign in to submit); a missing or hidden
 * problem reads "ไม่พบโจทย์".
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { problemContract } from '@otog/schemas/api/problem';
import { ButtonLink } from '../../components/ui/Button.tsx';
import { Empty, LoadFailed } from '../../components/ui/Empty.tsx';
import { EyeOffIcon } from '../../components/ui/icons.tsx';
import { PageLoading } from '../../components/ui/Spinner.tsx';
import { ApiError } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { useSession } from '../../lib/session.tsx';
import { ProblemTabs } from '../../components/problem/ProblemTabs.tsx';
import '../../components/problem/problem.css';

function NotFound() {
  return (
    <section className="page">
      <h1 className="page-title">ไม่พบโจทย์</h1>
      <Empty>
        <p>ไม่พบโจทย์ที่ต้องการ โจทย์นี้อาจถูกลบหรือยังไม่เปิดให้ทำ</p>
        <Link to="/problem">กลับไปหน้ารวมโจทย์</Link>
      </Empty>
    </section>
  );
}

export default function ProblemPage() {
  const { problemId } = useParams();
  // Another problem is another page: its editor draft and tabs start afresh.
  return <ProblemView key={problemId} raw={problemId} />;
}

function ProblemView({ raw }: { raw: string | undefined }) {
  const problemId = Number(raw);
  const valid = Number.isSafeInteger(problemId) && problemId > 0 && String(problemId) === raw;
  const { isAuthenticated } = useSession();
  const problem = useQuery({ ...apiQuery(problemContract.getProblem, { params: { problemId } }), enabled: valid });
  usePageTitle(problem.data?.name ?? (problem.isError || !valid ? 'ไม่พบโจทย์' : 'โจทย์'));

  if (!valid) return <NotFound />;
  if (problem.isPending) return <PageLoading />;
  if (problem.isError) {
    if (problem.error instanceof ApiError && (problem.error.status === 404 || problem.error.status === 403)) return <NotFound />;
    return (
      <section className="page">
        <LoadFailed error={problem.error} fallback='โหลดโจทย์ไม่สำเร็จ กรุณาลองใหม่อีกครั้ง' onRetry={() => void problem.refetch()} />
      </section>
    );
  }
  const data = problem.data;

  return (
    <section className="page problem-page">
      <header className="row-between problem-header">
        <div className="problem-heading">
          <p className="muted problem-kicker">
            <Link to="/problem">โจทย์</Link> / ข้อ {data.id}
          </p>
          <h1 className="page-title">
            {data.name}
            {data.show ? null : (
              <span className="badge badge-gray problem-hidden-badge">
                <EyeOffIcon width={13} height={13} />
                ปิดอยู่
              </span>
            )}
          </h1>
        </div>
        {isAuthenticated ? null : (
          <ButtonLink to="/login" variant="primary">
            เข้าสู่ระบบเพื่อส่ง
          </ButtonLink>
        )}
      </header>

      <ProblemTabs problem={data} />
    </section>
  );
}
