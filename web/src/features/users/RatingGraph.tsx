/**
 * The profile's rating graph (its own chunk, loaded when a profile has rated contests): the rating after
 * each rated contest, oldest on the left, over stripes of the rating bands. Every point is a link to its
 * contest that shows the contest, the rank and the rating when pointed at or focused (Tab moves between
 * points). The history table under the graph holds the same numbers for screen readers.
 */
import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { useNavigate } from 'react-router';
import { formatDate } from '../../lib/dates.ts';
import { formatRatingChange, INITIAL_RATING, RATING_BANDS, ratingBand } from '../../lib/rating.ts';

export interface GraphPoint {
  readonly contestId: number;
  readonly name: string;
  readonly timeStart: string;
  readonly rank: number;
  readonly rating: number;
  readonly change: number;
}

const HEIGHT = 240;
const PAD = { left: 48, right: 20, top: 16, bottom: 30 } as const;
const STEP = 100;

/** The ratings shown: every point with some room, always including the starting 1500, in whole hundreds. */
export function ratingDomain(ratings: readonly number[]): { low: number; high: number } {
  const low = Math.floor((Math.min(INITIAL_RATING, ...ratings) - 50) / STEP) * STEP;
  const high = Math.max(Math.ceil((Math.max(INITIAL_RATING, ...ratings) + 50) / STEP) * STEP, low + 3 * STEP);
  return { low, high };
}

function useWidth(element: RefObject<HTMLElement | null>, fallback: number): number {
  const [width, setWidth] = useState(fallback);
  useLayoutEffect(() => {
    const node = element.current;
    if (!node) return;
    const measure = () => setWidth(Math.max(240, Math.round(node.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(node);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

export default function RatingGraph({ points, labelledBy }: { points: readonly GraphPoint[]; labelledBy: string }) {
  const frame = useRef<HTMLDivElement>(null);
  const width = useWidth(frame, 640);
  const navigate = useNavigate();
  const tooltipId = useId();
  const [active, setActive] = useState<number | null>(null);
  // (React types an <a> as HTML even inside an <svg>: the focus method is what both have.)
  const pointRefs = useRef<Array<HTMLOrSVGElement | null>>([]);

  const { low, high } = ratingDomain(points.map((point) => point.rating));
  const plotWidth = width - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (index: number) => PAD.left + (points.length === 1 ? plotWidth / 2 : (index * plotWidth) / (points.length - 1));
  const y = (rating: number) => PAD.top + ((high - rating) * plotHeight) / (high - low);

  const stripes = RATING_BANDS.map((range, index) => {
    const top = Math.min(index === 0 ? high : RATING_BANDS[index - 1]!.min, high);
    const bottom = Math.max(range.min, low);
    return { band: range.band, top, bottom };
  }).filter((stripe) => stripe.top > stripe.bottom);
  const ticks = RATING_BANDS.map((range) => range.min).filter((value) => value > low && value < high);
  const line = points.map((point, index) => `${x(index)},${y(point.rating)}`).join(' ');
  const shown = active === null ? null : points[active];

  // Arrow keys, Home and End move between the points as well as Tab does.
  const onKeyDown = (event: KeyboardEvent<Element>, index: number) => {
    const last = points.length - 1;
    const to = { ArrowRight: index + 1, ArrowDown: index + 1, ArrowLeft: index - 1, ArrowUp: index - 1, Home: 0, End: last }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    pointRefs.current[Math.min(Math.max(to, 0), last)]?.focus();
  };

  return (
    <div className="rating-graph" ref={frame}>
      <svg width={width} height={HEIGHT} role="group" aria-labelledby={labelledBy} className="rating-graph-svg">
        <g aria-hidden>
          {stripes.map((stripe) => (
            <rect
              key={stripe.band}
              className={`rating-stripe rating-band-${stripe.band}`}
              x={PAD.left}
              width={plotWidth}
              y={y(stripe.top)}
              height={y(stripe.bottom) - y(stripe.top)}
            />
          ))}
          {ticks.map((value) => (
            <g key={value}>
              <line className="rating-grid" x1={PAD.left} x2={PAD.left + plotWidth} y1={y(value)} y2={y(value)} />
              <text className="rating-axis" x={PAD.left - 6} y={y(value)} textAnchor="end" dominantBaseline="middle">
                {value}
              </text>
            </g>
          ))}
          <text className="rating-axis" x={x(0)} y={HEIGHT - 8} textAnchor={points.length === 1 ? 'middle' : 'start'}>
            {formatDate(points[0]!.timeStart)}
          </text>
          {points.length > 1 ? (
            <text className="rating-axis" x={x(points.length - 1)} y={HEIGHT - 8} textAnchor="end">
              {formatDate(points.at(-1)!.timeStart)}
            </text>
          ) : null}
          <polyline className="rating-line" points={line} />
        </g>
        {points.map((point, index) => {
          const href = `/contest/${point.contestId}`;
          return (
            <a
              key={point.contestId}
              ref={(node) => {
                pointRefs.current[index] = node;
              }}
              href={href}
              className={`rating-point rating-band-${ratingBand(point.rating)}`}
              aria-label={`${point.name}: อันดับ ${point.rank} เรตติ้ง ${point.rating} (${formatRatingChange(point.change)})`}
              aria-describedby={active === index ? tooltipId : undefined}
              data-contest-id={point.contestId}
              onClick={(event) => {
                event.preventDefault();
                void navigate(href);
              }}
              onPointerEnter={() => setActive(index)}
              onPointerLeave={() => setActive((current) => (current === index ? null : current))}
              onFocus={() => setActive(index)}
              onBlur={() => setActive((current) => (current === index ? null : current))}
              onKeyDown={(event) => onKeyDown(event, index)}
            >
              <circle className="rating-point-target" cx={x(index)} cy={y(point.rating)} r={14} />
              <circle className="rating-point-dot" cx={x(index)} cy={y(point.rating)} r={active === index ? 7 : 5} />
            </a>
          );
        })}
      </svg>
      {shown && active !== null ? (
        <div
          id={tooltipId}
          role="tooltip"
          className="rating-tooltip"
          data-align={x(active) < 110 ? 'start' : x(active) > width - 110 ? 'end' : 'middle'}
          style={{ left: x(active), top: y(shown.rating) }}
        >
          <strong className="rating-tooltip-name">{shown.name}</strong>
          <span>อันดับ {shown.rank}</span>
          <span>
            เรตติ้ง <strong className={`rating-band-${ratingBand(shown.rating)}`}>{shown.rating}</strong> ({formatRatingChange(shown.change)})
          </span>
        </div>
      ) : null}
    </div>
  );
}
