import type { IdentifierSqlToken } from 'slonik';
import { scopeKindOf, type OtogEventMap, type ScopeKind } from '@otog/schemas/events';
import { sql, type DatabaseTransactionConnection } from '../db/pool.ts';
import type { StoredEvent } from '../eventstore/event-store.ts';
import { noticeCollector, type FoldContext, type Notice } from '../notices/notice.ts';

/** A slot's physical tables, by the logical names the projection declared. */
export type SlotTables<TName extends string = string> = Readonly<Record<TName, IdentifierSqlToken>>;

/**
 * Folds one event (its data already upcast and validated against its definition) into the slot's tables;
 * `context.notify` announces what changed, published only after the batch commits and only by the live slot.
 */
export type EventHandler<TData, TName extends string> = (
  tx: DatabaseTransactionConnection,
  event: StoredEvent<TData>,
  tables: SlotTables<TName>,
  context: FoldContext,
) => Promise<void>;

/** One handler per event type the projection folds, keyed by the type's name (`[SubmissionCreated.type]: ...`). */
export type EventHandlers<TEvents, TName extends string> = { readonly [T in keyof TEvents & string]?: EventHandler<TEvents[T], TName> };

/**
 * A read model folded from the log. The fold must be deterministic (event time, never now() or
 * randomness) so a rebuild from the log reproduces the live tables row for row.
 */
export interface ProjectionDefinition<TName extends string = string> {
  /** Lower-case identifier; tables are rm_<name>_v<generation>_<table>, a slot's generation being its number. */
  readonly name: string;
  /**
   * Version of the fold logic (the code version), recorded in every slot it builds. Bumping it builds a new
   * slot from the log beside the live one; a node folds only slots of its own code version.
   */
  readonly version: number;
  /** The event types it folds, from its handlers: the only ones its consumer reads. */
  readonly handles: ReadonlySet<string>;
  /**
   * The scope kinds it folds (`contest`, `problem`), when its fold depends on the order of events within
   * each scope only: such a projection may read the Kafka topics of those kinds, where scopes interleave
   * differently from the log. Events of other kinds are passed over whatever the source. Undefined: it
   * folds every scope in the log's global order, from the Postgres log only.
   */
  readonly scopes?: ReadonlySet<ScopeKind>;
  readonly tables: readonly TName[];
  /** Creates the slot's tables (use IF NOT EXISTS; it may run more than once). */
  setup(tx: DatabaseTransactionConnection, tables: SlotTables<TName>): Promise<void>;
  /** The handler of one event type (tests call them directly with repeated and stale events). */
  handlerOf(type: string): EventHandler<unknown, TName> | undefined;
  /** Folds a batch of events into the slot's tables in log order (other types passed over); returns its notices. */
  apply(tx: DatabaseTransactionConnection, events: readonly StoredEvent[], tables: SlotTables<TName>): Promise<Notice[]>;
}

/**
 * A fold that writes a whole batch at once (aggregating in memory, one multi-row upsert): the types it
 * folds and the batch of them, in log order. For folds where per-event statements would cost too much.
 */
export interface BatchFold<TEvents, K extends keyof TEvents & string, TName extends string> {
  readonly handles: readonly K[];
  apply(
    tx: DatabaseTransactionConnection,
    events: ReadonlyArray<StoredEvent<TEvents[K]>>,
    tables: SlotTables<TName>,
    context: FoldContext,
  ): Promise<void>;
}

interface SpecBase<TName extends string> {
  readonly name: string;
  readonly version: number;
  /** See ProjectionDefinition.scopes. */
  readonly scopes?: readonly ScopeKind[];
  readonly tables: readonly TName[];
  setup(tx: DatabaseTransactionConnection, tables: SlotTables<TName>): Promise<void>;
}

export type ProjectionSpec<TEvents, TName extends string, K extends keyof TEvents & string = never> = SpecBase<TName> &
  ({ readonly on: EventHandlers<TEvents, TName>; readonly batch?: never } | { readonly batch: BatchFold<TEvents, K, TName>; readonly on?: never });

const NAME = /^[a-z][a-z0-9_]{0,39}$/;
const TABLE = /^[a-z][a-z0-9_]{0,19}$/;

/**
 * `defineProjection({ name, version, tables, setup, on: { [SubmissionCreated.type]: async (tx, event, t) => ... } })`:
 * each handler gets its event's data typed by the product's event catalogue. Suites with events of their
 * own use `projectionOver<TheirEvents>()`.
 */
export const defineProjection = projectionOver<OtogEventMap>();

/** defineProjection for another catalogue of events (type name -> data). */
export function projectionOver<TEvents>() {
  return <TName extends string, K extends keyof TEvents & string = never>(spec: ProjectionSpec<TEvents, TName, K>): ProjectionDefinition<TName> => {
    if (!NAME.test(spec.name)) throw new Error(`projection name "${spec.name}" must match ${NAME}`);
    if (!Number.isInteger(spec.version) || spec.version < 1) throw new Error(`projection ${spec.name}: version must be a positive integer`);
    for (const table of spec.tables) {
      if (!TABLE.test(table)) throw new Error(`projection ${spec.name}: table name "${table}" must match ${TABLE}`);
    }
    // The one place data types are asserted: an event reaches a fold decoded with the definition of its
    // type, and handlers are looked up by that type, so the data has the shape the handler declares.
    type AnyHandler = EventHandler<unknown, TName>;
    const decoded = (events: readonly StoredEvent[]) => events as ReadonlyArray<StoredEvent<TEvents[K]>>;
    const handlers = new Map<string, AnyHandler>();
    let apply: ProjectionDefinition<TName>['apply'];
    if (spec.batch) {
      const batch = spec.batch;
      for (const type of batch.handles) handlers.set(type, (tx, event, tables, context) => batch.apply(tx, decoded([event]), tables, context));
      apply = async (tx, events, tables) => {
        const wanted = events.filter((event) => handlers.has(event.type));
        const collector = noticeCollector();
        if (wanted.length) await batch.apply(tx, decoded(wanted), tables, collector.contextAt(wanted[wanted.length - 1]!));
        return collector.notices();
      };
    } else {
      for (const [type, handler] of Object.entries(spec.on as Record<string, AnyHandler | undefined>)) if (handler) handlers.set(type, handler);
      apply = async (tx, events, tables) => {
        const collector = noticeCollector();
        for (const event of events) await handlers.get(event.type)?.(tx, event, tables, collector.contextAt(event));
        return collector.notices();
      };
    }
    if (handlers.size === 0) throw new Error(`projection ${spec.name} handles no event type`);
    const scopes = spec.scopes ? new Set(spec.scopes) : undefined;
    const fold = apply;
    // Filtered here, so that every source (log, Kafka, a rebuild) folds exactly the same events.
    if (scopes) apply = (tx, events, tables) => fold(tx, events.filter((event) => isInScopes(scopes, event.scope)), tables);
    return {
      name: spec.name,
      version: spec.version,
      tables: spec.tables,
      handles: new Set(handlers.keys()),
      ...(scopes ? { scopes } : {}),
      setup: spec.setup,
      handlerOf: (type) => handlers.get(type),
      apply,
    };
  };
}

export function slotTableName(projection: string, generation: number, table: string): string {
  return `rm_${projection}_v${generation}_${table}`;
}

export function slotTables<TName extends string>(definition: ProjectionDefinition<TName>, generation: number): SlotTables<TName> {
  return Object.fromEntries(
    definition.tables.map((table) => [table, sql.identifier([slotTableName(definition.name, generation, table)])]),
  ) as Record<TName, IdentifierSqlToken>;
}

/** Whether `scope` (`contest:7`) is of one of the kinds. */
export function isInScopes(kinds: ReadonlySet<ScopeKind>, scope: string): boolean {
  const kind = scopeKindOf(scope);
  return kind !== null && kinds.has(kind);
}

/** The checkpoint name of a slot. */
export function slotConsumerName(projection: string, generation: number): string {
  return `projection:${projection}:v${generation}`;
}
