/**
 * The score-history chart's series, pure so its tests are tables: a step-after line of (seconds since the
 * start, score), starting at (0, 0) and carried to the end of the contest.
 */
import type { ProblemScoreHistory } from '@otog/schemas/api/contest';

export interface SeriesPoint {
  /** Seconds since the contest start, within [0, duration]. */
  readonly x: number;
  readonly y: number;
}

export interface HistoryEvent {
  readonly problemId: number;
  /** Epoch ms of the submission. */
  readonly at: number;
  /** The problem's contest score right after it. */
  readonly score: number;
}

/** Every history row of every problem, oldest first (ties keep the submission order). */
export function historyEvents(histories: ReadonlyArray<ProblemScoreHistory>): HistoryEvent[] {
  const events = histories.flatMap((problem) =>
    problem.contestScoreHistory.map((entry) => ({ problemId: problem.problemId, at: Date.parse(entry.submission.creationDate), score: entry.score, submissionId: entry.submissionId })),
  );
  events.sort((a, b) => a.at - b.at || a.submissionId - b.submissionId);
  return events.map(({ problemId, at, score }) => ({ problemId, at, score }));
}

const secondsSince = (timeStart: number, at: number, duration: number) => Math.min(duration, Math.max(0, Math.floor((at - timeStart) / 1000)));

/**
 * The series of `events` (oldest first): each event replaces its problem's previous value and the point is
 * the sum over problems, so the total series and one problem's series are the same replay. Begins at
 * (0, 0) and ends at (duration, last value).
 */
export function scoreSeries(events: ReadonlyArray<HistoryEvent>, timeStart: number, timeEnd: number, problemId?: number): SeriesPoint[] {
  const duration = Math.max(0, Math.floor((timeEnd - timeStart) / 1000));
  const current = new Map<number, number>();
  let total = 0;
  const points: SeriesPoint[] = [{ x: 0, y: 0 }];
  for (const event of events) {
    if (problemId !== undefined && event.problemId !== problemId) continue;
    total += event.score - (current.get(event.problemId) ?? 0);
    current.set(event.problemId, event.score);
    points.push({ x: secondsSince(timeStart, event.at, duration), y: total });
  }
  points.push({ x: duration, y: total });
  return points;
}

/** The x axis ticks: ¼, ½, ¾ and the end of the contest, in whole seconds. */
export function quarterTicks(duration: number): number[] {
  return [1, 2, 3, 4].map((quarter) => Math.round((duration * quarter) / 4));
}

/** The SVG path of a step-after line through `points` (the value holds until the next point), in chart units. */
export function stepAfterPath(points: ReadonlyArray<SeriesPoint>, toX: (x: number) => number, toY: (y: number) => number): string {
  if (points.length === 0) return '';
  let path = `M${toX(points[0]!.x)},${toY(points[0]!.y)}`;
  for (let index = 1; index < points.length; index++) {
    const point = points[index]!;
    path += `H${toX(point.x)}V${toY(point.y)}`;
  }
  return path;
}
