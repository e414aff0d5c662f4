/**
 * "รายละเอียดคะแนนของ {name}": the user's score and rank on the board and on each problem, a chart of
 * their score over the contest, and one problem's submissions with their subtasks. Loaded lazily with its
 * chart, so the board's first load does not carry them.
 */
import { useQuery } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { contestContract, type ProblemScoreHistory } from '@otog/schemas/api/contest';
import { Dialog } from '../../../components/ui/Dialog.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { apiQuery } from '../../../lib/query.ts';
import { formatContestClock } from '../phase.ts';
import { problemRank, type BoardProblem, type BoardRow } from './board.ts';
import { ScoreChart } from './ScoreChart.tsx';
import { historyEvents, scoreSeries } from './score-series.ts';

const TOTAL = 'total';

export interface ScoreHistoryTarget {
  readonly entry: BoardRow;
  readonly problemId?: number | undefined;
}

function SubmissionTable({ history, timeStart }: { history: ProblemScoreHistory | undefined; timeStart: number }) {
  const entries = history?.contestScoreHistory ?? [];
  if (entries.length === 0) return <p className="empty">ไม่มีข้อมูล</p>;
  // Groups are numbered by their order, whatever base the judge's subtask indexes use.
  const fullScores = new Map<number, number>();
  for (const entry of entries) {
    for (const subtask of entry.submission.submissionResult?.subtaskResults ?? []) if (!fullScores.has(subtask.subtaskIndex)) fullScores.set(subtask.subtaskIndex, subtask.fullScore);
  }
  const groups = [...fullScores].sort(([a], [b]) => a - b).map(([index, fullScore], position) => ({ index, fullScore, label: position + 1 }));
  return (
    <div className="table-wrap">
      <table className="table sb-history-table" aria-label="การส่งของข้อนี้">
        <thead>
          <tr>
            <th scope="col">ส่งเมื่อ</th>
            <th scope="col" className="num">
              คะแนน
            </th>
            {groups.map((group) => (
              <th key={group.index} scope="col" className="num">
                กลุ่มที่ {group.label} ({group.fullScore})
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => {
            const result = entry.submission.submissionResult;
            const raw = result ? result.subtaskResults.reduce((sum, subtask) => sum + subtask.score, 0) : entry.score;
            return (
              <tr key={entry.submissionId}>
                <td>{formatContestClock((Date.parse(entry.submission.creationDate) - timeStart) / 1000)}</td>
                <td className="num">{Number(raw.toFixed(2))}</td>
                {groups.map((group) => {
                  const subtask = result?.subtaskResults.find((item) => item.subtaskIndex === group.index);
                  return (
                    <td key={group.index} className="num">
                      {subtask ? Number(subtask.score.toFixed(2)) : '-'}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export default function ScoreHistoryDialog({
  contestId,
  timeStart,
  timeEnd,
  problems,
  rows,
  target,
  onClose,
}: {
  contestId: number;
  timeStart: number;
  timeEnd: number;
  problems: ReadonlyArray<BoardProblem>;
  rows: ReadonlyArray<BoardRow>;
  target: ScoreHistoryTarget;
  onClose(): void;
}) {
  const { entry } = target;
  const selectId = useId();
  const [selected, setSelected] = useState<string>(target.problemId === undefined ? TOTAL : String(target.problemId));
  const history = useQuery(apiQuery(contestContract.getUserContestScoreHistory, { params: { contestId, userId: entry.userId } }));
  const duration = Math.max(0, Math.floor((timeEnd - timeStart) / 1000));
  const events = useMemo(() => historyEvents(history.data ?? []), [history.data]);
  const problemId = selected === TOTAL ? undefined : Number(selected);
  const points = useMemo(() => scoreSeries(events, timeStart, timeEnd, problemId), [events, timeStart, timeEnd, problemId]);
  const fullScore = problemId === undefined ? problems.reduce((sum, problem) => sum + problem.score, 0) : (problems.find((problem) => problem.id === problemId)?.score ?? 0);
  const ranks = useMemo(
    () =>
      new Map(
        problems.map((problem, column) => {
          const mine = entry.scores[column] ?? 0;
          return [problem.id, problemRank(mine, rows.map((other) => other.scores[column] ?? 0))] as const;
        }),
      ),
    [problems, rows, entry],
  );
  const selectedName = problemId === undefined ? 'คะแนนรวม' : (problems.find((problem) => problem.id === problemId)?.name ?? '');

  return (
    <Dialog open onClose={onClose} title={`รายละเอียดคะแนนของ ${entry.showName}`} size="lg">
      <div className="sb-history">
        <div className="table-wrap">
          <table className="table sb-score-table" aria-label="คะแนนและอันดับ">
            <thead>
              <tr>
                <th scope="col">โจทย์</th>
                <th scope="col" className="num">
                  คะแนน
                </th>
                <th scope="col" className="num">
                  อันดับ
                </th>
              </tr>
            </thead>
            <tbody>
              <tr className="sb-score-total" data-problem="total">
                <th scope="row">คะแนนรวม</th>
                <td className="num">{entry.totalScore}</td>
                <td className="num">{entry.rank}</td>
              </tr>
              {problems.map((problem, column) => (
                <tr key={problem.id} data-problem={problem.id}>
                  <th scope="row">{problem.name}</th>
                  <td className="num">{entry.scores[column] ?? '-'}</td>
                  <td className="num">{ranks.get(problem.id)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <h3 className="sb-history-heading">กราฟแสดงคะแนนตามเวลา</h3>
        <div className="field">
          <label htmlFor={selectId} className="field-label">
            แสดงคะแนนของ
          </label>
          <select id={selectId} className="input select" value={selected} onChange={(event) => setSelected(event.target.value)}>
            <option value={TOTAL}>คะแนนรวม</option>
            {problems.map((problem) => (
              <option key={problem.id} value={problem.id}>
                {problem.name}
              </option>
            ))}
          </select>
        </div>
        {history.isPending ? (
          <Spinner />
        ) : history.isError ? (
          <p className="empty empty-error" role="alert">
            {errorMessage(history.error)}
          </p>
        ) : (
          <>
            <ScoreChart points={points} duration={duration} maxScore={fullScore} label={`กราฟคะแนน${selectedName}ตามเวลา`} />
            {problemId === undefined ? null : <SubmissionTable history={history.data.find((item) => item.problemId === problemId)} timeStart={timeStart} />}
          </>
        )}
      </div>
    </Dialog>
  );
}
