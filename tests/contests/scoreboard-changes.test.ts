/**
 * A live board's changes (GET /contest/:id/scoreboard/changes): which rows the server says changed, the log
 * that spans several answers, the web's one-pass check against the route's schema, and the property that
 * matters: a board brought up to date by changes equals the board read whole, keeping the rows that stayed.
 */
import { describe, expect, it } from 'vitest';
import { parseScoreboardChanges, ScoreboardChangesSchema, type ScoreboardColumns } from '@otog/schemas/api/contest';
import { boardChanges, changedUsers, createChangeLog } from '../../services/api/src/modules/contests/board-changes.ts';
import { applyBoardChanges, shownBoardOf } from '../../web/src/features/contests/scoreboard/board.ts';
import { random, type Random } from './support/random-contests.ts';

const contest = { id: 4, name: 'รอบสด', mode: 'unrated', gradingMode: 'classic', scoreboardPolicy: 'DURING_CONTEST', timeStart: '2026-01-01T00:00:00.000Z', timeEnd: '2026-01-01T03:00:00.000Z', announce: null, freezeAt: null } as const;
const problems = [
  { id: 2, name: 'a', score: 100 },
  { id: 9, name: 'b', score: 100 },
];

interface Entry {
  userId: number;
  scores: Array<number | null>;
  pending?: number[];
  maxPenalty?: number;
  showName?: string;
}

/** A board of entries, ranked by total (shared ranks on ties), as the columns answer lays it out. */
function board(entries: Entry[], options: { frozenAt?: string | null; problems?: typeof problems } = {}): ScoreboardColumns {
  const total = (entry: Entry) => entry.scores.reduce<number>((sum, score) => sum + (score ?? 0), 0);
  const ranked = [...entries].sort((a, b) => total(b) - total(a) || a.userId - b.userId);
  const pending = entries.some((entry) => entry.pending);
  return {
    contest,
    problems: options.problems ?? problems,
    frozenAt: options.frozenAt ?? null,
    userId: ranked.map((entry) => entry.userId),
    showName: ranked.map((entry) => entry.showName ?? `u${entry.userId}`),
    rank: ranked.map((entry) => 1 + ranked.filter((other) => total(other) > total(entry)).length),
    totalScore: ranked.map(total),
    maxPenalty: ranked.map((entry) => entry.maxPenalty ?? 0),
    score: ranked.flatMap((entry) => entry.scores),
    ...(pending ? { pending: ranked.flatMap((entry) => entry.pending ?? entry.scores.map(() => 0)) } : {}),
  };
}

describe('changedUsers', () => {
  const before = board([
    { userId: 1, scores: [100, null] },
    { userId: 2, scores: [50, 0] },
    { userId: 3, scores: [null, null] },
  ]);
  it.each<[string, ScoreboardColumns, number[] | null]>([
    ['the same board', before, []],
    [
      'a passed rank is no change of the passed row; the mover changed',
      board([
        { userId: 1, scores: [100, null] },
        { userId: 2, scores: [50, 0] },
        { userId: 3, scores: [100, 100] },
      ]),
      [3],
    ],
    [
      'a new contestant, a name, a time and a pending count',
      board([
        { userId: 1, scores: [100, null], showName: 'ใหม่' },
        { userId: 2, scores: [50, 0], maxPenalty: 9 },
        { userId: 3, scores: [null, null], pending: [0, 1] },
        { userId: 4, scores: [null, null] },
      ]),
      [1, 2, 3, 4],
    ],
    ['a contestant who left is in nobody’s row', board([{ userId: 1, scores: [100, null] }]), []],
    ['other problems', board([{ userId: 1, scores: [100, null] }], { problems: [problems[0]!, { id: 9, name: 'b', score: 50 }] }), null],
    ['another view', board([{ userId: 1, scores: [100, null] }], { frozenAt: '2026-01-01T02:00:00.000Z' }), null],
  ])('%s', (_, after, expected) => {
    const changed = changedUsers(before, after);
    expect(changed === null ? null : [...changed].sort()).toEqual(expected);
  });
});

describe('the change log', () => {
  const boards = [
    board([{ userId: 1, scores: [null, null] }, { userId: 2, scores: [null, null] }]),
    board([{ userId: 1, scores: [10, null] }, { userId: 2, scores: [null, null] }]),
    board([{ userId: 1, scores: [10, null] }, { userId: 2, scores: [20, null] }]),
    board([{ userId: 1, scores: [10, null] }, { userId: 2, scores: [20, null] }, { userId: 3, scores: [null, null] }]),
  ];
  it('joins the changes of every answer after `since`, and cannot tell from an ETag it does not know', () => {
    const log = createChangeLog(8);
    boards.forEach((columns, index) => log.record(`e${index}`, columns));
    expect(log.changedBetween('e0', 'e3')).toEqual(new Set([1, 2, 3]));
    expect(log.changedBetween('e1', 'e2')).toEqual(new Set([2]));
    expect(log.changedBetween('e2', 'e3')).toEqual(new Set([3]));
    expect(log.changedBetween('unknown', 'e3')).toBeNull();
    // `since` must come before the answer asked for.
    expect(log.changedBetween('e3', 'e1')).toBeNull();
  });
  it('the same ETag again is not a step', () => {
    const log = createChangeLog(8);
    log.record('e0', boards[0]!);
    log.record('e0', boards[0]!);
    log.record('e1', boards[1]!);
    expect(log.changedBetween('e0', 'e1')).toEqual(new Set([1]));
  });
  it('forgets beyond its bound, and starts again at a board whose changes cannot be told', () => {
    const log = createChangeLog(2);
    boards.forEach((columns, index) => log.record(`e${index}`, columns));
    expect(log.changedBetween('e1', 'e3')).toBeNull();
    expect(log.changedBetween('e2', 'e3')).toEqual(new Set([3]));
    log.record('other', board([{ userId: 1, scores: [10, null] }], { problems: [problems[0]!] }));
    expect(log.changedBetween('e3', 'other')).toBeNull();
  });
});

describe('parseScoreboardChanges agrees with ScoreboardChangesSchema', () => {
  const valid = { etag: 'W/"b"', changes: boardChanges(board([{ userId: 1, scores: [10, null] }, { userId: 2, scores: [null, 5] }]), new Set([2])) };
  const samples: Array<[string, unknown]> = [
    ['changes', valid],
    ['nothing changed', { etag: 'W/"a"', changes: null }],
    ['no etag', { changes: null }],
    ['no changes key', { etag: 'W/"a"' }],
    ['a rank that is not an integer', { ...valid, changes: { ...valid.changes, rank: [1, 1.5] } }],
    ['fewer ranks than users', { ...valid, changes: { ...valid.changes, rank: [1] } }],
    ['a changed row without its name', { ...valid, changes: { ...valid.changes, changed: { ...valid.changes.changed, showName: [] } } }],
    ['a score as text', { ...valid, changes: { ...valid.changes, changed: { ...valid.changes.changed, score: ['5', null] } } }],
    ['a negative pending count', { ...valid, changes: { ...valid.changes, changed: { ...valid.changes.changed, pending: [-1, 0] } } }],
    ['no contest', { ...valid, changes: { ...valid.changes, contest: undefined } }],
    ['keys the schema does not know', { ...valid, extra: 1, changes: { ...valid.changes, extra: 2, changed: { ...valid.changes.changed, extra: 3 } } }],
    ['changed rows with pending counts', { ...valid, changes: { ...valid.changes, changed: { ...valid.changes.changed, pending: [0, 2] } } }],
    ['changed rows that are not an object', { ...valid, changes: { ...valid.changes, changed: [] } }],
    ['not an object', 'W/"a"'],
    ['null', null],
  ];
  it.each(samples)('%s', (_, sample) => {
    const zod = ScoreboardChangesSchema.safeParse(sample);
    const mine = parseScoreboardChanges(sample);
    expect(mine !== null).toBe(zod.success);
    if (zod.success) expect(mine).toEqual(zod.data);
  });
});

describe('applyBoardChanges', () => {
  const before = shownBoardOf(board([{ userId: 1, scores: [10, null] }, { userId: 2, scores: [null, null] }]), 'W/"a"');
  it('refuses changes that do not fit the board: a user it never had, cells of another width', () => {
    const stranger = boardChanges(board([{ userId: 1, scores: [10, null] }, { userId: 7, scores: [null, null] }]), new Set());
    expect(applyBoardChanges(before, stranger, 'W/"b"')).toBeNull();
    const narrow = boardChanges(board([{ userId: 1, scores: [10] }], { problems: [problems[0]!] }), new Set([1]));
    expect(applyBoardChanges(before, narrow, 'W/"b"')).toBeNull();
  });
});

/** A random next board: some cells judged, now and then a newcomer, a leaver, a rename or a pending count. */
function step(rng: Random, entries: Entry[], frozen: boolean): Entry[] {
  const next = entries.map((entry) => ({ ...entry, scores: [...entry.scores], ...(entry.pending ? { pending: [...entry.pending] } : {}) }));
  for (let count = rng.int(0, 3); count > 0 && next.length > 0; count--) {
    const entry = rng.pick(next);
    const column = rng.int(0, problems.length - 1);
    if (frozen && rng.chance(0.5)) (entry.pending ??= problems.map(() => 0))[column]! += 1;
    else entry.scores[column] = rng.int(0, 100);
    if (rng.chance(0.3)) entry.maxPenalty = rng.int(0, 10_000);
  }
  if (rng.chance(0.3)) next.push({ userId: Math.max(0, ...next.map((entry) => entry.userId)) + 1, scores: problems.map(() => null) });
  if (rng.chance(0.1) && next.length > 1) next.splice(rng.int(0, next.length - 1), 1);
  if (rng.chance(0.1) && next.length > 0) rng.pick(next).showName = `ชื่อ${rng.int(0, 99)}`;
  return next;
}

describe('a board brought up to date by changes equals the board read whole', () => {
  it.each([
    ['live', 20261129, false],
    ['frozen', 20261130, true],
  ])('%s: 40 random answers, every pair the log spans', (_, seed, frozen) => {
    const rng = random(seed);
    const frozenAt = frozen ? '2026-01-01T02:00:00.000Z' : null;
    let entries: Entry[] = Array.from({ length: 30 }, (__, index) => ({ userId: index + 1, scores: problems.map(() => (rng.chance(0.5) ? rng.int(0, 100) : null)) }));
    const boards: ScoreboardColumns[] = [];
    const log = createChangeLog(64);
    for (let index = 0; index < 40; index++) {
      boards.push(board(entries, { frozenAt }));
      log.record(`e${index}`, boards[index]!);
      entries = step(rng, entries, frozen);
    }
    let checked = 0;
    for (let from = 0; from < boards.length; from++) {
      for (let to = from + 1; to < boards.length; to++) {
        const users = log.changedBetween(`e${from}`, `e${to}`)!;
        const mine = shownBoardOf(boards[from]!, `e${from}`);
        const applied = applyBoardChanges(mine, JSON.parse(JSON.stringify(boardChanges(boards[to]!, users))), `e${to}`);
        const whole = shownBoardOf(boards[to]!, `e${to}`);
        expect(applied).toEqual(whole);
        // A row whose user, values and rank stayed is the same object: the page does not draw it again.
        const kept = new Map(mine.rows.map((row) => [row.userId, row]));
        for (const row of applied!.rows) {
          const old = kept.get(row.userId);
          if (old && !users.has(row.userId) && old.rank === row.rank) expect(row).toBe(old);
        }
        checked++;
      }
    }
    expect(checked).toBe((40 * 39) / 2);
  });
});
