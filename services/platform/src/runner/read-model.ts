/**
 * How readers find a read model: the live slot of each projection, looked up at every query (one
 * primary-key read of projection_slots), never cached nor put behind views.
 *
 * - Atomic with cutover: the cutover transaction moves the `live` row from one slot to the other, so a
 *   lookup finds the old slot or the new one, never neither; and it never waits (a plain SELECT takes no
 *   row lock, so the cutover's UPDATE does not block it).
 * - A reader that found the old slot just before the cutover still reads its tables: retiring keeps them,
 *   and they are dropped only after a grace period far longer than any statement (dropRetiredSlots).
 * - Views re-pointed by the cutover (CREATE OR REPLACE VIEW) would save the lookup, but take an ACCESS
 *   EXCLUSIVE lock on the view: the cutover waits for every running read, and every new read queues behind
 *   it; and a new code version whose columns differ cannot replace the view at all.
 * - A cached lookup would let a node read the retired slot, no longer folded, after the cutover: a write
 *   the live slot already folded (read-your-writes) would be missing from the next read.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../db/pool.ts';
import { slotTables, type ProjectionDefinition, type SlotTables } from './projection.ts';

export class NoLiveSlotError extends Error {
  constructor(projection: string) {
    super(`projection ${projection} has no live slot`);
    this.name = 'NoLiveSlotError';
  }
}

export interface LiveSlot<TName extends string> {
  readonly generation: number;
  /** The version of the projection's code that folds it: older than this code's during a deploy's rebuild. */
  readonly codeVersion: number;
  /**
   * Its tables as this code names them. While an older code version's slot is live (a deploy's new slot
   * still building), the tables this code version added do not exist in it yet.
   */
  readonly tables: SlotTables<TName>;
}

/** The live slot of each projection of a map of them, under the same keys. */
export type LiveSlots<M> = { readonly [K in keyof M]: M[K] extends ProjectionDefinition<infer TName> ? LiveSlot<TName> : never };

/** The live tables of each projection of a map of them, under the same keys. */
export type LiveTables<M> = { readonly [K in keyof M]: M[K] extends ProjectionDefinition<infer TName> ? SlotTables<TName> : never };

const LiveRow = z.object({ projection: z.string(), generation: z.number().int(), codeVersion: z.number().int() });
type LiveRow = z.infer<typeof LiveRow>;

async function liveGenerations(db: Queryable, projections: readonly string[]): Promise<Map<string, LiveRow>> {
  const rows = await db.any(sql.type(LiveRow)`
    SELECT projection, version AS generation, code_version AS "codeVersion" FROM projection_slots
    WHERE state = 'live' AND projection = ANY(${sql.array([...projections], 'text')})`);
  return new Map(rows.map((row) => [row.projection, row]));
}

const slotOf = <TName extends string>(definition: ProjectionDefinition<TName>, row: LiveRow): LiveSlot<TName> => ({
  generation: row.generation,
  codeVersion: row.codeVersion,
  tables: slotTables(definition, row.generation),
});

/** The projection's live slot now, or null before its first slot exists. */
export async function liveSlot<TName extends string>(db: Queryable, definition: ProjectionDefinition<TName>): Promise<LiveSlot<TName> | null> {
  const row = (await liveGenerations(db, [definition.name])).get(definition.name);
  return row === undefined ? null : slotOf(definition, row);
}

/**
 * Like readModel, with each live slot's generation and code version beside its tables: for a reader of
 * tables a newer code version added, which must read otherwise while an older code's slot is still live.
 * Throws NoLiveSlotError while one has no live slot.
 */
export function readModelSlots<const M extends Readonly<Record<string, ProjectionDefinition>>>(definitions: M): (db: Queryable) => Promise<LiveSlots<M>> {
  const entries = Object.entries(definitions);
  const names = entries.map(([, definition]) => definition.name);
  return async (db) => {
    const live = await liveGenerations(db, names);
    const slots = entries.map(([key, definition]) => {
      const row = live.get(definition.name);
      if (row === undefined) throw new NoLiveSlotError(definition.name);
      return [key, slotOf(definition, row)] as const;
    });
    // Object.fromEntries forgets which key holds which projection's slot; each was built from its own definition.
    return Object.fromEntries(slots) as LiveSlots<M>;
  };
}

/**
 * A reader of one or more projections' live tables, looked up together at every call:
 * `const live = readModel({ p: problemsProjection })` then `const { p } = await live(pool)` and
 * `SELECT ... FROM ${p.problems} p`. Throws NoLiveSlotError while one has no live slot.
 */
export function readModel<const M extends Readonly<Record<string, ProjectionDefinition>>>(definitions: M): (db: Queryable) => Promise<LiveTables<M>> {
  const slots = readModelSlots(definitions);
  return async (db) => {
    const live = await slots(db);
    // Object.fromEntries forgets which key holds which projection's tables; each keeps its slot's key.
    return Object.fromEntries(Object.entries(live).map(([key, slot]) => [key, slot.tables])) as LiveTables<M>;
  };
}
