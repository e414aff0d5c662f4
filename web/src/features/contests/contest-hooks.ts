/** What the contest pages share: the contest's phase on the server's clock, and its id from the URL. */
import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import type { ContestMode } from '@otog/schemas/common/contest';
import { useServerOffset } from '../../lib/server-time.ts';
import { contestPhase, type ContestPhase, type ContestTimes } from './phase.ts';

/** Past a boundary by this much before the phase flips, so the server (whose clock we only estimate) agrees. */
const BOUNDARY_MARGIN_MS = 500;
/** setTimeout's longest wait; a later boundary is waited for in steps. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The contest's phase on the server's clock. It re-renders only when the phase changes (a timer set for the
 * next boundary), not every second: the countdowns tick on their own.
 */
export function useContestPhase(contest: ContestTimes | undefined): ContestPhase | undefined {
  const offset = useServerOffset();
  const [now, setNow] = useState(Date.now);
  const phase = contest ? contestPhase(contest, now + offset - BOUNDARY_MARGIN_MS) : undefined;
  const boundary = contest && phase !== 'FINISHED' ? Date.parse(phase === 'PENDING' ? contest.timeStart : contest.timeEnd) : null;
  useEffect(() => {
    if (boundary === null) return;
    const wait = boundary + BOUNDARY_MARGIN_MS - offset - Date.now();
    const timer = window.setTimeout(() => setNow(Date.now()), Math.min(Math.max(wait, 0), MAX_TIMEOUT_MS));
    return () => window.clearTimeout(timer);
  }, [boundary, offset, now]);
  return phase;
}

/**
 * Runs `effect` whenever `value` changes (a phase flip: the data must be read again). Undefined means not
 * known yet: the first known value is no change.
 */
export function useOnChange<T>(value: T | undefined, effect: () => void): void {
  const [seen, setSeen] = useState(value);
  useEffect(() => {
    if (Object.is(seen, value)) return;
    setSeen(value);
    if (seen !== undefined && value !== undefined) effect();
  });
}

/** A positive integer id from the route's `name` parameter; null for anything else. */
export function useIdParam(name: string): number | null {
  const raw = useParams()[name];
  const id = Number(raw);
  return Number.isSafeInteger(id) && id > 0 && String(id) === raw ? id : null;
}

export const MODE_LABEL: Record<ContestMode, string> = { rated: 'คิดเรตติ้ง', unrated: 'ไม่คิดเรตติ้ง' };
