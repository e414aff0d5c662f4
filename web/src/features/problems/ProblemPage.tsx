/**
 * /problem/:problemId: the problem's name, then the tabs โจทย์ / เขียนโค้ด / ผลตรวจ kept in `?tab=`.
 * Signed-out visitors get the statement only (and a way to sign in to submit); a missing or hidden
 * problem reads "ไม่พบโจทย์".
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { problemContract } from '@otog/schemas/api/problem';
import { Button, ButtonLink } from '../../components/ui/Button.tsx';
import { Empty } from '../../components/ui/Empty.tsx';
import { EyeOffIcon } from '../../components/ui/icons.tsx';
import { PageLoading } from '../../components/ui/Spinner.tsx';
import { TabPanel, Tabs, type TabItem } from '../../components/ui/Tabs.tsx';
import { ApiError, errorMessage } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { useSession } from '../../lib/session.tsx';
import { EditorTab, type Draft } from '../../components/problem/EditorTab.tsx';
import { StatementTab } from '../../components/problem/StatementTab.tsx';
import { SubmissionsTab } from '../../components/problem/SubmissionsTab.tsx';
import '../../components/problem/problem.css';

type Tab = 'problem' | 'editor' | 'submissions';
const TABS: ReadonlyArray<TabItem<Tab>> = [
  { id: 'problem', label: 'โจทย์' },
  { id: 'editor', label: 'เขียนโค้ด' },
  { id: 'submissions', label: 'ผลตรวจ' },
];
const isTab = (value: string | null): value is Tab => value === 'problem' || value === 'editor' || value === 'submissions';

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
  const { user, isAuthenticated, isAdmin } = useSession();
  const [searchParams, setSearchParams] = useSearchParams();
  const [draft, setDraft] = useState<Draft | null>(null);
  const problem = useQuery({ ...apiQuery(problemContract.getProblem, { params: { problemId } }), enabled: valid });
  usePageTitle(problem.data?.name ?? (problem.isError || !valid ? 'ไม่พบโจทย์' : 'โจทย์'));

  const asked = searchParams.get('tab');
  const tab: Tab = isAuthenticated && isTab(asked) ? asked : 'problem';
  const selectTab = useCallback(
    (next: Tab) =>
      setSearchParams(
        (current) => {
          const params = new URLSearchParams(current);
          params.set('tab', next);
          return params;
        },
        { replace: true },
      ),
    [setSearchParams],
  );

  if (!valid) return <NotFound />;
  if (problem.isPending) return <PageLoading />;
  if (problem.isError) {
    if (problem.error instanceof ApiError && (problem.error.status === 404 || problem.error.status === 403)) return <NotFound />;
    return (
      <section className="page">
        <Empty tone="error">
          <p>{errorMessage(problem.error, 'โหลดโจทย์ไม่สำเร็จ กรุณาลองใหม่อีกครั้ง')}</p>
          <Button onClick={() => void problem.refetch()}>ลองใหม่</Button>
        </Empty>
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

      {isAuthenticated ? <Tabs items={TABS} selected={tab} onSelect={selectTab} label={`แท็บของโจทย์ ${data.name}`} /> : null}
      {tab === 'problem' ? (
        isAuthenticated ? (
          <TabPanel id="problem">
            <StatementTab problem={data} isAdmin={isAdmin} />
          </TabPanel>
        ) : (
          <StatementTab problem={data} isAdmin={false} />
        )
      ) : null}
      {tab === 'editor' ? (
        <TabPanel id="editor">
          <EditorTab problem={data} draft={draft} onDraft={setDraft} onSubmitted={() => selectTab('submissions')} />
        </TabPanel>
      ) : null}
      {tab === 'submissions' && user ? (
        <TabPanel id="submissions">
          <SubmissionsTab problem={data} userId={user.id} onWrite={() => selectTab('editor')} />
        </TabPanel>
      ) : null}
    </section>
  );
}
