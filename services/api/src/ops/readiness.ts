/**
 * Whether this process should get work now, as load balancers and orchestrators ask it: `starting` until
 * its roles run, then each dependency check (run on demand, at most CHECK_TIMEOUT_MS each), `stopping`
 * from the first stop signal so that a balancer drains the node before it closes (no checks run then).
 */
import type { CheckStatus, Readiness as ReadinessReport } from '@otog/schemas/api/app';

const CHECK_TIMEOUT_MS = 2_000;

export interface Readiness {
  /** A dependency to probe on every report, e.g. the database with `SELECT 1`. */
  addCheck(name: string, check: () => Promise<unknown>): void;
  markStarted(): void;
  markStopping(): void;
  report(): Promise<ReadinessReport>;
}

export function createReadiness(options: { roles: readonly string[]; onFailure?: (name: string, error: unknown) => void }): Readiness {
  const checks = new Map<string, () => Promise<unknown>>();
  let phase: 'starting' | 'started' | 'stopping' = 'starting';
  const stopping = () => phase === 'stopping';

  async function run(name: string, check: () => Promise<unknown>): Promise<CheckStatus> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CHECK_TIMEOUT_MS)));
    try {
      return await Promise.race([check().then((): CheckStatus => 'ok'), timeout]);
    } catch (error) {
      options.onFailure?.(name, error);
      return 'failing';
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    addCheck: (name, check) => void checks.set(name, check),
    markStarted: () => void (phase = phase === 'starting' ? 'started' : phase),
    markStopping: () => void (phase = 'stopping'),
    async report() {
      // Stopping: the dependencies are being closed, and probing them would only log their closing as failures.
      if (stopping()) return { status: 'stopping', roles: [...options.roles], checks: {} };
      const results = await Promise.all([...checks].map(async ([name, check]) => [name, await run(name, check)] as const));
      const failing = results.some(([, status]) => status !== 'ok');
      // A stop may have begun while the checks ran.
      const status = stopping() ? 'stopping' : phase === 'starting' ? 'starting' : failing ? 'failing' : 'ready';
      return { status, roles: [...options.roles], checks: Object.fromEntries(results) };
    },
  };
}
