/**
 * A projection's slots: each is one generation of its read model (tables rm_<name>_v<generation>_*,
 * checkpoint projection:<name>:v<generation>) folded by one code version of the projection. The code
 * version is recorded apart from the generation: an operator rebuild makes a new generation with the same
 * code, and a node folds only slots of its own code version, so new logic never lands in tables old logic
 * built, nor old logic in a new slot during a rolling deploy. Cutover retires the old slot without dropping
 * it (readers may still be on it); its tables go in a later step, after a grace period.
 */
import { z } from 'zod';
import { sql, type DatabasePool, type DatabaseTransactionConnection, type Queryable } from '../db/pool.ts';
import type { EventStore } from '../eventstore/event-store.ts';
import { comparePositions, LOG_START, type Position } from '../eventstore/position.ts';
import { ensureCheckpoint, readCheckpoint, type CheckpointStatus } from './checkpoints.ts';
import { slotConsumerName, slotTableName, slotTables, type ProjectionDefinition } from './projection.ts';

export type SlotState = 'building' | 'live' | 'retired';

/** How long a retired slot's tables are kept by default: far longer than any read that looked it up. */
export const RETIRED_GRACE_MS = 10 * 60_000;

export interface SlotInfo extends Position {
  readonly projection: string;
  /** The slot's number: its tables and checkpoint are named after it. */
  readonly generation: number;
  /** The version of the projection's code that folds it. */
  readonly codeVersion: number;
  readonly state: SlotState;
  /** A building slot that goes live only by an explicit cutover (the runners leave it once caught up). */
  readonly manualCutover: boolean;
  readonly retiredAt: string | null;
  /** Where it folds from: the log, or (once handed over) Kafka. */
  readonly source: 'pglog' | 'kafka';
  readonly checkpointStatus: CheckpointStatus | null;
  readonly error: unknown;
}

const SlotStateSchema = z.enum(['building', 'live', 'retired']);
const SlotRow = z.object({ generation: z.number().int(), codeVersion: z.number().int(), state: SlotStateSchema });
type SlotRow = z.infer<typeof SlotRow>;

export class SlotChangeRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlotChangeRefusedError';
  }
}

/** Serialises slot changes of one projection across processes (held until the transaction ends). */
async function lockProjection(tx: DatabaseTransactionConnection, projection: string): Promise<void> {
  await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(${`projection-slots:${projection}`}))`);
}

async function slotsOf(tx: DatabaseTransactionConnection, projection: string): Promise<SlotRow[]> {
  return [
    ...(await tx.any(sql.type(SlotRow)`
      SELECT version AS generation, code_version AS "codeVersion", state FROM projection_slots WHERE projection = ${projection}`)),
  ];
}

/** A new generation (the next number, never one in use) folded by the given code, from the start of the log. */
async function createSlot(
  tx: DatabaseTransactionConnection,
  definition: ProjectionDefinition,
  slots: readonly SlotRow[],
  state: SlotState,
  manualCutover = false,
): Promise<number> {
  const generation = Math.max(0, ...slots.map((s) => s.generation)) + 1;
  const tables = definition.tables.map((table) => slotTableName(definition.name, generation, table));
  await definition.setup(tx, slotTables(definition, generation));
  await ensureCheckpoint(tx, { consumer: slotConsumerName(definition.name, generation), source: 'pglog', part: '*' }, LOG_START);
  await tx.query(sql.unsafe`
    INSERT INTO projection_slots (projection, version, code_version, state, tables, live_since, manual_cutover)
    VALUES (${definition.name}, ${generation}, ${definition.version}, ${state}, ${sql.array(tables, 'text')},
      ${state === 'live' ? sql.fragment`now()` : null}, ${manualCutover})`);
  return generation;
}

/**
 * Makes sure this code version has a slot: the first slot of a projection goes live at once (nothing to
 * cut over from); a newer code version builds beside the live slot until it catches up. Code older than
 * a slot already made (a node not yet upgraded in a rolling deploy) makes nothing.
 * Returns the generations this code folds: its own code version's, live or building.
 */
export async function ensureCodeSlot(pool: DatabasePool, definition: ProjectionDefinition): Promise<number[]> {
  return pool.transaction(async (tx) => {
    await lockProjection(tx, definition.name);
    const slots = await slotsOf(tx, definition.name);
    if (slots.every((s) => s.codeVersion < definition.version)) {
      const state = slots.some((s) => s.state === 'live') ? 'building' : 'live';
      slots.push({ generation: await createSlot(tx, definition, slots, state), codeVersion: definition.version, state });
    }
    return slots
      .filter((s) => s.state !== 'retired' && s.codeVersion === definition.version)
      .map((s) => s.generation)
      .sort((a, b) => a - b);
  });
}

/**
 * A fresh generation built from the start of the log by this code (the operator's rebuild). Refused when
 * a newer code version already has a slot: its nodes would not fold this one.
 */
export async function createRebuildSlot(pool: DatabasePool, definition: ProjectionDefinition, options: { manualCutover?: boolean } = {}): Promise<number> {
  return pool.transaction(async (tx) => {
    await lockProjection(tx, definition.name);
    const slots = await slotsOf(tx, definition.name);
    const newer = slots.find((s) => s.state !== 'retired' && s.codeVersion > definition.version);
    if (newer) {
      throw new SlotChangeRefusedError(
        `${definition.name} v${newer.generation} is folded by code version ${newer.codeVersion}, newer than this code's ${definition.version}; rebuild with the newer code`,
      );
    }
    return createSlot(tx, definition, slots, slots.some((s) => s.state === 'live') ? 'building' : 'live', options.manualCutover ?? false);
  });
}

/**
 * Blue/green switch in one transaction: the building slot becomes live; the old live slot, and building
 * slots of older code (they could never go live now), are retired: their checkpoints stop, their tables stay
 * until dropRetiredSlots. Readers look the live slot up per query (read-model.ts), so each sees the old slot
 * or the new one, and one that looked up the old slot just before reads its tables. Refused while the slot
 * lags the head of the log or is of older code than the live one, unless forced.
 */
export async function cutover(
  pool: DatabasePool,
  store: EventStore,
  definition: ProjectionDefinition,
  generation: number,
  options: { force?: boolean } = {},
): Promise<{ retired: number | null }> {
  return pool.transaction(async (tx) => {
    await lockProjection(tx, definition.name);
    const slots = await slotsOf(tx, definition.name);
    const target = slots.find((s) => s.generation === generation);
    if (target?.state !== 'building') {
      throw new SlotChangeRefusedError(`${definition.name} v${generation} is ${target?.state ?? 'missing'}, not building`);
    }
    const previous = slots.find((s) => s.state === 'live') ?? null;
    if (!options.force) {
      const checkpoint = await readCheckpoint(tx, { consumer: slotConsumerName(definition.name, generation), source: 'pglog', part: '*' });
      const head = await store.headPosition(tx);
      if (!checkpoint || checkpoint.status !== 'running' || comparePositions(checkpoint, head) < 0) {
        throw new SlotChangeRefusedError(`${definition.name} v${generation} has not caught up with the log (or is faulted); use --force to switch anyway`);
      }
      if (previous && previous.codeVersion > target.codeVersion) {
        throw new SlotChangeRefusedError(
          `${definition.name} v${generation} is of code version ${target.codeVersion}, older than the live v${previous.generation}'s ${previous.codeVersion}; use --force to switch anyway`,
        );
      }
    }
    const retired = slots
      .filter((s) => s.state === 'live' || (s.state === 'building' && s.codeVersion < target.codeVersion))
      .map((s) => s.generation);
    await tx.query(sql.unsafe`
      UPDATE projection_slots SET state = 'retired', retired_at = now()
      WHERE projection = ${definition.name} AND version = ANY(${sql.array(retired, 'int4')})`);
    const consumers = retired.map((g) => slotConsumerName(definition.name, g));
    await tx.query(sql.unsafe`
      UPDATE consumer_checkpoints SET status = 'retired', updated_at = now() WHERE consumer = ANY(${sql.array(consumers, 'text')})`);
    await tx.query(sql.unsafe`
      UPDATE projection_slots SET state = 'live', live_since = now()
      WHERE projection = ${definition.name} AND version = ${generation}`);
    return { retired: previous?.generation ?? null };
  });
}

const RetiredRow = z.object({ projection: z.string(), generation: z.number().int(), tables: z.array(z.string()) });

/**
 * Drops the tables and checkpoints of slots retired at least `olderThanMs` ago (of the given projections,
 * or of all), and forgets them. Separate from cutover so that no reader still on a slot loses its tables,
 * and so that DROP's exclusive lock is never taken under live reads. Returns what it dropped.
 */
export async function dropRetiredSlots(
  pool: DatabasePool,
  options: { projections?: readonly string[]; olderThanMs: number },
): Promise<Array<{ projection: string; generation: number }>> {
  const due = await pool.any(sql.type(RetiredRow)`
    SELECT projection, version AS generation, tables FROM projection_slots
    WHERE state = 'retired' AND retired_at <= now() - ${options.olderThanMs}::int8 * interval '1 millisecond'
      ${options.projections ? sql.fragment`AND projection = ANY(${sql.array([...options.projections], 'text')})` : sql.fragment``}
    ORDER BY projection, version`);
  const dropped: Array<{ projection: string; generation: number }> = [];
  for (const slot of due) {
    const done = await pool.transaction(async (tx) => {
      await lockProjection(tx, slot.projection);
      const still = await tx.exists(sql.unsafe`
        SELECT 1 FROM projection_slots WHERE projection = ${slot.projection} AND version = ${slot.generation} AND state = 'retired'`);
      if (!still) return false;
      // A read still on the table (none should be, after the grace) makes the drop give up and wait for the
      // next try, rather than queue every later lock on the table behind it.
      await tx.query(sql.unsafe`SET LOCAL lock_timeout = '5s'`);
      for (const table of slot.tables) await tx.query(sql.unsafe`DROP TABLE IF EXISTS ${sql.identifier([table])}`);
      await tx.query(sql.unsafe`DELETE FROM consumer_checkpoints WHERE consumer = ${slotConsumerName(slot.projection, slot.generation)}`);
      await tx.query(sql.unsafe`DELETE FROM projection_slots WHERE projection = ${slot.projection} AND version = ${slot.generation}`);
      return true;
    });
    if (done) dropped.push({ projection: slot.projection, generation: slot.generation });
  }
  return dropped;
}

const SlotCheckpointRow = z.object({
  projection: z.string(),
  generation: z.number().int(),
  codeVersion: z.number().int(),
  state: SlotStateSchema,
  manualCutover: z.boolean(),
  retiredAt: z.string().nullable(),
  source: z.enum(['pglog', 'kafka']).nullable(),
  txid: z.bigint().nullable(),
  gpos: z.bigint().nullable(),
  status: z.enum(['running', 'faulted', 'retired']).nullable(),
  error: z.unknown(),
});

/**
 * Every slot (of one projection, or all) with its checkpoint. A slot reading Kafka has a row per partition:
 * its position is the newest event any partition applied (how far behind it is, is Kafka's consumer lag),
 * and it is faulted when any partition is.
 */
export async function listSlots(db: Queryable, projection?: string): Promise<SlotInfo[]> {
  const rows = await db.any(sql.type(SlotCheckpointRow)`
    SELECT s.projection, s.version AS generation, s.code_version AS "codeVersion", s.state, s.manual_cutover AS "manualCutover", s.retired_at AS "retiredAt",
      c.source, c.last_txid AS txid, c.last_gpos AS gpos, c.status, c.error
    FROM projection_slots s
    LEFT JOIN consumer_checkpoints c ON c.consumer = 'projection:' || s.projection || ':v' || s.version
    ${projection ? sql.fragment`WHERE s.projection = ${projection}` : sql.fragment``}
    ORDER BY s.projection, s.version, c.source, c.part`);
  const slots = new Map<string, (typeof rows)[number][]>();
  for (const row of rows) {
    const key = `${row.projection}:${row.generation}`;
    slots.set(key, [...(slots.get(key) ?? []), row]);
  }
  return [...slots.values()].map((parts) => {
    const { projection, generation, codeVersion, state, manualCutover, retiredAt } = parts[0]!;
    const kafka = parts.filter((part) => part.source === 'kafka');
    const read = kafka.length > 0 ? kafka : parts.filter((part) => part.source === 'pglog');
    const position = read.reduce<Position>((newest, { txid, gpos }) => {
      const at = txid === null || gpos === null ? LOG_START : { txid, gpos };
      return comparePositions(at, newest) > 0 ? at : newest;
    }, LOG_START);
    const faulted = read.find((part) => part.status === 'faulted');
    const status = faulted ? 'faulted' : read.length === 0 ? null : read.every((part) => part.status === 'retired') ? 'retired' : 'running';
    return {
      projection,
      generation,
      codeVersion,
      state,
      // Recorded at the rebuild; it means something only while the slot is building.
      manualCutover: state === 'building' && manualCutover,
      retiredAt,
      source: kafka.length > 0 ? 'kafka' : 'pglog',
      ...position,
      checkpointStatus: status,
      error: faulted?.error ?? null,
    } satisfies SlotInfo;
  });
}
