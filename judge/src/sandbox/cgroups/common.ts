import { readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Memory and process limits of one run's cgroup. */
export interface CgroupLimits {
  readonly memoryBytes: number;
  /** pids.max: every process and thread, including bwrap's two. */
  readonly pids: number;
}

export interface CgroupStats {
  readonly cpuNs: number;
  /** Peak memory charged to the run (RAM + swap where accounted). */
  readonly peakBytes: number;
  /** File page cache (not tmpfs/shmem) charged at the end, e.g. the output file's pages. */
  readonly fileCacheBytes: number;
  readonly oomKills: number;
  /** Forks refused because of pids.max. */
  readonly pidsMaxEvents: number;
}

/** One run's cgroup (v1: one directory per hierarchy; v2: one directory). */
export interface RunCgroup {
  readonly name: string;
  /** The wrapper shell writes its own pid into each of these before exec'ing the sandbox. */
  readonly procsFiles: readonly string[];
  /** Every directory that belongs to this run (for diagnostics and tests). */
  readonly dirs: readonly string[];
  cpuUsageNs(): number;
  /** Pids currently in the cgroup (zombies included). */
  pids(): number[];
  /**
   * pids.current: tasks (threads) charged to the cgroup until they are reaped. 0 means every process of
   * the run is gone, including one that already left cgroup.procs but has not finished exiting (bwrap's
   * pid 1 waiting for its namespace to empty).
   */
  taskCount(): number;
  stats(): CgroupStats;
  /** Writes the memory and process limits (once, before the run starts; create() may do it already). */
  limit(limits: CgroupLimits): void;
  /** SIGKILLs everything in the cgroup (v2: cgroup.kill). */
  killAll(): void;
  /** rmdir, retrying on EBUSY (a zombie not yet reaped by the host's init keeps the cgroup busy). */
  remove(): Promise<void>;
}

export interface CgroupBackend {
  readonly version: 1 | 2;
  /** Where the run cgroups live, for messages. */
  readonly description: string;
  /** Creates the judge's parent cgroup(s), enables controllers, removes run cgroups left by a crash. */
  setup(): Promise<void>;
  /** Creates a run's cgroup(s), with their limits when given (else call limit() before the run). */
  create(name: string, limits?: CgroupLimits): RunCgroup;
  /** Removes the parent cgroup(s) once the run cgroups are gone. */
  teardown(): Promise<void>;
}

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

export function readTextOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

export function writeText(path: string, value: string): void {
  writeFileSync(path, value);
}

/** Writes to an interface file that must already exist (never creates one). */
export function writeExisting(path: string, value: string): void {
  writeFileSync(path, value, { flag: 'r+' });
}

export function readNumber(path: string): number {
  const value = Number(readText(path).trim());
  if (!Number.isFinite(value)) throw new Error(`${path}: not a number`);
  return value;
}

/** Parses flat-keyed files (`key value` per line: memory.stat, memory.events, cpu.stat, pids.events). */
export function readKeyed(path: string): Map<string, number> {
  const result = new Map<string, number>();
  for (const line of readText(path).split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value !== undefined && Number.isFinite(Number(value))) result.set(key, Number(value));
  }
  return result;
}

export function readPids(procsFile: string): number[] {
  const text = readTextOrNull(procsFile);
  if (text === null) return [];
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid > 0);
}

/** True while the process exists and is not a zombie. */
export function isLive(pid: number): boolean {
  const stat = readTextOrNull(`/proc/${pid}/stat`);
  if (stat === null) return false;
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

export function killPids(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

/**
 * Kills until no live process is left in the cgroup and every task of it has been reaped (pids.current 0);
 * false when some survive `timeoutMs`. Zombies that someone else has yet to reap (the host init, when the
 * runner itself was killed) are waited for at most `zombieGraceMs`.
 */
export async function drain(cgroup: RunCgroup, timeoutMs: number, zombieGraceMs = 500): Promise<boolean> {
  const started = Date.now();
  for (;;) {
    const live = cgroup.pids().filter(isLive);
    if (live.length === 0 && (taskCountOrZero(cgroup) === 0 || Date.now() - started > zombieGraceMs)) return true;
    if (Date.now() - started > timeoutMs) return false;
    if (live.length > 0) {
      cgroup.killAll();
      killPids(live);
    }
    await sleep(2);
  }
}

function taskCountOrZero(cgroup: RunCgroup): number {
  try {
    return cgroup.taskCount();
  } catch {
    return 0;
  }
}

export interface RemoveOptions {
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  /** Called before each retry (kill stragglers). */
  readonly beforeRetry?: () => void;
}

/** rmdir that treats ENOENT as done and retries EBUSY until the timeout (then throws). */
export async function removeCgroupDir(path: string, options: RemoveOptions = {}): Promise<void> {
  const interval = options.intervalMs ?? 100;
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    try {
      rmdirSync(path);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY' || Date.now() > deadline) throw error;
    }
    options.beforeRetry?.();
    await sleep(interval);
  }
}

/** Child directories of a cgroup directory (run cgroups). */
export function childCgroups(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** A cgroup name component: letters, digits, dash, underscore, dot (no slashes, not . or ..). */
export function assertCgroupName(name: string): void {
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || name === '.' || name === '..') throw new Error(`invalid cgroup name: ${JSON.stringify(name)}`);
}
