/**
 * Read-model rows → OTOG's response shapes (SubmissionSchema, SubmissionDetailSchema). The nested result
 * rows OTOG kept in three tables get derived ids (schemas/api/submission.ts explains them).
 */
import type { SubmissionDetailRow, SubmissionRow } from '@otog/projections';
import { RESULT_ID_STRIDE, type Submission, type SubmissionDetail } from '@otog/schemas/api/submission';
import type { SubtaskResult } from '@otog/schemas/common/judging';

function resultOf(row: SubmissionRow): NonNullable<Submission['submissionResult']> | null {
  if (row.result === null) return null;
  return { id: row.id, score: row.score ?? 0, timeUsed: row.timeUsed ?? 0, memUsed: row.memUsed ?? -1, result: row.result, errmsg: row.errmsg };
}

export function toSubmission(row: SubmissionRow): Submission {
  return {
    id: row.id,
    status: row.status,
    contestId: row.contestId,
    language: row.language,
    creationDate: row.creationDate,
    public: row.public,
    userId: row.userId,
    problem: { id: row.problemId, name: row.problemName, timeLimit: row.timeLimit, memoryLimit: row.memoryLimit, score: row.problemScore },
    user: { id: row.userId, username: row.username, showName: row.showName, role: row.role, rating: row.rating },
    submissionResult: resultOf(row),
  };
}

type SubtaskRows = NonNullable<SubmissionDetail['submissionResult']>['subtaskResults'];

/** Subtasks in index order, verdicts in testcase order, with the derived ids. */
export function subtaskRows(submissionId: number, subtasks: readonly SubtaskResult[]): SubtaskRows {
  const base = submissionId * RESULT_ID_STRIDE;
  let position = 0;
  return [...subtasks]
    .sort((a, b) => a.subtaskIndex - b.subtaskIndex)
    .map((subtask) => {
      const subtaskId = base + subtask.subtaskIndex;
      return {
        id: subtaskId,
        submissionResultId: submissionId,
        score: subtask.score,
        fullScore: subtask.fullScore,
        subtaskIndex: subtask.subtaskIndex,
        verdicts: [...subtask.verdicts]
          .sort((a, b) => a.testcaseIndex - b.testcaseIndex)
          .map((verdict) => {
            position += 1;
            return {
              id: base + position,
              subtaskId,
              status: verdict.status,
              percent: verdict.percent,
              timeUsed: verdict.timeUsed,
              memUsed: verdict.memUsed,
              testcaseIndex: verdict.testcaseIndex,
              ...(verdict.runtimeErrorKind ? { runtimeErrorKind: verdict.runtimeErrorKind } : {}),
            };
          }),
      };
    });
}

export function toDetail(row: SubmissionDetailRow): SubmissionDetail {
  const summary = toSubmission(row);
  const result = summary.submissionResult;
  return {
    ...summary,
    sourceCode: row.sourceCode,
    submissionResult: result === null ? null : { ...result, subtaskResults: subtaskRows(row.id, row.subtaskResults ?? []) },
  };
}
