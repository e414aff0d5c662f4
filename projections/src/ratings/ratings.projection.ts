import { z } from 'zod';
import { sql, type DatabaseTransactionConnection, type Queryable } from '@otog/platform/db/pool';
import { isEvent } from '@otog/platform/eventstore/command';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import type { FoldContext } from '@otog/platform/notices/notice';
import { defineProjection, type SlotTables } from '@otog/platform/runner/projection';
import { GradingModeSchema } from '@otog/schemas/common/contest';
import {
  ContestantSignedUp,
  ContestCreated,
  ContestDeleted,
  ContestEdited,
  ContestEnded,
  ContestProblemRemoved,
  ContestProblemsAdded,
  ProblemDeleted,
  ProblemJudgingConfigured,
  RejudgeRequested,
  SubmissionCreated,
  SubmissionJudged,
  UserRegistered,
  UserUpdated,
} from '@otog/schemas/events';
import { createJournalTable, journalRejudge, journalSubmission, journalVerdict, readJudgedEntries } from '../contest-scores/journal-upkeep.ts';
import { displayRating, rateContest, type PlayerState, type Standing } from './rules/elo-mmr.ts';
import { finalStandings } from './rules/standings.ts';

export type RatingTables = SlotTables<'contests' | 'problems' | 'problem_scores' | 'members' | 'roles' | 'entries' | 'results' | 'ratings'>;
type Tx = DatabaseTransactionConnection;

/** Where rated contests stand in the rating order: by end, then id. */
export interface RatingKey {
  readonly timeEnd: string;
  readonly contestId: number;
}
const RatingKeySchema = z.object({ timeEnd: z.string(), contestId: z.number().int() });
const keyOrder = (a: RatingKey, b: RatingKey) => Date.parse(a.timeEnd) - Date.parse(b.timeEnd) || a.contestId - b.contestId;

/** The earliest rating position a batch's events touched: ratings from there on are computed again. */
class Earliest {
  key: RatingKey | null = null;
  add(key: RatingKey | null): void {
    if (key && (this.key === null || keyOrder(key, this.key) < 0)) this.key = key;
  }
}

/**
 * A player's Elo-MMR state as little-endian doubles (exact, and no decimal text to write or parse):
 * [mu, sigma, anchor mu, anchor weight, last contest (ms, NaN for none), contests, then (performance,
 * weight) per history term, oldest first].
 */
function stateNumbers(state: PlayerState): number[] {
  return [
    state.mu,
    state.sigma,
    state.anchor.mu,
    state.anchor.weight,
    state.lastContestAt ?? Number.NaN,
    state.contests,
    ...state.history.flatMap((term) => [term.performance, term.weight]),
  ];
}
/** The states of `states`, one after another, and each one's [byte offset, byte length] in it. */
function packStates(states: readonly PlayerState[]): { bytes: Buffer; spans: Array<[number, number]> } {
  const numbers = states.map(stateNumbers);
  const bytes = Buffer.alloc(numbers.reduce((total, list) => total + list.length * 8, 0));
  const spans: Array<[number, number]> = [];
  let offset = 0;
  for (const list of numbers) {
    spans.push([offset, list.length * 8]);
    for (const value of list) offset = bytes.writeDoubleLE(value, offset);
  }
  return { bytes, spans };
}
function unpackState(bytes: Buffer): PlayerState {
  const packed = Array.from({ length: bytes.length / 8 }, (_, index) => bytes.readDoubleLE(index * 8));
  const [mu, sigma, anchorMu, anchorWeight, lastContestAt, contests, ...terms] = packed as [number, number, number, number, number, number, ...number[]];
  const history = [];
  for (let i = 0; i + 1 < terms.length; i += 2) history.push({ performance: terms[i]!, weight: terms[i + 1]! });
  return { mu, sigma, anchor: { mu: anchorMu, weight: anchorWeight }, lastContestAt: Number.isNaN(lastContestAt) ? null : lastContestAt, contests, history };
}

const FinishedSchema = z.object({
  contestId: z.number().int(),
  gradingMode: GradingModeSchema,
  contestStart: z.number(),
  contestEnd: z.number(),
});
const PriorStateSchema = z.object({ userId: z.number().int(), state: z.instanceof(Buffer) });

/**
 * Ratings (Elo-MMR, rules/elo-mmr.ts): every `rated` contest whose end a ContestEnded confirmed rates its
 * final standings, in order of end time (then id). It keeps its own copy of what the standings need (the
 * contest's settings, problems, members and their roles, the full scores and the journal of judged
 * submissions), so it never reads another projection's tables mid-fold.
 *
 * The results are a function of those inputs only: whatever in a batch changes the standings of a finished
 * rated contest (a rejudge, a verdict, an edit, a deletion, an end) marks the earliest rating position it
 * touches, and at the end of the batch every rated contest from there on is rated again from the states
 * before it. A rebuild from the log gives the same numbers to the last digit, however the log is batched.
 *
 * Tables: `results` (contest, user, rank, the rating after it, the player's state in binary) and `ratings`
 * (each rated user's current rating: their latest result's).
 */
export const ratingsProjection = defineProjection({
  name: 'ratings',
  version: 1,
  tables: ['contests', 'problems', 'problem_scores', 'members', 'roles', 'entries', 'results', 'ratings'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.contests} (
      contest_id    integer     PRIMARY KEY,
      mode          text        NOT NULL,
      grading_mode  text        NOT NULL,
      time_start    timestamptz NOT NULL,
      time_end      timestamptz NOT NULL,
      -- The end a ContestEnded confirmed: the contest is final while it equals time_end.
      ended_end     timestamptz)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.problems} (
      contest_id integer NOT NULL, problem_id integer NOT NULL, PRIMARY KEY (contest_id, problem_id))`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.problem_scores} (problem_id integer PRIMARY KEY, score integer NOT NULL)`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.members} (
      contest_id integer NOT NULL, user_id integer NOT NULL, PRIMARY KEY (contest_id, user_id))`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.roles} (user_id integer PRIMARY KEY, role text NOT NULL)`);
    await createJournalTable(tx, t.entries);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.results} (
      contest_id  integer  NOT NULL,
      user_id     integer  NOT NULL,
      rank        integer  NOT NULL,
      rating      integer  NOT NULL,
      state       bytea    NOT NULL,
      -- The contest's end (its place in the rating order), so a user's latest result is one index read.
      time_end    timestamptz NOT NULL,
      PRIMARY KEY (contest_id, user_id))`);
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.ratings} (
      user_id     integer PRIMARY KEY,
      rating      integer NOT NULL,
      contest_id  integer NOT NULL)`);
    const index = (table: keyof RatingTables, suffix: string) => sql.identifier([`${t[table].names[0]}_${suffix}`]);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('results', 'user')} ON ${t.results} (user_id, time_end, contest_id)`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('results', 'order')} ON ${t.results} (time_end, contest_id)`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('members', 'user')} ON ${t.members} (user_id)`);
    await tx.query(sql.unsafe`CREATE INDEX IF NOT EXISTS ${index('contests', 'order')} ON ${t.contests} (time_end, contest_id)`);
  },
  batch: {
    handles: [
      ContestCreated.type,
      ContestEdited.type,
      ContestDeleted.type,
      ContestEnded.type,
      ContestProblemsAdded.type,
      ContestProblemRemoved.type,
      ContestantSignedUp.type,
      SubmissionCreated.type,
      RejudgeRequested.type,
      SubmissionJudged.type,
      ProblemJudgingConfigured.type,
      ProblemDeleted.type,
      UserRegistered.type,
      UserUpdated.type,
    ],
    async apply(tx, events, t, context) {
      const earliest = new Earliest();
      const touched = new Set<number>();
      for (const event of events) await fold(tx, t, event, earliest, touched);
      if (earliest.key) await rateFrom(tx, t, earliest.key, touched, context);
    },
  },
});

/** The contests among `where` that are final rated contests: their rating positions. */
async function finalKeys(tx: Tx, t: RatingTables, where: ReturnType<typeof sql.fragment>): Promise<RatingKey[]> {
  return [
    ...(await tx.any(sql.type(RatingKeySchema)`
      SELECT contest_id AS "contestId", to_json(time_end)#>>'{}' AS "timeEnd" FROM ${t.contests}
      WHERE mode = 'rated' AND ended_end = time_end AND ${where}`)),
  ];
}
const finalKey = async (tx: Tx, t: RatingTables, contestId: number) => (await finalKeys(tx, t, sql.fragment`contest_id = ${contestId}`))[0] ?? null;

async function fold(tx: Tx, t: RatingTables, event: StoredEvent, earliest: Earliest, touched: Set<number>): Promise<void> {
  const markContest = async (contestId: number) => earliest.add(await finalKey(tx, t, contestId));
  const markContests = async (where: ReturnType<typeof sql.fragment>) => {
    for (const key of await finalKeys(tx, t, where)) earliest.add(key);
  };
  const addMember = async (contestId: number, userId: number) => {
    const added = await tx.maybeOneFirst(sql.unsafe`
      INSERT INTO ${t.members} (contest_id, user_id)
      SELECT ${contestId}, ${userId} WHERE EXISTS (SELECT 1 FROM ${t.contests} WHERE contest_id = ${contestId})
      ON CONFLICT DO NOTHING RETURNING user_id`);
    if (added !== null) await markContest(contestId);
  };

  if (isEvent(event, ContestCreated)) {
    const { data } = event;
    const s = data.settings;
    await tx.query(sql.unsafe`
      INSERT INTO ${t.contests} (contest_id, mode, grading_mode, time_start, time_end)
      VALUES (${data.contestId}, ${s.mode}, ${s.gradingMode}, ${s.timeStart}::timestamptz, ${s.timeEnd}::timestamptz)
      ON CONFLICT (contest_id) DO NOTHING`);
  } else if (isEvent(event, ContestEdited)) {
    const { data } = event;
    const s = data.settings;
    const before = await finalKey(tx, t, data.contestId);
    // A new name or announcement changes no standing.
    const changed = await tx.maybeOneFirst(sql.unsafe`
      UPDATE ${t.contests} SET mode = ${s.mode}, grading_mode = ${s.gradingMode}, time_start = ${s.timeStart}::timestamptz,
        time_end = ${s.timeEnd}::timestamptz
      WHERE contest_id = ${data.contestId}
        AND (mode, grading_mode, time_start, time_end) IS DISTINCT FROM (${s.mode}, ${s.gradingMode}, ${s.timeStart}::timestamptz, ${s.timeEnd}::timestamptz)
      RETURNING contest_id`);
    if (changed !== null) {
      earliest.add(before);
      await markContest(data.contestId);
    }
  } else if (isEvent(event, ContestDeleted)) {
    const { data } = event;
    await markContest(data.contestId);
    for (const table of [t.contests, t.problems, t.members, t.entries]) await tx.query(sql.unsafe`DELETE FROM ${table} WHERE contest_id = ${data.contestId}`);
    for (const userId of await tx.anyFirst(sql.unsafe`DELETE FROM ${t.results} WHERE contest_id = ${data.contestId} RETURNING user_id`)) touched.add(Number(userId));
  } else if (isEvent(event, ContestEnded)) {
    const { data } = event;
    await tx.query(sql.unsafe`UPDATE ${t.contests} SET ended_end = ${data.timeEnd}::timestamptz WHERE contest_id = ${data.contestId}`);
    await markContest(data.contestId);
  } else if (isEvent(event, ContestProblemsAdded)) {
    const { data } = event;
    await tx.query(sql.unsafe`
      INSERT INTO ${t.problems} (contest_id, problem_id)
      SELECT ${data.contestId}, problem_id FROM unnest(${sql.array(data.problemIds, 'int4')}::integer[]) AS p(problem_id)
      WHERE EXISTS (SELECT 1 FROM ${t.contests} WHERE contest_id = ${data.contestId})
      ON CONFLICT DO NOTHING`);
    await markContest(data.contestId);
  } else if (isEvent(event, ContestProblemRemoved)) {
    const { data } = event;
    await tx.query(sql.unsafe`DELETE FROM ${t.problems} WHERE contest_id = ${data.contestId} AND problem_id = ${data.problemId}`);
    await markContest(data.contestId);
  } else if (isEvent(event, ContestantSignedUp)) {
    const { data } = event;
    await addMember(data.contestId, data.userId);
  } else if (isEvent(event, SubmissionCreated)) {
    const { data } = event;
    await journalSubmission(tx, { entries: t.entries, contests: t.contests }, data, event.occurredAt, event.streamPosition);
    if (data.contestId !== null) await addMember(data.contestId, data.userId);
  } else if (isEvent(event, RejudgeRequested)) {
    const { data } = event;
    const cell = await journalRejudge(tx, t.entries, data.submissionId, event.streamPosition);
    if (cell) await markContest(cell.contestId);
  } else if (isEvent(event, SubmissionJudged)) {
    const { data } = event;
    const cell = await journalVerdict(tx, t.entries, data);
    if (cell) await markContest(cell.contestId);
  } else if (isEvent(event, ProblemJudgingConfigured)) {
    const { data } = event;
    const changed = await tx.maybeOneFirst(sql.unsafe`
      INSERT INTO ${t.problem_scores} AS p (problem_id, score) VALUES (${data.problemId}, ${data.score})
      ON CONFLICT (problem_id) DO UPDATE SET score = excluded.score WHERE p.score IS DISTINCT FROM excluded.score
      RETURNING problem_id`);
    if (changed !== null) await markContests(sql.fragment`contest_id IN (SELECT contest_id FROM ${t.entries} WHERE problem_id = ${data.problemId})`);
  } else if (isEvent(event, ProblemDeleted)) {
    const { problemId } = event.data;
    await markContests(sql.fragment`(contest_id IN (SELECT contest_id FROM ${t.problems} WHERE problem_id = ${problemId})
      OR contest_id IN (SELECT contest_id FROM ${t.entries} WHERE problem_id = ${problemId}))`);
    for (const table of [t.entries, t.problems, t.problem_scores]) await tx.query(sql.unsafe`DELETE FROM ${table} WHERE problem_id = ${problemId}`);
  } else if (isEvent(event, UserRegistered) || isEvent(event, UserUpdated)) {
    const { data } = event;
    const changed = await tx.maybeOneFirst(sql.unsafe`
      INSERT INTO ${t.roles} AS r (user_id, role) VALUES (${data.userId}, ${data.role})
      ON CONFLICT (user_id) DO UPDATE SET role = excluded.role WHERE r.role IS DISTINCT FROM excluded.role
      RETURNING user_id`);
    if (changed !== null) await markContests(sql.fragment`contest_id IN (SELECT contest_id FROM ${t.members} WHERE user_id = ${data.userId})`);
  }
}

type Finished = z.infer<typeof FinishedSchema>;

/** A finished contest's standings from this slot's copy of the contest, its members and its journal. */
async function standingsOf(tx: Queryable, t: RatingTables, contest: Finished): Promise<Standing[]> {
  const { contestId } = contest;
  const participants = (
    await tx.anyFirst(sql.unsafe`
      SELECT m.user_id FROM ${t.members} m JOIN ${t.roles} r ON r.user_id = m.user_id AND r.role = 'user'
      WHERE m.contest_id = ${contestId} ORDER BY m.user_id`)
  ).map(Number);
  const problemIds = (await tx.anyFirst(sql.unsafe`SELECT problem_id FROM ${t.problems} WHERE contest_id = ${contestId}`)).map(Number);
  const scores = await tx.any(sql.type(z.object({ problemId: z.number().int(), score: z.number().int() }))`
    SELECT problem_id AS "problemId", score FROM ${t.problem_scores} WHERE problem_id = ANY(${sql.array(problemIds, 'int4')})`);
  return finalStandings({
    gradingMode: contest.gradingMode,
    contestStart: contest.contestStart,
    problemIds: new Set(problemIds),
    problemScores: new Map(scores.map((row) => [row.problemId, row.score])),
    participants,
    entries: await readJudgedEntries(tx, t.entries, sql.fragment`contest_id = ${contestId}`),
  });
}

/**
 * These users' states after their latest result before `before`, by user: one backward step of the
 * (user, end) index each, never past `before` (where a pass has just deleted rows).
 */
async function priorStates(tx: Queryable, t: RatingTables, userIds: readonly number[], before: RatingKey): Promise<Map<number, PlayerState>> {
  if (userIds.length === 0) return new Map();
  const rows = await tx.any(sql.type(PriorStateSchema)`
    SELECT u.user_id AS "userId", p.state FROM unnest(${sql.array([...userIds], 'int4')}::integer[]) AS u(user_id)
    CROSS JOIN LATERAL (
      SELECT r.state FROM ${t.results} r
      WHERE r.user_id = u.user_id AND (r.time_end, r.contest_id) < (${before.timeEnd}::timestamptz, ${before.contestId})
      ORDER BY r.time_end DESC, r.contest_id DESC LIMIT 1) p`);
  return new Map(rows.map((row) => [row.userId, unpackState(row.state)]));
}

const FINISHED_COLUMNS = sql.fragment`contest_id AS "contestId", grading_mode AS "gradingMode",
  extract(epoch FROM time_start)::float8 * 1000 AS "contestStart", extract(epoch FROM time_end)::float8 * 1000 AS "contestEnd"`;

/**
 * Rates every final rated contest from `from` on again, in order, from the states before it (the fold's
 * last step, and the operator's recompute). `touched` holds users whose results the batch dropped (a deleted
 * contest); their rating is set again too.
 */
export async function rateFrom(
  tx: Tx,
  t: RatingTables,
  from: RatingKey,
  touched: Set<number>,
  context: FoldContext,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<{ contests: number; results: number }> {
  const atOrAfter = (alias: string) =>
    sql.fragment`(${sql.identifier([alias, 'time_end'])}, ${sql.identifier([alias, 'contest_id'])}) >= (${from.timeEnd}::timestamptz, ${from.contestId})`;
  // By the end each result was rated at: an edited contest's results go whichever way its end moved.
  const dropped = await tx.any(sql.type(z.object({ contestId: z.number().int(), userId: z.number().int() }))`
    DELETE FROM ${t.results} r WHERE ${atOrAfter('r')} RETURNING r.contest_id AS "contestId", r.user_id AS "userId"`);
  const changedContests = new Set(dropped.map((row) => row.contestId));
  for (const row of dropped) touched.add(row.userId);

  const contests = await tx.any(sql.type(FinishedSchema)`
    SELECT ${FINISHED_COLUMNS} FROM ${t.contests} c WHERE mode = 'rated' AND ended_end = time_end AND ${atOrAfter('c')}
    ORDER BY time_end, contest_id`);
  const states = new Map<number, PlayerState>();
  /** The last contest of this pass each user was rated in: their rating now. */
  const latestContest = new Map<number, number>();
  let results = 0;
  for (const [index, contest] of contests.entries()) {
    const { contestId } = contest;
    const standings = await standingsOf(tx, t, contest);
    // Who is new to this pass starts from their latest result, all of which are before `from`.
    const unknown = standings.map((standing) => standing.userId).filter((userId) => !states.has(userId));
    for (const [userId, state] of await priorStates(tx, t, unknown, from)) states.set(userId, state);
    const rated = rateContest(states, standings, contest.contestEnd);
    const rows = standings.map(({ userId, rank }) => ({ userId, rank, state: rated.get(userId)! }));
    // Every state in one binary parameter, each row taking its slice.
    const { bytes, spans } = packStates(rows.map((row) => row.state));
    await tx.query(sql.unsafe`
      INSERT INTO ${t.results} (contest_id, user_id, rank, rating, state, time_end)
      SELECT ${contestId}, user_id, rank, rating, substring(${sql.binary(bytes)}::bytea FROM state_offset + 1 FOR state_length), c.time_end
      FROM ${sql.unnest(
        rows.map((row, index) => [row.userId, row.rank, displayRating(row.state), spans[index]![0], spans[index]![1]]),
        ['int4', 'int4', 'int4', 'int4', 'int4'],
      )} AS x(user_id, rank, rating, state_offset, state_length) JOIN ${t.contests} c ON c.contest_id = ${contestId}`);
    for (const row of rows) {
      states.set(row.userId, row.state);
      latestContest.set(row.userId, contestId);
    }
    changedContests.add(contestId);
    results += rows.length;
    onProgress(index + 1, contests.length);
  }

  // Rated in this pass: their last result here is their rating. Only dropped: their latest result left, if any.
  await tx.query(sql.unsafe`
    INSERT INTO ${t.ratings} AS u (user_id, rating, contest_id)
    SELECT * FROM ${sql.unnest(
      [...latestContest].map(([userId, contestId]) => [userId, displayRating(states.get(userId)!), contestId]),
      ['int4', 'int4', 'int4'],
    )} AS x(user_id, rating, contest_id)
    ON CONFLICT (user_id) DO UPDATE SET rating = excluded.rating, contest_id = excluded.contest_id`);
  const onlyDropped = sql.array([...touched].filter((userId) => !latestContest.has(userId)), 'int4');
  await tx.query(sql.unsafe`DELETE FROM ${t.ratings} WHERE user_id = ANY(${onlyDropped})`);
  await tx.query(sql.unsafe`
    INSERT INTO ${t.ratings} (user_id, rating, contest_id)
    SELECT DISTINCT ON (r.user_id) r.user_id, r.rating, r.contest_id FROM ${t.results} r
    WHERE r.user_id = ANY(${onlyDropped}) ORDER BY r.user_id, r.time_end DESC, r.contest_id DESC`);
  // Boards show each row's rank and rating after the contest.
  for (const contestId of changedContests) context.notify({ topic: 'scoreboard', key: String(contestId) });
  return { contests: contests.length, results };
}

/** What rating `contestId` would give now if it were final: each participant's rank and rating before and after. */
export async function previewContest(
  db: Queryable,
  t: RatingTables,
  contestId: number,
): Promise<{ mode: string; rows: Array<{ userId: number; rank: number; before: number | null; after: number }> } | null> {
  const contest = await db.maybeOne(sql.type(FinishedSchema.extend({ mode: z.string(), timeEnd: z.string() }))`
    SELECT ${FINISHED_COLUMNS}, mode, to_json(time_end)#>>'{}' AS "timeEnd" FROM ${t.contests} WHERE contest_id = ${contestId}`);
  if (!contest) return null;
  const standings = await standingsOf(db, t, contest);
  const priors = await priorStates(
    db,
    t,
    standings.map((standing) => standing.userId),
    { timeEnd: contest.timeEnd, contestId },
  );
  const rated = rateContest(priors, standings, contest.contestEnd);
  return {
    mode: contest.mode,
    rows: standings.map(({ userId, rank }) => {
      const before = priors.get(userId);
      return { userId, rank, before: before ? displayRating(before) : null, after: displayRating(rated.get(userId)!) };
    }),
  };
}
