import type { AppendResult } from '@otog/platform/eventstore/event-store';
import type { ApiDependencies } from './settings.ts';

/**
 * Read-your-writes: waits (bounded) until the projection has folded the append. On timeout the answer goes
 * out anyway — the write is committed; only the read may lag — and the delay is logged.
 */
export async function waitForProjection(deps: ApiDependencies, projection: string, appended: Pick<AppendResult, 'lastPosition'>, scope: string): Promise<void> {
  try {
    await deps.projections.waitFor(projection, { ...appended.lastPosition, scope }, deps.settings.readYourWritesTimeoutMs);
  } catch (error) {
    deps.logger.warn({ err: error, projection }, 'projection did not catch up in time; answering without read-your-writes');
  }
}
