/**
 * The postmaster's own record of a running cluster (`<cluster>/postmaster.pid`), telling a postmaster left
 * behind by a crashed OTOG from one still in use (Linux /proc), and waiting for it to end.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Pid, port and socket directory of the postmaster running in `clusterDir`, if its pid file exists (lines 1, 4 and 5). */
export function readPostmasterPid(clusterDir: string): { pid: number; port: number; socketDir: string } | undefined {
  try {
    const lines = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return Number.isInteger(pid) && pid > 0 ? { pid, port, socketDir: lines[4] ?? '' } : undefined;
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

/** The arguments `pid` was started with; undefined once it is gone. */
function commandLineOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

function sameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is the postmaster of `clusterDir` (a `postgres -D <clusterDir>`), not an unrelated
 * process that reused the pid of a stale postmaster.pid. Its backends rewrite their command lines, so
 * only the postmaster matches.
 */
export function isPostmasterOf(pid: number, clusterDir: string): boolean {
  const args = commandLineOf(pid) ?? [];
  const flag = args.indexOf('-D');
  return flag > 0 && basename(args[0] ?? '') === 'postgres' && sameDirectory(args[flag + 1] ?? '', clusterDir);
}

/** The parent of `pid` and whether it is a node process; undefined once `pid` is gone. */
export function parentOf(pid: number): { pid: number; isNode: boolean } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count from the last ")".
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  // Node names its main thread "MainThread", so look at the command instead of comm.
  const command = commandLineOf(ppid)?.[0];
  return { pid: ppid, isNode: command !== undefined && /^node/.test(basename(command)) };
}
