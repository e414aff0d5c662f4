/**
 * A submission's status as OTOG shows it: the status badge (Thai labels) and the score badge
 * "score / full" coloured by the outcome (green accepted, yellow partly, red nothing, purple an error,
 * an outline with a spinner while it waits or is graded).
 */
import type { Submission } from '@otog/schemas/api/submission';
import type { SubmissionStatus } from '@otog/schemas/common/judging';
import { Badge, type Tone } from '../ui/Badge.tsx';
import { isPending } from './polling.ts';
import { VERDICT_KIND_LABEL, verdictKind, type VerdictKind } from './verdict-kind.ts';
import './submission.css';

export const STATUS_LABEL: Record<SubmissionStatus, string> = {
  waiting: 'กำลังรอตรวจ',
  grading: 'กำลังตรวจ',
  accept: 'ผ่านแล้ว',
  reject: 'ไม่ผ่าน',
  compileError: 'Compilation Error',
  judgeError: 'Judge Error',
};

const STATUS_TONE: Record<SubmissionStatus, Tone> = {
  waiting: 'outline',
  grading: 'outline',
  accept: 'green',
  reject: 'red',
  compileError: 'purple',
  judgeError: 'purple',
};

function BadgeSpinner() {
  return <span className="spinner spinner-sm" aria-hidden />;
}

export function SubmissionStatusBadge({ status }: { status: SubmissionStatus }) {
  return (
    <Badge tone={STATUS_TONE[status]}>
      {isPending(status) ? <BadgeSpinner /> : null}
      {STATUS_LABEL[status]}
    </Badge>
  );
}

type ScoreSubmission = Pick<Submission, 'status' | 'submissionResult'> & { problem: Pick<Submission['problem'], 'score'> };

/** The score badge's colour: OTOG's accept / warning / reject / error. */
export function scoreTone(submission: ScoreSubmission): Tone {
  switch (submission.status) {
    case 'accept':
      return 'green';
    case 'reject':
      return (submission.submissionResult?.score ?? 0) > 0 ? 'yellow' : 'red';
    case 'compileError':
    case 'judgeError':
      return 'purple';
    default:
      return 'outline';
  }
}

/** The score "score / full"; its verdict is named next to it (VerdictLabel), so only "คะแนน" is added for screen readers. */
export function ScoreBadge({ submission }: { submission: ScoreSubmission }) {
  const full = submission.problem.score;
  if (isPending(submission.status)) {
    return (
      <Badge tone="outline" className="score-badge">
        <span className="sr-only">ยังไม่มีคะแนน</span>
        <span aria-hidden>- / {full}</span>
      </Badge>
    );
  }
  const score = submission.submissionResult?.score ?? 0;
  return (
    <Badge tone={scoreTone(submission)} className="score-badge">
      {score} / {full}
      <span className="sr-only"> คะแนน</span>
    </Badge>
  );
}

const VERDICT_KIND_TONE: Record<VerdictKind, Tone> = {
  waiting: 'outline',
  grading: 'outline',
  accepted: 'green',
  partial: 'yellow',
  wrongAnswer: 'red',
  timeLimit: 'orange',
  runtimeError: 'blue',
  memoryLimit: 'blue',
  compileError: 'purple',
  problemError: 'purple',
  judgeError: 'purple',
  rejected: 'red',
};

/** The verdict in words (ผ่าน, คำตอบผิด, เกินเวลา (TLE)...), for lists where the score alone does not say what went wrong. */
export function VerdictLabel({ submission }: { submission: Pick<Submission, 'status' | 'submissionResult'> }) {
  const kind = verdictKind(submission.status, submission.submissionResult?.result);
  return (
    <Badge tone={VERDICT_KIND_TONE[kind]} className="verdict-label">
      {isPending(submission.status) ? <BadgeSpinner /> : null}
      <span data-verdict={kind}>{VERDICT_KIND_LABEL[kind]}</span>
    </Badge>
  );
}
