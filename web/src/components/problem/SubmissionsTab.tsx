/**
 * The submissions tab: the caller's submissions of this problem (in a contest: those made in it), newest
 * first, ten at a time (the cursor is the last id seen), more as the end scrolls into view or on "โหลดเพิ่ม".
 * Rows still waiting or being graded follow their verdict live.
 */
import { Link } from 'react-router';
import type { Problem } from '@otog/schemas/api/problem';
import { PROBLEM_SUBMISSION_PAGE_DEFAULT, submissionContract, type Submission } from '@otog/schemas/api/submission';
import { VerdictLabel } from '../submission/SubmissionStatus.tsx';
import { LoadMore, useSubmissionPages } from '../submission/SubmissionTable.tsx';
import { Button } from '../ui/Button.tsx';
import { Empty, LoadFailed } from '../ui/Empty.tsx';
import { Spinner } from '../ui/Spinner.tsx';
import { formatDateTime, formatSeconds, formatShortDateTime } from '../../lib/dates.ts';
import { useSettlingSubmission } from './useSettlingSubmission.ts';
import './problem.css';

const PAGE = PROBLEM_SUBMISSION_PAGE_DEFAULT;

function SubmissionRow({ row, fullScore }: { row: Submission; fullScore: number }) {
  const current = useSettlingSubmission(row);
  const result = current.submissionResult;
  return (
    <tr data-submission-id={current.id} data-status={current.status}>
      <td className="nowrap">
        <time dateTime={current.creationDate} title={formatDateTime(current.creationDate)}>
          {formatShortDateTime(current.creationDate)}
        </time>
      </td>
      <td>
        <span className="score-cell">
          <VerdictLabel submission={current} />
          <span className="score-text">{result ? `${result.score} / ${fullScore}` : `- / ${fullScore}`}</span>
        </span>
      </td>
      <td className="num">{result ? formatSeconds(result.timeUsed) : '-'}</td>
      <td className="num">{result && result.memUsed >= 0 ? result.memUsed.toLocaleString('th-TH') : '-'}</td>
      <td className="center-text">
        <Link to={`/submission/${current.id}`} className="btn btn-ghost btn-sm" aria-label={`รายละเอียดการส่ง #${current.id}`}>
          รายละเอียด
        </Link>
      </td>
    </tr>
  );
}

export function SubmissionsTab({ problem, userId, contestId, onWrite }: { problem: Problem; userId: number; contestId?: number; onWrite(): void }) {
  const submissions = useSubmissionPages(
    contestId === undefined ? submissionContract.getSubmissionsByUserIdAndProblemId : submissionContract.getContestSubmissions,
    contestId === undefined ? { params: { userId, problemId: problem.id } } : { params: { contestId }, query: { userId, problemId: problem.id } },
    PAGE,
  );
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = submissions;

  if (submissions.isPending) {
    return (
      <div className="tab-loading">
        <Spinner />
      </div>
    );
  }
  if (submissions.isError) {
    return (
      <LoadFailed error={submissions.error} fallback='โหลดผลตรวจไม่สำเร็จ กรุณาลองใหม่อีกครั้ง' onRetry={() => void submissions.refetch()} />
    );
  }
  const rows = submissions.data.pages.flat();
  if (rows.length === 0) {
    return (
      <Empty>
        <p>ยังไม่มีการส่งข้อนี้</p>
        <Button variant="primary" onClick={onWrite}>
          เขียนโค้ด
        </Button>
      </Empty>
    );
  }
  return (
    <div className="stack">
      <div className="table-wrap">
        <table className="table problem-submissions" aria-label={`ผลตรวจข้อ ${problem.name}`}>
          <colgroup>
            <col className="col-when" />
            <col className="col-score" />
            <col className="col-time" />
            <col className="col-memory" />
            <col className="col-details" />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">ส่งเมื่อ</th>
              <th scope="col">คะแนน</th>
              <th scope="col" className="num">
                เวลาที่ใช้ (วินาที)
              </th>
              <th scope="col" className="num">
                ความจำที่ใช้ (kB)
              </th>
              <th scope="col">
                <span className="sr-only">รายละเอียด</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <SubmissionRow key={row.id} row={row} fullScore={problem.score} />
            ))}
          </tbody>
        </table>
      </div>
      <LoadMore hasMore={hasNextPage} loading={isFetchingNextPage} onLoadMore={() => void fetchNextPage()} />
    </div>
  );
}
