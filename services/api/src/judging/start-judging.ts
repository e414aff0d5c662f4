import type { Logger } from 'pino';
import type { ObjectStore } from '@otog/platform/storage/object-store';
import type { PlatformRuntime } from '../platform-runtime.ts';
import { createJudgeQueue } from './judge-queue.ts';
import type { JudgingDependencies } from './internal-routes.ts';

/**
 * The server's side of judging: the task queue behind the internal judge API (the `api` role) and, unless
 * `sweeper` is false, its sweeper (the `judge-queue` role), which ends tasks nobody can finish (a dead
 * worker's last attempt, a problem without test data) even when no worker is claiming.
 */
export function startJudging(options: {
  runtime: PlatformRuntime;
  /** Where the judges' test data is read (by hash): the server's object store. */
  objects: ObjectStore;
  leaseMs: number;
  maxAttempts: number;
  logger?: Logger;
  sweeper?: boolean;
  /** Per claimed task, how long it waited in the queue. */
  onClaimed?: (waitedSeconds: number) => void;
}): { deps: JudgingDependencies; stop(): Promise<void> } {
  const { runtime, logger } = options;
  const queue = createJudgeQueue({
    pool: runtime.pool,
    store: runtime.store,
    listener: runtime.listener,
    leaseMs: options.leaseMs,
    maxAttempts: options.maxAttempts,
    ...(logger ? { logger } : {}),
    ...(options.onClaimed ? { onClaimed: options.onClaimed } : {}),
  });
  const sweeper = options.sweeper === false ? undefined : queue.startSweeper(Math.min(5_000, Math.max(250, Math.floor(options.leaseMs / 4))));
  return {
    deps: { pool: runtime.pool, queue, objects: options.objects },
    async stop() {
      queue.close();
      await sweeper?.stop();
    },
  };
}
