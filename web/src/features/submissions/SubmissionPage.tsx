/** /submission/{id}: one submission's full result and code, in a card titled by its problem. */
import { Link, useParams } from 'react-router';
import { SubmissionDetailView, useSubmissionDetail } from '../../components/submission/SubmissionDetail.tsx';
import { Empty } from '../../components/ui/Empty.tsx';
import { ApiError } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import './submissions.css';

const parseId = (raw: string | undefined) => (raw && /^[1-9][0-9]{0,9}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : null);

export default function SubmissionPage() {
  const submissionId = parseId(useParams().submissionId);
  if (submissionId === null) return <NotFound />;
  return <Submission key={submissionId} submissionId={submissionId} />;
}

function NotFound() {
  usePageTitle('ไม่พบผลตรวจ');
  return (
    <section className="page">
      <h1 className="page-title">ผลตรวจ</h1>
      <Empty tone="error">ไม่พบผลตรวจนี้</Empty>
    </section>
  );
}

function Submission({ submissionId }: { submissionId: number }) {
  const { data, error } = useSubmissionDetail(submissionId);
  usePageTitle(data ? `ผลตรวจข้อ ${data.problem.name}` : `ผลตรวจ #${submissionId}`);
  if (error instanceof ApiError && error.status === 404) return <NotFound />;
  return (
    <section className="page">
      <div className="card submission-card">
        <h1 className="card-title submission-card-title">
          {data ? (
            <>
              ผลตรวจข้อ <Link to={`/problem/${data.problem.id}`}>{data.problem.name}</Link>
            </>
          ) : error ? (
            'ผลตรวจ'
          ) : (
            <span className="title-placeholder" aria-label="กำลังโหลด" />
          )}
          <span className="muted submission-card-id"> #{submissionId}</span>
        </h1>
        <SubmissionDetailView submissionId={submissionId} />
      </div>
    </section>
  );
}
