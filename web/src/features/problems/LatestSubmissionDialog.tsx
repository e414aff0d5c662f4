/**
 * "การส่งล่าสุด": the caller's latest submission of a problem in full (status, score, subtasks, code). The
 * detail view (with its code highlighter) loads only when the dialog first opens, so it stays out of the
 * problem table's bundle.
 */
import { lazy, Suspense } from 'react';
import { Link } from 'react-router';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { ExternalIcon } from '../../components/ui/icons.tsx';
import { Spinner } from '../../components/ui/Spinner.tsx';

const SubmissionDetailView = lazy(() => import('../../components/submission/SubmissionDetail.tsx').then((module) => ({ default: module.SubmissionDetailView })));

export function LatestSubmissionDialog({ submissionId, onClose }: { submissionId: number; onClose(): void }) {
  return (
    <Dialog
      open
      onClose={onClose}
      title="การส่งล่าสุด"
      size="lg"
      actions={
        <Link to={`/submission/${submissionId}`} className="btn btn-ghost btn-sm" target="_blank" rel="noreferrer" title="เปิดในแท็บใหม่" aria-label="เปิดในแท็บใหม่">
          <ExternalIcon />
          <span className="only-large">เปิดในแท็บใหม่</span>
        </Link>
      }
    >
      <Suspense
        fallback={
          <div className="dialog-loading">
            <Spinner />
          </div>
        }
      >
        <SubmissionDetailView submissionId={submissionId} />
      </Suspense>
    </Dialog>
  );
}
