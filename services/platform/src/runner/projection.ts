import type { IdentifierSqlToken } from 'slonik';
import { sql, type DatabaseTransactionConnection } from '../db/pool.ts';
import type { StoredEvent } from '../eventstore/event-store.ts';

/** A slot's physical tables, by the logical names the projection declared. */
export type SlotTables<TName extends string = string> = Readonly<Record<TName, IdentifierSqlToken>>;

/**
 * A read model folded from the log. The fold must be deterministic (event time, never now() or
 * randomness) so a rebuild from the log reproduces the live tables row for row.
 */
export interface ProjectionDefinition<TName extends string = string> {
  /** Lower-case identifier; tables are rm_<name>_v<version>_<table>. */
  readonly name: string;
  /** Version of the fold logic. Bumping it builds a new slot from the log beside the live one. */
  readonly version: number;
  readonly handles: readonly string[];
  readonly tables: readonly TName[];
  /** Creates the slot's tables (use IF NOT EXISTS; it may run more than once). */
  setup(tx: DatabaseTransactionConnection, tables: SlotTables<TName>): Promise<void>;
  /** Folds a batch of events (only the handled types) into the slot's tables, in log order. */
  apply(tx: DatabaseTransactionConnection, events: readonly StoredEvent[], tables: SlotTables<TName>): Promise<void>;
}

const NAME = /^[a-z][a-z0-9_]{0,39}$/;
const TABLE = /^[a-z][a-z0-9_]{0,19}$/;

export function defineProjection<TName extends string>(definition: ProjectionDefinition<TName>): ProjectionDefinition<TName> {
  if (!NAME.test(definition.name)) throw new Error(`projection name "${definition.name}" must match ${NAME}`);
  if (!Number.isInteger(definition.version) || definition.version < 1) throw new Error(`projection ${definition.name}: version must be a positive integer`);
  for (const table of definition.tables) {
    if (!TABLE.test(table)) throw new Error(`projection ${definition.name}: table name "${table}" must match ${TABLE}`);
  }
  return definition;
}

export function slotTableName(projection: string, version: number, table: string): string {
  return `rm_${projection}_v${version}_${table}`;
}

export function slotTables<TName extends string>(definition: ProjectionDefinition<TName>, version: number): SlotTables<TName> {
  return Object.fromEntries(
    definition.tables.map((table) => [table, sql.identifier([slotTableName(definition.name, version, table)])]),
  ) as Record<TName, IdentifierSqlToken>;
}

/** The checkpoint name of a slot. */
export function slotConsumerName(projection: string, version: number): string {
  return `projection:${projection}:v${version}`;
}
