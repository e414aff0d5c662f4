/**
 * The reads a contest's scoreboard is built from, each one query whatever the board's size, and the version
 * a built board is cached under. A board of 10,000 contestants has ~50,000 cells: read as rows, the driver
 * and the row types cost most of a second; read as a few arrays in one JSON text, a few milliseconds.
 *
 * Meant to run in one REPEATABLE READ transaction, so the version and every read see the same snapshot and
 * a board is exactly what its version says.
 */
import { z } from 'zod';
import { sql, type Queryable } from '@otog/platform/db/pool';
import { readModel } from '@otog/platform/runner/read-model';
import { RoleSchema, type Role } from '@otog/schemas/api/contract';
import { contestsProjection } from '../contests/contests.projection.ts';
import { problemsProjection } from '../problems/problems.projection.ts';
import { ratingsProjection } from '../ratings/ratings.projection.ts';
import { contestScoresProjection } from './contest-scores.projection.ts';

/** Every read model a board shows something of; the accounts (names, roles) are read beside them. */
const BOARD_PROJECTIONS = [contestsProjection, contestScoresProjection, problemsProjection, ratingsProjection];

const live = readModel({ c: contestsProjection, cs: contestScoresProjection, r: ratingsProjection });

const Text = z.object({ text: z.string() });

type Check<T> = (value: unknown) => value is T;
const isInt = (value: unknown): value is number => Number.isSafeInteger(value);
const isIntOrNull = (value: unknown): value is number | null => value === null || Number.isSafeInteger(value);
const isNumberOrNull = (value: unknown): value is number | null => value === null || (typeof value === 'number' && Number.isFinite(value));
const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
const isRoleOrNull = (value: unknown): value is Role | null => value === null || RoleSchema.options.some((role) => role === value);

type Columns<T extends Record<string, Check<unknown>>> = { [K in keyof T]: Array<T[K] extends Check<infer V> ? V : never> };

/**
 * An object of equally long arrays, read from one JSON text and checked one loop per column: zod takes
 * ~100 ms over the ~250,000 values of a 10,000-row board's cells, these loops a millisecond or two.
 */
function readColumns<const T extends Record<string, Check<unknown>>>(what: string, text: string, checks: T): Columns<T> {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new Error(`${what}: not an object of columns`);
  const read = new Map<string, unknown[]>();
  for (const [key, check] of Object.entries(checks)) {
    const column: unknown = Reflect.get(value, key);
    if (!Array.isArray(column) || !column.every(check)) throw new Error(`${what}: ${key} is not a column of the expected values`);
    if (read.size > 0 && column.length !== read.values().next().value!.length) throw new Error(`${what}: ${key} differs in length`);
    read.set(key, column);
  }
  // Every key of `checks` was read and every value passed its check.
  return Object.fromEntries(read) as Columns<T>;
}

/**
 * The version of everything a board shows, as one string: for each of its projections, the live slot and
 * where each of its checkpoint rows stands (the row's xmin: the transaction that last wrote it), and the
 * accounts' change counter.
 *
 * Why it changes whenever a board would: a projection's tables change only in a transaction that also
 * writes its checkpoint rows (a fold's batch moves them; the operators' repairs of the live slot touch
 * them), so a new xmin comes with every change, and a cutover to another slot changes the consumer names.
 * The accounts are written by commands, not folds; a trigger moves their counter in the changing
 * transaction. It also changes when nothing shown did (a batch of other contests' events): a needless
 * rebuild, never a stale board. One query on small tables.
 */
export async function boardVersion(db: Queryable): Promise<string> {
  const names = BOARD_PROJECTIONS.map((projection) => projection.name);
  return db.oneFirst(sql.type(Text)`
    SELECT coalesce((
      SELECT string_agg(cp.consumer || '/' || cp.source || '/' || cp.part || '@' || cp.xmin::text || ':' || cp.last_gpos, ',' ORDER BY cp.consumer, cp.source, cp.part)
      -- A slot's checkpoint is named projection:<name>:v<generation> (slotConsumerName).
      FROM projection_slots s JOIN consumer_checkpoints cp ON cp.consumer = 'projection:' || s.projection || ':v' || s.version
      WHERE s.state = 'live' AND s.projection = ANY(${sql.array(names, 'text')})), '')
      || ' accounts@' || (SELECT version FROM accounts_version) AS text`);
}

/** role and showName null: no account (never ranked); rating: the current one. */
const PARTICIPANT_COLUMNS = { userId: isInt, role: isRoleOrNull, showName: isStringOrNull, rating: isIntOrNull };
export type BoardParticipants = Columns<typeof PARTICIPANT_COLUMNS>;

/** Every participant by user id, with what the board shows of their account. */
export async function boardParticipants(db: Queryable, contestId: number): Promise<BoardParticipants> {
  const { c, r } = await live(db);
  const text = await db.oneFirst(sql.type(Text)`
    SELECT json_build_object(
      'userId', coalesce(array_agg(u.user_id ORDER BY u.user_id), '{}'),
      'role', coalesce(array_agg(a.role ORDER BY u.user_id), '{}'),
      'showName', coalesce(array_agg(a.show_name ORDER BY u.user_id), '{}'),
      'rating', coalesce(array_agg(ur.rating ORDER BY u.user_id), '{}'))::text AS text
    FROM ${c.participants} u LEFT JOIN accounts a ON a.id = u.user_id LEFT JOIN ${r.ratings} ur ON ur.user_id = u.user_id
    WHERE u.contest_id = ${contestId}`);
  return readColumns('participants', text, PARTICIPANT_COLUMNS);
}

/** solvedAt (acm): the first accepted submission's time (ms). */
const CELL_COLUMNS = { userId: isInt, problemId: isInt, score: isInt, penalty: isInt, solvedAt: isNumberOrNull };
export type CellColumns = Columns<typeof CELL_COLUMNS>;

/** Every cell of the contest in columns, by user then problem. */
export async function boardCells(db: Queryable, contestId: number): Promise<CellColumns> {
  const { cs } = await live(db);
  const text = await db.oneFirst(sql.type(Text)`
    SELECT json_build_object(
      'userId', coalesce(array_agg(user_id ORDER BY user_id, problem_id), '{}'),
      'problemId', coalesce(array_agg(problem_id ORDER BY user_id, problem_id), '{}'),
      'score', coalesce(array_agg(score ORDER BY user_id, problem_id), '{}'),
      'penalty', coalesce(array_agg(penalty ORDER BY user_id, problem_id), '{}'),
      'solvedAt', coalesce(array_agg(extract(epoch FROM solved_at)::float8 * 1000 ORDER BY user_id, problem_id), '{}'))::text AS text
    FROM ${cs.cells} WHERE contest_id = ${contestId}`);
  return readColumns('cells', text, CELL_COLUMNS);
}

const RESULT_COLUMNS = { userId: isInt, rank: isInt, rating: isInt };

/** The contest's rated results (rank and rating after it) by user; empty until it is rated. */
export async function boardResults(db: Queryable, contestId: number): Promise<Map<number, { rank: number; rating: number }>> {
  const { r } = await live(db);
  const text = await db.oneFirst(sql.type(Text)`
    SELECT json_build_object(
      'userId', coalesce(array_agg(user_id), '{}'), 'rank', coalesce(array_agg(rank), '{}'), 'rating', coalesce(array_agg(rating), '{}'))::text AS text
    FROM ${r.results} WHERE contest_id = ${contestId}`);
  const results = readColumns('results', text, RESULT_COLUMNS);
  return new Map(results.userId.map((userId, index) => [userId, { rank: results.rank[index]!, rating: results.rating[index]! }]));
}
