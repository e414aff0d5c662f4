import { randomUUID } from 'node:crypto';
import { UniqueIntegrityConstraintViolationError, type FragmentSqlToken } from 'slonik';
import type { EventRegistry } from '@otog/schemas/events';
import { sql, type DatabasePool, type DatabaseTransactionConnection, type Queryable } from '../db/pool.ts';
import { DuplicateEventError, InvalidAppendError, WrongExpectedVersionError } from './errors.ts';
import { LOG_START, type Position } from './position.ts';

/**
 * Channel woken on every commit that appended events (NOTIFY is delivered on commit only). The payload is
 * the appended event types, comma-separated, so a consumer can sleep through events it does not read; an
 * empty payload means "some events".
 */
export const EVENTS_CHANNEL = 'otog_events';

/** Whether a wake-up on EVENTS_CHANNEL carries events of any of `types` (or cannot tell). */
export function wakesFor(payload: string, types: ReadonlySet<string> | undefined): boolean {
  return !types || payload === '' || payload.split(',').some((type) => types.has(type));
}

export interface NewEvent {
  readonly type: string;
  readonly data: unknown;
  /** Ordering key across streams, `<kind>:<key>` of a kind the event's definition declares (schemas/events/scopes.ts). Kafka messages are keyed by it. */
  readonly scope: string;
  /** Supply a deterministic id (e.g. uuidv5 of a natural key) to make a retried command idempotent. */
  readonly eventId?: string;
  /** Domain time; projections use it instead of now(). Defaults to the append time. */
  readonly occurredAt?: string;
  readonly meta?: Readonly<Record<string, unknown>>;
}

export interface StoredEvent<TData = unknown> extends Position {
  readonly eventId: string;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly type: string;
  /** The version the event was written with; `data` has already been upcast to the current version. */
  readonly schemaVersion: number;
  readonly scope: string;
  readonly occurredAt: string;
  readonly recordedAt: string;
  readonly data: TData;
  readonly meta: Readonly<Record<string, unknown>>;
}

/** What readScopeFields gives of an event: where it is, what it is, and the fields picked from its data. */
export type PickedEvent = Pick<StoredEvent, 'txid' | 'gpos' | 'type' | 'schemaVersion' | 'streamPosition' | 'occurredAt' | 'data'>;

export interface ScopeReadOptions {
  readonly after?: Position;
  readonly until?: Date;
  readonly limit?: number;
}

export type ExpectedVersion = number | 'any' | 'none';

export interface AppendOptions {
  /** 'none': the stream must not exist; a number: the stream must be exactly at that version. */
  readonly expectedVersion?: ExpectedVersion;
  /** Runs in the append's transaction before commit: command-side rows that must commit with the events. */
  readonly withinTransaction?: (tx: DatabaseTransactionConnection, appended: readonly AppendedEvent[]) => Promise<void>;
}

export interface AppendedEvent extends Position {
  readonly eventId: string;
  readonly streamPosition: number;
}

export interface AppendResult {
  readonly streamVersion: number;
  readonly events: readonly AppendedEvent[];
  /** True when every event id was already in the log: the retry of an append that had succeeded. */
  readonly deduplicated: boolean;
  /** The position of the last event: wait for a projection to pass it to read your own write. */
  readonly lastPosition: Position;
}

export interface EventStore {
  readonly registry: EventRegistry;
  append(streamId: string, events: readonly NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  /** Same, inside a transaction the caller owns (its other writes commit or roll back with the events). */
  appendInTransaction(
    tx: DatabaseTransactionConnection,
    streamId: string,
    events: readonly NewEvent[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /**
   * Up to `limit` committed events after `after`, in (txid, gpos) order, only from transactions older than
   * every transaction still running, so no later read can find an event before the ones returned.
   */
  readAfter(db: Queryable, after: Position, limit: number, options?: { decode?: boolean }): Promise<StoredEvent[]>;
  /**
   * readAfter for a consumer of some types only: up to `limit` events of `types` among the next
   * `limit * TYPED_READ_WINDOW` visible events, and how far the read looked (`scannedUpTo`: the end of that
   * window once fewer than `limit` matched), so the consumer's checkpoint moves past what it skips without
   * the skipped events ever leaving Postgres.
   */
  readTypesAfter(
    db: Queryable,
    after: Position,
    types: ReadonlySet<string>,
    limit: number,
    options?: { decode?: boolean },
  ): Promise<{ events: StoredEvent[]; scannedUpTo: Position | null }>;
  /**
   * Whether a consumer of `types` whose checkpoint is `after` may still have events to fold up to `upTo`:
   * false only when no event of those types lies in between and everything up to `upTo` is settled (below
   * the read horizon). Such a consumer has done all it would for `upTo` even if it slept through it.
   */
  hasTypesBetween(db: Queryable, after: Position, upTo: Position, types: ReadonlySet<string>): Promise<boolean>;
  readStream(streamId: string, fromStreamPosition?: number): Promise<StoredEvent[]>;
  /** A stream's events of `types` only (a command's state needs few of them) and the stream's version. */
  readStreamOf(streamId: string, types: ReadonlySet<string>): Promise<{ events: StoredEvent[]; version: number }>;
  /**
   * One scope's committed events of `types` in log order: after `after`, at most `limit` of them, only
   * those that occurred at or before `until` when given. The history of one contest (or user), for replays
   * as of a moment and one-contest rebuilds.
   */
  readScope(db: Queryable, scope: string, types: ReadonlySet<string>, options?: ScopeReadOptions): Promise<StoredEvent[]>;
  /**
   * readScope for bulk readers that need a few fields of large events: `data` is what the `fields`
   * expression gives over the stored `data` column, neither decoded nor upcast. The caller checks each
   * event's schemaVersion before trusting the field names.
   */
  readScopeFields(db: Queryable, scope: string, types: ReadonlySet<string>, fields: FragmentSqlToken, options?: ScopeReadOptions): Promise<PickedEvent[]>;
  /** How many events of `types` the scope holds (a progress bar's total). */
  countScope(db: Queryable, scope: string, types: ReadonlySet<string>): Promise<number>;
  /** The given events as stored (not upcast), in log order; unknown ids are left out. */
  readEvents(db: Queryable, eventIds: readonly string[]): Promise<StoredEvent[]>;
  /** The newest position a reader can see now; nothing at or below it is still in flight. */
  headPosition(db?: Queryable): Promise<Position>;
}

const MAX_BATCH = 10_000;
/** A type-filtered read looks at most this many times its limit of events of any type per step. */
const TYPED_READ_WINDOW = 10;
const STREAM_ID = /^[A-Za-z0-9][A-Za-z0-9:_.-]{0,199}$/;
const SCOPE = /^[a-z][a-z0-9_-]{0,49}:[A-Za-z0-9_.-]{1,150}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface PreparedEvent {
  eventId: string;
  type: string;
  version: number;
  scope: string;
  occurredAt: string;
  data: string;
  meta: string;
}

function prepare(registry: EventRegistry, streamId: string, events: readonly NewEvent[]): PreparedEvent[] {
  if (!STREAM_ID.test(streamId)) throw new InvalidAppendError(`invalid stream id "${streamId.slice(0, 60)}"`);
  if (events.length === 0) throw new InvalidAppendError('nothing to append');
  if (events.length > MAX_BATCH) throw new InvalidAppendError(`at most ${MAX_BATCH} events per append`);
  const now = new Date().toISOString();
  const ids = new Set<string>();
  return events.map((event) => {
    const eventId = (event.eventId ?? randomUUID()).toLowerCase();
    if (!UUID.test(eventId)) throw new InvalidAppendError(`event id "${eventId}" is not a UUID`);
    if (ids.has(eventId)) throw new InvalidAppendError(`event id ${eventId} appears twice in one append`);
    ids.add(eventId);
    if (!SCOPE.test(event.scope)) throw new InvalidAppendError(`invalid scope "${event.scope}" (expected kind:id)`);
    const occurredAt = event.occurredAt ?? now;
    if (Number.isNaN(Date.parse(occurredAt))) throw new InvalidAppendError(`occurredAt "${occurredAt}" is not a date`);
    const { version, data } = registry.validateForAppend(event.type, event.data, event.scope);
    return {
      eventId,
      type: event.type,
      version,
      scope: event.scope,
      occurredAt,
      data: JSON.stringify(data),
      meta: JSON.stringify(event.meta ?? {}),
    };
  });
}

interface EventRow {
  gpos: bigint;
  txid: bigint;
  event_id: string;
  stream_id: string;
  stream_position: number;
  type: string;
  schema_version: number;
  scope: string;
  occurred_at: string;
  recorded_at: string;
  data: unknown;
  meta: Record<string, unknown>;
}

type PickedRow = Pick<EventRow, 'txid' | 'gpos' | 'type' | 'schema_version' | 'stream_position' | 'occurred_at' | 'data'>;

interface AppendedRow {
  event_id: string;
  stream_id: string;
  stream_position: number;
  txid: bigint;
  gpos: bigint;
}

const toAppended = (row: AppendedRow): AppendedEvent => ({
  eventId: row.event_id,
  streamPosition: row.stream_position,
  txid: row.txid,
  gpos: row.gpos,
});

const EVENT_COLUMNS = sql.fragment`gpos, txid, event_id, stream_id, stream_position, type, schema_version, scope,
  occurred_at, recorded_at, data, meta`;

/** One scope's events of `types`, in log order, with the given columns. */
function scopeQuery(scope: string, types: ReadonlySet<string>, columns: FragmentSqlToken, options: ScopeReadOptions) {
  const { after = LOG_START, until, limit = MAX_BATCH } = options;
  return sql.unsafe`
    SELECT ${columns} FROM event_log
    WHERE scope = ${scope} AND type = ANY(${sql.array([...types], 'text')})
      AND (txid, gpos) > (${after.txid.toString()}::xid8, ${after.gpos.toString()}::bigint)
      ${until ? sql.fragment`AND occurred_at <= ${until.toISOString()}::timestamptz` : sql.fragment``}
    ORDER BY txid, gpos
    LIMIT ${limit}`;
}

export function createEventStore(pool: DatabasePool, registry: EventRegistry): EventStore {
  const toStored = (row: EventRow, decode: boolean): StoredEvent => ({
    txid: row.txid,
    gpos: row.gpos,
    eventId: row.event_id,
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    type: row.type,
    schemaVersion: row.schema_version,
    scope: row.scope,
    occurredAt: row.occurred_at,
    recordedAt: row.recorded_at,
    data: decode ? registry.decode(row.type, row.schema_version, row.data) : row.data,
    meta: row.meta,
  });

  async function appendOnce(
    tx: DatabaseTransactionConnection,
    streamId: string,
    prepared: PreparedEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    // Appends to one stream queue here until the previous one commits, so the duplicate check and the
    // version read below are final and writers never race on positions (the primary key stays as backstop).
    // It is a statement of its own: a statement's snapshot is taken before it waits for the lock.
    await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended(${streamId}, 7461))`);
    const ids = prepared.map((e) => e.eventId);
    const state = (await tx.one(sql.unsafe`
      SELECT
        coalesce((SELECT max(stream_position) FROM event_log WHERE stream_id = ${streamId}), 0) AS current,
        coalesce((
          SELECT json_agg(json_build_object('event_id', event_id, 'stream_id', stream_id,
            'stream_position', stream_position, 'txid', txid::text, 'gpos', gpos::text) ORDER BY txid, gpos)
          FROM event_log WHERE event_id = ANY(${sql.array(ids, 'uuid')})), '[]') AS existing`)) as {
      current: number;
      existing: Array<Omit<AppendedRow, 'txid' | 'gpos'> & { txid: string; gpos: string }>;
    };
    const existing = state.existing.map((row) => ({ ...row, txid: BigInt(row.txid), gpos: BigInt(row.gpos) }));
    if (existing.length === prepared.length && existing.every((row) => row.stream_id === streamId)) {
      const events = existing.map(toAppended);
      const last = events[events.length - 1]!;
      return { streamVersion: last.streamPosition, events, deduplicated: true, lastPosition: last };
    }
    if (existing.length > 0) throw new DuplicateEventError(existing.map((row) => row.event_id));

    const current = state.current;
    const expected = options.expectedVersion ?? 'any';
    if (expected !== 'any' && (expected === 'none' ? current !== 0 : expected !== current)) {
      throw new WrongExpectedVersionError(streamId, expected, current);
    }
    // The wake-up rides on the INSERT (an InitPlan, run once); NOTIFY is delivered on commit only.
    const rows = (await tx.any(sql.unsafe`
      WITH appended AS (
        INSERT INTO event_log (event_id, stream_id, stream_position, type, schema_version, scope, occurred_at, data, meta)
        SELECT * FROM ${sql.unnest(
          prepared.map((e, i) => [e.eventId, streamId, current + i + 1, e.type, e.version, e.scope, e.occurredAt, e.data, e.meta]),
          ['uuid', 'text', 'int4', 'text', 'int4', 'text', 'timestamptz', 'jsonb', 'jsonb'],
        )}
        RETURNING event_id, stream_id, stream_position, txid, gpos)
      SELECT appended.*, (SELECT pg_notify(${EVENTS_CHANNEL}, ${[...new Set(prepared.map((e) => e.type))].join(',')})) AS notified
      FROM appended`)) as readonly AppendedRow[];
    const events = rows.map(toAppended).sort((a, b) => a.streamPosition - b.streamPosition);
    if (options.withinTransaction) await options.withinTransaction(tx, events);
    const last = events[events.length - 1]!;
    return { streamVersion: last.streamPosition, events, deduplicated: false, lastPosition: last };
  }

  /**
   * Runs one append attempt, again when it lost a race with an append of the same event ids to another
   * stream (the next attempt then reports the duplicate). Same-stream races cannot happen: see the lock.
   */
  async function withIdRaceRetry(attempt: () => Promise<AppendResult>): Promise<AppendResult> {
    for (let tries = 1; ; tries += 1) {
      try {
        return await attempt();
      } catch (error) {
        const idRace = error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'event_log_event_id_key';
        if (!idRace || tries >= 3) throw error;
      }
    }
  }

  async function appendInTransaction(
    outer: DatabaseTransactionConnection,
    streamId: string,
    events: readonly NewEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    const prepared = prepare(registry, streamId, events);
    // A savepoint per attempt, so a retry does not abort the caller's transaction.
    return withIdRaceRetry(() => outer.transaction((tx) => appendOnce(tx, streamId, prepared, options)));
  }

  return {
    registry,
    async append(streamId, events, options = {}) {
      const prepared = prepare(registry, streamId, events);
      return withIdRaceRetry(() => pool.transaction((tx) => appendOnce(tx, streamId, prepared, options)));
    },
    appendInTransaction,
    async readAfter(db, after, limit, options = {}) {
      const rows = await db.any(sql.unsafe`
        SELECT ${EVENT_COLUMNS} FROM event_log
        WHERE (txid, gpos) > (${after.txid.toString()}::xid8, ${after.gpos.toString()}::bigint)
          AND txid < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY txid, gpos
        LIMIT ${limit}`);
      return (rows as readonly EventRow[]).map((row) => toStored(row, options.decode ?? true));
    },
    async readTypesAfter(db, after, types, limit, options = {}) {
      const from = sql.fragment`(${after.txid.toString()}::xid8, ${after.gpos.toString()}::bigint)`;
      // A window of the next visible events, walked in (txid, gpos) order on its index whatever the types:
      // a filter on a rare type must never turn into a scan of the whole log. Below the read horizon rows
      // are committed for good, so the window still holds when the second statement reads it.
      const window = (await db.maybeOne(sql.unsafe`
        SELECT txid, gpos FROM (
          SELECT txid, gpos FROM event_log
          WHERE (txid, gpos) > ${from} AND txid < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY txid, gpos
          LIMIT ${limit * TYPED_READ_WINDOW}) w
        ORDER BY txid DESC, gpos DESC
        LIMIT 1`)) as Position | null;
      if (!window) return { events: [], scannedUpTo: null };
      const rows = (await db.any(sql.unsafe`
        SELECT ${EVENT_COLUMNS} FROM event_log
        WHERE (txid, gpos) > ${from} AND (txid, gpos) <= (${window.txid.toString()}::xid8, ${window.gpos.toString()}::bigint)
          AND type = ANY(${sql.array([...types], 'text')})
        ORDER BY txid, gpos
        LIMIT ${limit}`)) as readonly EventRow[];
      const events = rows.map((row) => toStored(row, options.decode ?? true));
      return { events, scannedUpTo: events.length < limit ? { txid: window.txid, gpos: window.gpos } : events[events.length - 1]! };
    },
    async hasTypesBetween(db, after, upTo, types) {
      const upToTxid = upTo.txid.toString();
      return (await db.oneFirst(sql.unsafe`
        SELECT ${upToTxid}::xid8 >= pg_snapshot_xmin(pg_current_snapshot()) OR EXISTS (
          SELECT 1 FROM event_log
          WHERE (txid, gpos) > (${after.txid.toString()}::xid8, ${after.gpos.toString()}::bigint)
            AND (txid, gpos) <= (${upToTxid}::xid8, ${upTo.gpos.toString()}::bigint)
            AND type = ANY(${sql.array([...types], 'text')}))`)) as boolean;
    },
    async readStreamOf(streamId, types) {
      // One statement, so one snapshot: the version and the events a command decides on must agree, or
      // an append committed between two reads would pass the expected-version check on stale events.
      const rows = (await pool.any(sql.unsafe`
        SELECT v.version, e.* FROM (SELECT coalesce(max(stream_position), 0) AS version FROM event_log WHERE stream_id = ${streamId}) v
        LEFT JOIN LATERAL (
          SELECT ${EVENT_COLUMNS} FROM event_log WHERE stream_id = ${streamId} AND type = ANY(${sql.array([...types], 'text')})
        ) e ON TRUE
        ORDER BY e.stream_position`)) as ReadonlyArray<EventRow & { version: number }>;
      const events = rows.filter((row) => row.event_id !== null).map((row) => toStored(row, true));
      return { events, version: Number(rows[0]?.version ?? 0) };
    },
    async readStream(streamId, fromStreamPosition = 1) {
      const rows = await pool.any(sql.unsafe`
        SELECT ${EVENT_COLUMNS} FROM event_log
        WHERE stream_id = ${streamId} AND stream_position >= ${fromStreamPosition}
        ORDER BY stream_position`);
      return (rows as readonly EventRow[]).map((row) => toStored(row, true));
    },
    async readScope(db, scope, types, options = {}) {
      const rows = await db.any(scopeQuery(scope, types, EVENT_COLUMNS, options));
      return (rows as readonly EventRow[]).map((row) => toStored(row, true));
    },
    async readScopeFields(db, scope, types, fields, options = {}) {
      const rows = await db.any(scopeQuery(scope, types, sql.fragment`txid, gpos, type, schema_version, stream_position, occurred_at, ${fields} AS data`, options));
      return (rows as readonly PickedRow[]).map(({ txid, gpos, type, schema_version, stream_position, occurred_at, data }) => ({
        txid,
        gpos,
        type,
        schemaVersion: schema_version,
        streamPosition: stream_position,
        occurredAt: occurred_at,
        data,
      }));
    },
    async countScope(db, scope, types) {
      return Number(await db.oneFirst(sql.unsafe`
        SELECT count(*) FROM event_log WHERE scope = ${scope} AND type = ANY(${sql.array([...types], 'text')})`));
    },
    async readEvents(db, eventIds) {
      const rows = await db.any(sql.unsafe`
        SELECT ${EVENT_COLUMNS} FROM event_log WHERE event_id = ANY(${sql.array(eventIds, 'uuid')}) ORDER BY txid, gpos`);
      return (rows as readonly EventRow[]).map((row) => toStored(row, false));
    },
    async headPosition(db = pool) {
      const row = (await db.maybeOne(sql.unsafe`
        SELECT txid, gpos FROM event_log
        WHERE txid < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY txid DESC, gpos DESC LIMIT 1`)) as Position | null;
      return row ? { txid: row.txid, gpos: row.gpos } : LOG_START;
    },
  };
}
