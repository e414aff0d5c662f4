/**
 * OTOG's submission table ("ผลตรวจ"), shared by /submission and the profile: newest first, loaded in pages
 * by cursor (the last id seen) as the reader scrolls, pending rows updating themselves, and a details
 * dialog with the full result for the rows the reader may open (own, admin, or shared). On a phone each
 * row becomes a small card (submission.css) that starts with the verdict and the score.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { SUBMISSION_PAGE_DEFAULT, submissionContract, type Submission } from '@otog/schemas/api/submission';
import { callApi, errorMessage } from '../../lib/api.ts';
import { config } from '../../lib/config.ts';
import { formatSeconds, formatShortDateTime } from '../../lib/dates.ts';
import { apiKey } from '../../lib/query.ts';
import { useSession } from '../../lib/session.tsx';
import { Button, IconButton } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { CodeIcon, ExternalIcon } from '../ui/icons.tsx';
import { UserAvatar } from '../UserAvatar.tsx';
import { LANGUAGE_LABEL } from '../../lib/languages.ts';
import { SubmissionDetailView } from './SubmissionDetail.tsx';
import { ScoreBadge, VerdictLabel } from './SubmissionStatus.tsx';
import { useSettledSubmission } from './polling.ts';
import './submission.css';

type PagedContract =
  | typeof submissionContract.getSubmissions
  | typeof submissionContract.getSubmissionsByUserId
  | typeof submissionContract.getSubmissionsByUserIdAndProblemId
  | typeof submissionContract.getContestSubmissions
  | typeof submissionContract.getContestSubmissionsForAdmin;
type Query = Readonly<Record<string, string | number | undefined>>;

/**
 * Pages of a submission list (newest first): `offset` = the last id of the previous page; a short page is
 * the last one. `pageSize` is sent as `limit` when it is not the server's default.
 */
export function useSubmissionPages(
  contract: PagedContract,
  input: { params?: Readonly<Record<string, number>>; query?: Query } = {},
  pageSize = SUBMISSION_PAGE_DEFAULT,
) {
  const limit = pageSize === SUBMISSION_PAGE_DEFAULT ? undefined : pageSize;
  return useInfiniteQuery({
    queryKey: [...apiKey(contract, input), 'pages'],
    queryFn: async ({ pageParam, signal }) =>
      (await callApi(contract, { ...input, query: { ...input.query, limit, offset: pageParam }, signal })) as Submission[],
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => (last.length < pageSize ? undefined : last.at(-1)?.id),
  });
}

export interface SubmissionTableProps {
  submissions: readonly Submission[];
  /** The first page is loading: placeholder rows keep the layout still. */
  loading?: boolean;
  error?: unknown;
  hasMore?: boolean;
  loadingMore?: boolean;
  onLoadMore?(): void;
  /** Accessible name of the table. */
  label?: string;
  emptyText?: string;
}

const PLACEHOLDER_ROWS = 8;
const COLUMNS = 7;

export function SubmissionTable({ submissions, loading, error, hasMore, loadingMore, onLoadMore, label = 'ผลตรวจ', emptyText = 'ยังไม่มีผลตรวจ' }: SubmissionTableProps) {
  const [openRow, setOpenRow] = useState<Submission | null>(null);
  return (
    <div className="stack submission-table">
      <div className="table-wrap">
        <table className="table" aria-label={label} aria-busy={loading || undefined}>
          <thead>
            <tr>
              <th scope="col">ส่งเมื่อ</th>
              <th scope="col">ชื่อ</th>
              <th scope="col">โจทย์</th>
              <th scope="col">ผลตรวจ</th>
              <th scope="col" className="num">เวลาที่ใช้ (วินาที)</th>
              <th scope="col">ภาษา</th>
              <th scope="col">
                <span className="sr-only">รายละเอียด</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {loading
              ? Array.from({ length: PLACEHOLDER_ROWS }, (_, index) => (
                  <tr key={index} className="placeholder-row" aria-hidden>
                    {Array.from({ length: COLUMNS }, (_, cell) => (
                      <td key={cell}>
                        <span className="placeholder-bar" />
                      </td>
                    ))}
                  </tr>
                ))
              : submissions.map((submission) => <Row key={submission.id} submission={submission} onOpen={setOpenRow} />)}
            {!loading && !error && submissions.length === 0 ? (
              <tr>
                <td colSpan={COLUMNS} className="center-text muted table-empty">
                  {emptyText}
                </td>
              </tr>
            ) : null}
            {error ? (
              <tr>
                <td colSpan={COLUMNS} className="center-text table-error" role="alert">
                  {errorMessage(error)}
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      {onLoadMore ? <LoadMore hasMore={Boolean(hasMore)} loading={Boolean(loadingMore)} onLoadMore={onLoadMore} /> : null}
      <Dialog
        open={openRow !== null}
        onClose={() => setOpenRow(null)}
        size="xl"
        title={openRow ? `ผลตรวจข้อ ${openRow.problem.name}` : ''}
        actions={
          openRow ? (
            <a href={`/submission/${openRow.id}`} target="_blank" rel="noreferrer" className="btn btn-ghost btn-sm">
              <ExternalIcon width={14} height={14} />
              เปิดในแท็บใหม่
            </a>
          ) : null
        }
      >
        {openRow ? <SubmissionDetailView submissionId={openRow.id} /> : null}
      </Dialog>
    </div>
  );
}

function Row({ submission: row, onOpen }: { submission: Submission; onOpen(submission: Submission): void }) {
  const { user, isAdmin } = useSession();
  const submission = useSettledSubmission(row);
  const canOpen = isAdmin || submission.public || (user !== null && user.id === submission.userId);
  const result = submission.submissionResult;
  return (
    <tr className="submission-row">
      <td className="nowrap submission-when">
        <time dateTime={submission.creationDate}>{formatShortDateTime(submission.creationDate)}</time>
      </td>
      <td className="submission-by">
        <span className="row nowrap submission-user-cell">
          <UserAvatar userId={submission.user.id} name={submission.user.showName} size="sm" />
          {config.offline ? (
            <span className="truncate">{submission.user.showName}</span>
          ) : (
            <Link to={`/user/${submission.user.id}`} className="truncate">
              {submission.user.showName}
            </Link>
          )}
        </span>
      </td>
      <td className="submission-problem">
        <Link to={`/problem/${submission.problem.id}`} className="problem-cell">
          {submission.problem.name}
        </Link>
      </td>
      <td className="submission-verdict">
        <span className="verdict-cell">
          <VerdictLabel submission={submission} />
          <ScoreBadge submission={submission} />
        </span>
      </td>
      <td className="num submission-time">
        {result ? formatSeconds(result.timeUsed) : '-'}
        <span className="submission-time-unit"> วินาที</span>
      </td>
      <td className="nowrap submission-language">{LANGUAGE_LABEL[submission.language]}</td>
      <td className="submission-details">
        <IconButton
          label={canOpen ? `ดูรายละเอียดผลตรวจ #${submission.id}` : 'ไม่มีสิทธิ์ดูรายละเอียด'}
          size="sm"
          disabled={!canOpen}
          onClick={() => onOpen(submission)}
        >
          <CodeIcon />
        </IconButton>
      </td>
    </tr>
  );
}

/** "โหลดเพิ่ม", pressed by itself when it scrolls into view (the button stays for when no observer fires). */
export function LoadMore({ hasMore, loading, onLoadMore }: { hasMore: boolean; loading: boolean; onLoadMore(): void }) {
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = sentinel.current;
    if (!element || !hasMore || loading || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) onLoadMore();
    }, { rootMargin: '400px 0px' });
    observer.observe(element);
    return () => observer.disconnect();
  }, [hasMore, loading, onLoadMore]);
  if (!hasMore) return null;
  return (
    <div ref={sentinel} className="load-more">
      <Button variant="outline" loading={loading} onClick={onLoadMore}>
        โหลดเพิ่ม
      </Button>
    </div>
  );
}
