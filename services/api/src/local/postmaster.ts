/** The postmaster's own record of a running cluster (`<cluster>/postmaster.pid`) and waiting for it to end. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Pid and port of the postmaster running in `clusterDir`, if its pid file exists (line 1: pid, line 4: port). */
export function readPostmasterPid(clusterDir: string): { pid: number; port: number } | undefined {
  try {
    const lines = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return Number.isInteger(pid) && pid > 0 ? { pid, port } : undefined;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True once `pid` is gone, false if it is still there after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
