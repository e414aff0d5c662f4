import type { IdentifierSqlToken } from 'slonik';
import type { DatabasePool } from '@otog/platform/db/pool';
import type { AppendResult } from '@otog/platform/eventstore/event-store';
import type { ProjectionDefinition, SlotTables } from '@otog/platform/runner/projection';
import { liveTables } from '@otog/platform/runner/projection-slots';
import type { ApiDependencies } from './settings.ts';

const CACHE_MS = 1_000;

/**
 * The live slot tables of a projection, for queries. Cached briefly: a cutover is picked up within a
 * second (the old slot's tables are kept until retired).
 */
export function readModel<TName extends string>(pool: DatabasePool, definition: ProjectionDefinition<TName>): () => Promise<SlotTables<TName>> {
  let cached: { at: number; tables: SlotTables<TName> } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.tables;
    const live = await liveTables(pool, definition);
    if (!live) throw new Error(`projection ${definition.name} has no live slot`);
    cached = { at: Date.now(), tables: live.tables };
    return live.tables;
  };
}

export type TableOf<T> = T extends SlotTables<infer N> ? Record<N, IdentifierSqlToken> : never;

/**
 * Read-your-writes: waits (bounded) until the projection has folded the append. On timeout the answer goes
 * out anyway — the write is committed; only the read may lag — and the delay is logged.
 */
export async function waitForProjection(deps: ApiDependencies, projection: string, appended: AppendResult, scope: string): Promise<void> {
  try {
    await deps.projections.waitFor(projection, { ...appended.lastPosition, scope }, deps.settings.readYourWritesTimeoutMs);
  } catch (error) {
    deps.logger.warn({ err: error, projection }, 'projection did not catch up in time; answering without read-your-writes');
  }
}
