import { sql, type DatabasePool, type DatabaseTransactionConnection, type Queryable } from '../db/pool.ts';
import type { EventStore } from '../eventstore/event-store.ts';
import { comparePositions, LOG_START, type Position } from '../eventstore/position.ts';
import { ensureCheckpoint, readCheckpoint, type CheckpointStatus } from './checkpoints.ts';
import { slotConsumerName, slotTableName, slotTables, type ProjectionDefinition, type SlotTables } from './projection.ts';

export type SlotState = 'building' | 'live' | 'retired';

export interface SlotInfo extends Position {
  readonly projection: string;
  readonly version: number;
  readonly state: SlotState;
  readonly checkpointStatus: CheckpointStatus | null;
  readonly error: unknown;
}

/** Serialises slot changes of one projection across processes (held until the transaction ends). */
async function lockProjection(tx: DatabaseTransactionConnection, projection: string): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(${`projection-slots:${projection}`}))`);
}

async function createSlot(
  tx: DatabaseTransactionConnection,
  definition: ProjectionDefinition,
  version: number,
  state: SlotState,
): Promise<void> {
  await definition.setup(tx, slotTables(definition, version));
  await ensureCheckpoint(tx, { consumer: slotConsumerName(definition.name, version), source: 'pglog', part: '*' }, LOG_START);
  await tx.query(sql.unsafe`
    INSERT INTO projection_slots (projection, version, state, live_since)
    VALUES (${definition.name}, ${version}, ${state}, ${state === 'live' ? sql.fragment`now()` : null})`);
}

/**
 * Makes sure the code's version has a slot: the first slot of a projection goes live at once (nothing
 * to cut over from); a newer code version builds beside the live slot until it catches up.
 * Returns the slot versions this code should keep folding (live or building, at or above its version).
 */
export async function ensureCodeSlot(pool: DatabasePool, definition: ProjectionDefinition): Promise<number[]> {
  return pool.transaction(async (tx) => {
    await lockProjection(tx, definition.name);
    const slots = [
      ...((await tx.any(sql.unsafe`
        SELECT version, state FROM projection_slots WHERE projection = ${definition.name}`)) as ReadonlyArray<{ version: number; state: SlotState }>),
    ];
    const newest = Math.max(0, ...slots.map((s) => s.version));
    if (newest < definition.version) {
      const state = slots.some((s) => s.state === 'live') ? 'building' : 'live';
      await createSlot(tx, definition, definition.version, state);
      slots.push({ version: definition.version, state });
    }
    return slots.filter((s) => s.state !== 'retired' && s.version >= definition.version).map((s) => s.version).sort((a, b) => a - b);
  });
}

/** A fresh slot (next version number) built from the start of the log with the current code. */
export async function createRebuildSlot(pool: DatabasePool, definition: ProjectionDefinition): Promise<number> {
  return pool.transaction(async (tx) => {
    await lockProjection(tx, definition.name);
    const newest = Number(
      await tx.oneFirst(sql.unsafe`SELECT coalesce(max(version), 0) FROM projection_slots WHERE projection = ${definition.name}`),
    );
    const version = Math.max(newest + 1, definition.version);
    const hasLive = await tx.exists(sql.unsafe`SELECT 1 FROM projection_slots WHERE projection = ${definition.name} AND state = 'live'`);
    await createSlot(tx, definition, version, hasLive ? 'building' : 'live');
    return version;
  });
}

export class CutoverRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CutoverRefusedError';
  }
}

/**
 * Blue/green switch in one transaction: the building slot becomes live, the old live slot is retired,
 * its checkpoint stopped and its tables dropped. Refused while the slot lags the head of the log
 * unless forced.
 */
export async function cutover(
  pool: DatabasePool,
  store: EventStore,
  definition: ProjectionDefinition,
  version: number,
  options: { force?: boolean } = {},
): Promise<{ retired: number | null }> {
  return pool.transaction(async (tx) => {
    await lockProjection(tx, definition.name);
    const state = (await tx.maybeOneFirst(sql.unsafe`
      SELECT state FROM projection_slots WHERE projection = ${definition.name} AND version = ${version}`)) as SlotState | null;
    if (state !== 'building') throw new CutoverRefusedError(`${definition.name} v${version} is ${state ?? 'missing'}, not building`);
    const checkpoint = await readCheckpoint(tx, { consumer: slotConsumerName(definition.name, version), source: 'pglog', part: '*' });
    const head = await store.headPosition(tx);
    if (!options.force && (!checkpoint || checkpoint.status !== 'running' || comparePositions(checkpoint, head) < 0)) {
      throw new CutoverRefusedError(`${definition.name} v${version} has not caught up with the log (or is faulted); use --force to switch anyway`);
    }
    const previous = (await tx.maybeOneFirst(sql.unsafe`
      SELECT version FROM projection_slots WHERE projection = ${definition.name} AND state = 'live'`)) as number | null;
    if (previous !== null) await retireSlot(tx, definition, previous);
    await tx.query(sql.unsafe`
      UPDATE projection_slots SET state = 'live', live_since = now()
      WHERE projection = ${definition.name} AND version = ${version}`);
    return { retired: previous };
  });
}

async function retireSlot(tx: DatabaseTransactionConnection, definition: ProjectionDefinition, version: number): Promise<void> {
  await tx.query(sql.unsafe`
    UPDATE projection_slots SET state = 'retired' WHERE projection = ${definition.name} AND version = ${version}`);
  await tx.query(sql.unsafe`
    UPDATE consumer_checkpoints SET status = 'retired', updated_at = now()
    WHERE consumer = ${slotConsumerName(definition.name, version)}`);
  for (const table of definition.tables) {
    await tx.query(sql.unsafe`DROP TABLE IF EXISTS ${sql.identifier([slotTableName(definition.name, version, table)])}`);
  }
}

export async function listSlots(db: Queryable, projection?: string): Promise<SlotInfo[]> {
  const rows = (await db.any(sql.unsafe`
    SELECT s.projection, s.version, s.state, c.last_txid, c.last_gpos, c.status, c.error
    FROM projection_slots s
    LEFT JOIN consumer_checkpoints c
      ON c.consumer = 'projection:' || s.projection || ':v' || s.version AND c.source = 'pglog' AND c.part = '*'
    ${projection ? sql.fragment`WHERE s.projection = ${projection}` : sql.fragment``}
    ORDER BY s.projection, s.version`)) as ReadonlyArray<Record<string, unknown>>;
  return rows.map((row) => ({
    projection: row.projection as string,
    version: row.version as number,
    state: row.state as SlotState,
    txid: (row.last_txid as bigint | null) ?? 0n,
    gpos: (row.last_gpos as bigint | null) ?? 0n,
    checkpointStatus: (row.status as CheckpointStatus | null) ?? null,
    error: row.error ?? null,
  }));
}

/** The tables the API reads: the live slot's. */
export async function liveTables<TName extends string>(
  db: Queryable,
  definition: ProjectionDefinition<TName>,
): Promise<{ version: number; tables: SlotTables<TName> } | null> {
  const version = (await db.maybeOneFirst(sql.unsafe`
    SELECT version FROM projection_slots WHERE projection = ${definition.name} AND state = 'live'`)) as number | null;
  return version === null ? null : { version, tables: slotTables(definition, version) };
}
