/** A step-after area chart in plain SVG: x = seconds since the start with ticks at ¼ ½ ¾ and the end, y from 0 to the full score. */
import { useId } from 'react';
import { formatContestClock } from '../phase.ts';
import { quarterTicks, stepAfterPath, type SeriesPoint } from './score-series.ts';

const WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 44, right: 16, top: 12, bottom: 28 };

export function ScoreChart({ points, duration, maxScore, label }: { points: ReadonlyArray<SeriesPoint>; duration: number; maxScore: number; label: string }) {
  const gradientId = useId();
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const top = Math.max(1, maxScore, ...points.map((point) => point.y));
  const toX = (x: number) => PAD.left + (duration > 0 ? (x / duration) * plotWidth : 0);
  const toY = (y: number) => PAD.top + plotHeight - (y / top) * plotHeight;
  const line = stepAfterPath(points, toX, toY);
  const baseline = toY(0);
  const area = points.length > 0 ? `${line}V${baseline}H${toX(points[0]!.x)}Z` : '';
  const yTicks = [0, top / 2, top];
  const last = points[points.length - 1];
  return (
    <svg className="sb-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${label}: ${last ? `${last.y} คะแนนเมื่อจบการแข่งขัน` : 'ไม่มีข้อมูล'}`}>
      <defs>
        <linearGradient id={gradientId} x1="0" x2="0" y1="0" y2="1">
          <stop offset="0%" stopColor="var(--accent)" stopOpacity="0.45" />
          <stop offset="100%" stopColor="var(--accent)" stopOpacity="0.05" />
        </linearGradient>
      </defs>
      {yTicks.map((tick) => (
        <g key={tick}>
          <line x1={PAD.left} x2={WIDTH - PAD.right} y1={toY(tick)} y2={toY(tick)} className="sb-chart-grid" />
          <text x={PAD.left - 6} y={toY(tick) + 4} textAnchor="end" className="sb-chart-label">
            {Number(tick.toFixed(1))}
          </text>
        </g>
      ))}
      {quarterTicks(duration).map((tick) => (
        <text key={tick} x={toX(tick)} y={HEIGHT - 8} textAnchor={tick === duration ? 'end' : 'middle'} className="sb-chart-label">
          {formatContestClock(tick)}
        </text>
      ))}
      <path d={area} fill={`url(#${gradientId})`} />
      <path d={line} className="sb-chart-line" />
    </svg>
  );
}
