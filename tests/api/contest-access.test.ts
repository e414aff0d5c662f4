/**
 * The contest access policy as tables (pure): every scoreboard policy at every moment of a contest, for
 * admins and everyone else; the freeze; replays. A contest is PENDING before timeStart, RUNNING from
 * timeStart until just before timeEnd and FINISHED from timeEnd on (contestStateAt), so the boundaries
 * are tested to the millisecond.
 */
import { describe, expect, it } from 'vitest';
import { boardOpenTo, frozenAtFor, replayOpenTo, startedFor, type ContestTimes } from '@otog/api/modules/contests/contest-access';
import { SCOREBOARD_POLICIES, type ScoreboardPolicy } from '@otog/schemas/common/contest';

const START = Date.parse('2026-03-01T09:00:00.000Z');
const FREEZE = Date.parse('2026-03-01T11:00:00.000Z');
const END = Date.parse('2026-03-01T12:00:00.000Z');

const contest = (scoreboardPolicy: ScoreboardPolicy, options: { freezeAt?: number | null; revealed?: boolean } = {}): ContestTimes => ({
  timeStart: START,
  timeEnd: END,
  scoreboardPolicy,
  freezeAt: options.freezeAt ?? null,
  revealed: options.revealed ?? false,
});

const MOMENTS = {
  beforeStart: START - 1,
  atStart: START,
  running: START + 90 * 60_000,
  justBeforeEnd: END - 1,
  atEnd: END,
  afterEnd: END + 1,
} as const;
type Moment = keyof typeof MOMENTS;
const momentNames = Object.keys(MOMENTS) as Moment[];

/** Whether a non-admin may see the board at each moment, per policy. */
const BOARD_OPEN: Record<ScoreboardPolicy, Record<Moment, boolean>> = {
  DURING_CONTEST: { beforeStart: false, atStart: true, running: true, justBeforeEnd: true, atEnd: true, afterEnd: true },
  AFTER_CONTEST: { beforeStart: false, atStart: false, running: false, justBeforeEnd: false, atEnd: true, afterEnd: true },
  NOT_VISIBLE: { beforeStart: false, atStart: false, running: false, justBeforeEnd: false, atEnd: false, afterEnd: false },
};
/** Whether a non-admin may see the contest's detail and problems at each moment (whatever the policy). */
const STARTED: Record<Moment, boolean> = { beforeStart: false, atStart: true, running: true, justBeforeEnd: true, atEnd: true, afterEnd: true };

const matrix = SCOREBOARD_POLICIES.flatMap((policy) =>
  momentNames.flatMap((moment) =>
    [false, true].map((admin) => ({
      policy,
      moment,
      admin,
      board: admin || BOARD_OPEN[policy][moment],
      started: admin || STARTED[moment],
    })),
  ),
);

describe('the policy matrix', () => {
  it('covers every policy, moment and caller', () => {
    expect(matrix).toHaveLength(SCOREBOARD_POLICIES.length * momentNames.length * 2);
  });

  it.each(matrix)('$policy, $moment, admin $admin: board $board, started $started', ({ policy, moment, admin, board, started }) => {
    const times = contest(policy);
    expect(boardOpenTo(times, admin, MOMENTS[moment])).toBe(board);
    expect(startedFor(times, admin, MOMENTS[moment])).toBe(started);
    // A freeze (revealed or not) changes neither: it limits what the board shows, not whether it opens.
    for (const frozen of [contest(policy, { freezeAt: FREEZE }), contest(policy, { freezeAt: FREEZE, revealed: true })]) {
      expect(boardOpenTo(frozen, admin, MOMENTS[moment])).toBe(board);
      expect(startedFor(frozen, admin, MOMENTS[moment])).toBe(started);
    }
  });

  it('a one-millisecond contest runs for exactly that millisecond', () => {
    const blink: ContestTimes = { ...contest('DURING_CONTEST'), timeEnd: START + 1 };
    expect([START - 1, START, START + 1].map((now) => startedFor(blink, false, now))).toEqual([false, true, true]);
    const afterOnly: ContestTimes = { ...blink, scoreboardPolicy: 'AFTER_CONTEST' };
    expect([START, START + 1].map((now) => boardOpenTo(afterOnly, false, now))).toEqual([false, true]);
  });
});

describe('frozenAtFor', () => {
  const frozen = contest('DURING_CONTEST', { freezeAt: FREEZE });

  it.each([
    { case: 'no freeze, after the end', times: contest('DURING_CONTEST'), admin: false, now: END + 1, expected: null },
    { case: 'before the start', times: frozen, admin: false, now: START - 1, expected: null },
    { case: 'just before the freeze', times: frozen, admin: false, now: FREEZE - 1, expected: null },
    { case: 'at the freeze', times: frozen, admin: false, now: FREEZE, expected: FREEZE },
    { case: 'after the freeze', times: frozen, admin: false, now: FREEZE + 1, expected: FREEZE },
    { case: 'at the end', times: frozen, admin: false, now: END, expected: FREEZE },
    { case: 'long after the end', times: frozen, admin: false, now: END + 86_400_000, expected: FREEZE },
    { case: 'revealed', times: { ...frozen, revealed: true }, admin: false, now: FREEZE + 1, expected: null },
    { case: 'revealed, long after the end', times: { ...frozen, revealed: true }, admin: false, now: END + 86_400_000, expected: null },
    { case: 'an admin, after the freeze', times: frozen, admin: true, now: FREEZE + 1, expected: null },
    { case: 'an admin, at the freeze', times: frozen, admin: true, now: FREEZE, expected: null },
    { case: 'frozen from the start, at the start', times: { ...frozen, freezeAt: START }, admin: false, now: START, expected: START },
    { case: 'frozen at the end, just before it', times: { ...frozen, freezeAt: END }, admin: false, now: END - 1, expected: null },
    { case: 'frozen at the end, at it', times: { ...frozen, freezeAt: END }, admin: false, now: END, expected: END },
  ])('$case → $expected', ({ times, admin, now, expected }) => {
    expect(frozenAtFor(times, admin, now)).toBe(expected);
  });

  it('does not depend on the scoreboard policy', () => {
    for (const policy of SCOREBOARD_POLICIES) {
      expect(frozenAtFor(contest(policy, { freezeAt: FREEZE }), false, FREEZE)).toBe(FREEZE);
      expect(frozenAtFor(contest(policy, { freezeAt: FREEZE }), false, FREEZE - 1)).toBeNull();
    }
  });
});

describe('replayOpenTo', () => {
  const RUNNING = MOMENTS.running; // before the freeze
  it.each([
    // Admins: always, whatever the policy, the moments or the freeze.
    { case: 'admin, NOT_VISIBLE, before the start', times: contest('NOT_VISIBLE'), admin: true, at: START - 1, now: START - 1, expected: true },
    { case: 'admin, frozen, past the freeze', times: contest('DURING_CONTEST', { freezeAt: FREEZE }), admin: true, at: END, now: END, expected: true },
    // NOT_VISIBLE: never for others.
    { case: 'NOT_VISIBLE, after the end', times: contest('NOT_VISIBLE'), admin: false, at: RUNNING, now: END + 1, expected: false },
    // DURING_CONTEST, no freeze: open from the start, for moments from the start.
    { case: 'DURING, now before the start', times: contest('DURING_CONTEST'), admin: false, at: START - 1, now: START - 1, expected: false },
    { case: 'DURING, at the start', times: contest('DURING_CONTEST'), admin: false, at: START, now: START, expected: true },
    { case: 'DURING, a moment before the start', times: contest('DURING_CONTEST'), admin: false, at: START - 1, now: RUNNING, expected: false },
    { case: 'DURING, a running moment', times: contest('DURING_CONTEST'), admin: false, at: RUNNING, now: RUNNING, expected: true },
    { case: 'DURING, after the end', times: contest('DURING_CONTEST'), admin: false, at: END - 1, now: END + 1, expected: true },
    // AFTER_CONTEST: only once finished, and only for moments when it was open (from the end).
    { case: 'AFTER, running', times: contest('AFTER_CONTEST'), admin: false, at: START, now: RUNNING, expected: false },
    { case: 'AFTER, just before the end', times: contest('AFTER_CONTEST'), admin: false, at: END - 1, now: END - 1, expected: false },
    { case: 'AFTER, finished, a running moment', times: contest('AFTER_CONTEST'), admin: false, at: RUNNING, now: END + 1, expected: false },
    { case: 'AFTER, finished, just before the end', times: contest('AFTER_CONTEST'), admin: false, at: END - 1, now: END + 1, expected: false },
    { case: 'AFTER, finished, at the end', times: contest('AFTER_CONTEST'), admin: false, at: END, now: END, expected: true },
    { case: 'AFTER, finished, after the end', times: contest('AFTER_CONTEST'), admin: false, at: END + 1, now: END + 60_000, expected: true },
    // A freeze in force: nothing past it; up to it, as the policy allows.
    { case: 'frozen, before the freeze', times: contest('DURING_CONTEST', { freezeAt: FREEZE }), admin: false, at: FREEZE - 1, now: FREEZE - 1, expected: true },
    { case: 'frozen, at the freeze', times: contest('DURING_CONTEST', { freezeAt: FREEZE }), admin: false, at: FREEZE, now: END + 1, expected: true },
    { case: 'frozen, just past the freeze', times: contest('DURING_CONTEST', { freezeAt: FREEZE }), admin: false, at: FREEZE + 1, now: END + 1, expected: false },
    { case: 'frozen, at the end', times: contest('DURING_CONTEST', { freezeAt: FREEZE }), admin: false, at: END, now: END, expected: false },
    { case: 'frozen, a running moment', times: contest('DURING_CONTEST', { freezeAt: FREEZE }), admin: false, at: RUNNING, now: FREEZE + 1, expected: true },
    // The freeze is not yet in force before freezeAt, so a replay of a moment now is allowed.
    { case: 'frozen later, at now', times: contest('DURING_CONTEST', { freezeAt: FREEZE }), admin: false, at: RUNNING, now: RUNNING, expected: true },
    // Revealed: the freeze no longer limits.
    {
      case: 'revealed, past the freeze',
      times: contest('DURING_CONTEST', { freezeAt: FREEZE, revealed: true }),
      admin: false,
      at: FREEZE + 1,
      now: END + 1,
      expected: true,
    },
    // AFTER_CONTEST with an unrevealed freeze: the board was closed at the freeze and is frozen after it.
    { case: 'AFTER, frozen, at the freeze', times: contest('AFTER_CONTEST', { freezeAt: FREEZE }), admin: false, at: FREEZE, now: END + 1, expected: false },
    { case: 'AFTER, frozen, at the end', times: contest('AFTER_CONTEST', { freezeAt: FREEZE }), admin: false, at: END, now: END + 1, expected: false },
    {
      case: 'AFTER, frozen and revealed, at the end',
      times: contest('AFTER_CONTEST', { freezeAt: FREEZE, revealed: true }),
      admin: false,
      at: END,
      now: END + 1,
      expected: true,
    },
  ])('$case → $expected', ({ times, admin, at, now, expected }) => {
    expect(replayOpenTo(times, admin, at, now)).toBe(expected);
  });

  it('is never open to others when the board is not open now or was not at that moment', () => {
    for (const policy of SCOREBOARD_POLICIES) {
      for (const at of momentNames) {
        for (const now of momentNames) {
          const times = contest(policy);
          const open = replayOpenTo(times, false, MOMENTS[at], MOMENTS[now]);
          expect(open, `${policy} at ${at} now ${now}`).toBe(BOARD_OPEN[policy][at] && BOARD_OPEN[policy][now]);
          expect(replayOpenTo(times, true, MOMENTS[at], MOMENTS[now])).toBe(true);
        }
      }
    }
  });
});
