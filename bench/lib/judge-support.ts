/**
 * Shared parts of the judge benchmarks (bench/judge-sandbox.ts, bench/judge-throughput.ts): whether the
 * sandbox can run here, throwaway directories the sandbox uids can traverse, a timing wrapper around a
 * Sandbox (what each slot use ran, and for how long), CPU busy time from /proc/stat, the generated a+b
 * problem, and a best-effort cleanup of what an interrupted sandbox leaves behind.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { checkRequirements, systemProbe, type RunRequest, type RunResult, type Sandbox, type SandboxSlot } from '@otog/judge/sandbox/index';
import { loadAverage } from './machine.ts';
import type { BenchResult } from './report.ts';
import { onCleanup } from './services.ts';
import { now, percentile } from './stats.ts';
import { mulberry32 } from '../../tests/support/mulberry32.ts';

/**
 * Sandbox uids of the benches: below the test suites' range (60100–61999) and the built-in worker's
 * (62000 and up), so a bench never shares a uid with a sandbox another session runs at the same time.
 */
export const BENCH_UIDS = {
  overhead: 59_100,
  profileChain: 59_110,
  profileSlot: 59_120,
  oneSlot: 59_130,
  twoSlots: 59_140,
  worker: 59_150,
} as const;

/** Why the judge benches cannot run here (undefined: they can). */
export function sandboxUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the bench is not running as root (the bwrap sandbox needs root)';
  const problems = checkRequirements(systemProbe());
  return problems.length > 0 ? problems.join('; ') : undefined;
}

export function notMeasured(id: string, title: string, reason: string): BenchResult {
  return { id, title, method: [], figures: [], tables: [], notes: [`**Not measured: ${reason}.**`] };
}

export function bwrapVersion(): string {
  try {
    return execFileSync('/usr/bin/bwrap', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'bwrap (version unknown)';
  }
}

/** A temp directory (0711: the sandbox uids can traverse it), removed by the returned function or by cleanup. */
export function benchTmp(name: string): { dir: string; remove: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), `otog-bench-${name}-`));
  chmodSync(dir, 0o711);
  const remove = onCleanup(`temp dir ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return { dir, remove };
}

/** The 1/5/15-minute load average when a section started and when it ended. */
export function sectionLoad(): () => { start: string; end: string } {
  const start = loadAverage();
  return () => ({ start, end: loadAverage() });
}

/** Busy share of all CPUs (from /proc/stat) between the call and the returned function's call. */
export function cpuBusy(): () => number {
  const read = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    const total = fields.reduce((sum, value) => sum + value, 0);
    return { idle, total };
  };
  const before = read();
  return () => {
    const after = read();
    const total = after.total - before.total;
    return total > 0 ? 1 - (after.idle - before.idle) / total : Number.NaN;
  };
}

export interface RunRecord {
  /** argv[0] of the run: the compiler, `./main`, a checker. */
  readonly program: string;
  readonly startedAt: number;
  readonly wallMs: number;
  /** The program's CPU time as the sandbox reports it (calibrated). */
  readonly cpuMs: number;
  readonly status: RunResult['status'];
}

/** One `withSlot` use: one submission judged in one slot. */
export interface SlotUse {
  readonly slot: number;
  readonly acquiredAt: number;
  releasedAt: number | undefined;
  readonly runs: RunRecord[];
}

/**
 * A Sandbox that forwards everything to `inner` and records, per `withSlot` use, every `slot.run` (start,
 * wall time, CPU, status). judgeSubmission takes one slot per submission with withSlot, so each use is
 * one submission: its compile run, then one run per test. The cost of the wrapper is two clock reads per run.
 */
export function timedSandbox(inner: Sandbox): { sandbox: Sandbox; uses: SlotUse[] } {
  const uses: SlotUse[] = [];
  const wrap = (slot: SandboxSlot, use: SlotUse): SandboxSlot => ({
    ...slot,
    async run(request: RunRequest): Promise<RunResult> {
      const startedAt = now();
      const result = await slot.run(request);
      use.runs.push({ program: request.argv[0] ?? '', startedAt, wallMs: now() - startedAt, cpuMs: result.cpuMs, status: result.status });
      return result;
    },
  });
  const sandbox: Sandbox = {
    mode: inner.mode,
    slotCount: inner.slotCount,
    get calibration() {
      return inner.calibration;
    },
    cgroupVersion: inner.cgroupVersion,
    acquire: () => inner.acquire(),
    release: (slot) => inner.release(slot),
    withSlot: (use) =>
      inner.withSlot(async (slot) => {
        const record: SlotUse = { slot: slot.index, acquiredAt: now(), releasedAt: undefined, runs: [] };
        uses.push(record);
        try {
          return await use(wrap(slot, record));
        } finally {
          record.releasedAt = now();
        }
      }),
    close: () => inner.close(),
  };
  return { sandbox, uses };
}

export interface UseSummary {
  readonly submissions: number;
  /** Median time a submission held its slot (compile + every test + checks). */
  readonly perSubmissionMs: number;
  /** Median wall time of the compile run. */
  readonly compileMs: number;
  /** Median time from one test run's start to the next one's (fresh box, run, check, report): the per-test cost. */
  readonly perTestMs: number;
  /** Median wall time of a test's slot.run (the sandboxed run alone). */
  readonly testRunMs: number;
  /** Median CPU time of the program itself in a test run (calibrated). */
  readonly programCpuMs: number;
  /** Test runs per submission (median). */
  readonly testsPerSubmission: number;
}

const median = (values: readonly number[]) => percentile([...values].sort((a, b) => a - b), 50);

export function summarizeUses(uses: readonly SlotUse[], testProgram = './main'): UseSummary {
  const finished = uses.filter((use) => use.releasedAt !== undefined);
  const intervals: number[] = [];
  const testRuns: RunRecord[] = [];
  const compiles: number[] = [];
  for (const use of finished) {
    const tests = use.runs.filter((run) => run.program === testProgram);
    const compile = use.runs.find((run) => run.program !== testProgram);
    if (compile) compiles.push(compile.wallMs);
    testRuns.push(...tests);
    for (let index = 1; index < tests.length; index++) intervals.push(tests[index]!.startedAt - tests[index - 1]!.startedAt);
  }
  return {
    submissions: finished.length,
    perSubmissionMs: median(finished.map((use) => use.releasedAt! - use.acquiredAt)),
    compileMs: median(compiles),
    perTestMs: median(intervals),
    testRunMs: median(testRuns.map((run) => run.wallMs)),
    programCpuMs: median(testRuns.map((run) => run.cpuMs)),
    testsPerSubmission: median(finished.map((use) => use.runs.filter((run) => run.program === testProgram).length)),
  };
}

/**
 * An a+b problem folder with `tests` tests (`n.in`: two integers of up to ±10^12, `n.sol`: their sum),
 * 0755 with 0644 files, no subtask.json (one subtask of all tests) and the standard checker.
 */
export function writeAplusbProblem(dir: string, tests: number, seed = 20_260_521): string {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  const next = mulberry32(seed);
  const value = () => BigInt(Math.floor((next() * 2 - 1) * 1e12));
  for (let test = 1; test <= tests; test++) {
    const a = value();
    const b = value();
    writeFileSync(join(dir, `${test}.in`), `${a} ${b}\n`, { mode: 0o644 });
    writeFileSync(join(dir, `${test}.sol`), `${a + b}\n`, { mode: 0o644 });
  }
  return dir;
}

/** The box tmpfs mounts under `dir` (mount points from /proc/self/mountinfo). */
function mountsUnder(dir: string): string[] {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[4])
      .filter((path): path is string => Boolean(path))
      .map((path) => path.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8))))
      .filter((path) => path.startsWith(`${dir}/`));
  } catch {
    return [];
  }
}

/** Pids listed in a cgroup directory's cgroup.procs (none when it is gone). */
function cgroupPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** rmdir of a cgroup directory, killing what is left in it, retried for up to 3 s (a run may still be ending). */
async function removeCgroup(dir: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    for (const pid of cgroupPids(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code !== 'EBUSY' || Date.now() > deadline) return;
    }
    await sleep(50);
  }
}

/**
 * What a sandbox leaves when the bench is interrupted while it runs (the sandbox's own close() is not
 * reached): the box tmpfs mounts and the run cgroups (their processes killed). Best effort; never throws.
 */
export async function removeSandboxLeftovers(rootDir: string | undefined, cgroupParent: string): Promise<void> {
  if (rootDir) {
    for (const mount of mountsUnder(rootDir).reverse()) {
      try {
        execFileSync('/usr/bin/umount', ['--lazy', mount], { stdio: 'ignore' });
      } catch {
        // not mounted any more
      }
    }
    rmSync(rootDir, { recursive: true, force: true });
  }
  for (const hierarchy of ['memory', 'pids', 'cpuacct', 'cpu,cpuacct', 'unified', '']) {
    const parent = join('/sys/fs/cgroup', hierarchy, cgroupParent);
    if (!existsSync(parent)) continue;
    const children = readdirSync(parent, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    await Promise.all(children.map((entry) => removeCgroup(join(parent, entry.name))));
    await removeCgroup(parent);
  }
}

/**
 * Registers the close of a sandbox the bench made; if the close fails or is cut short (the bench was
 * interrupted mid-run), what is left of its slots and cgroups is removed as well. Returns the stop function.
 */
export function closeOnCleanup(label: string, sandbox: Sandbox, rootDir: string, cgroupParent: string): () => Promise<void> {
  return onCleanup(label, async () => {
    try {
      await sandbox.close();
    } finally {
      await removeSandboxLeftovers(rootDir, cgroupParent);
    }
  });
}

/**
 * For code that makes its own temp directory (tmpdir()/<prefix>XXXX) and sandbox, such as the judge's
 * overhead benchmark: registers a cleanup that, if the bench is interrupted before `done()`, removes the
 * directories with that prefix that appeared meanwhile (their box mounts first) and the cgroup parent.
 */
export function guardSandboxRun(prefix: string, cgroupParent: string): { done: () => Promise<void> } {
  const list = () =>
    new Set(
      readdirSync(tmpdir(), { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && entry.name.startsWith(prefix))
        .map((entry) => entry.name),
    );
  const before = list();
  let finished = false;
  const stop = onCleanup(`sandbox leftovers (${cgroupParent})`, async () => {
    if (finished) return;
    for (const name of list()) if (!before.has(name)) await removeSandboxLeftovers(join(tmpdir(), name), cgroupParent);
    await removeSandboxLeftovers(undefined, cgroupParent);
  });
  return {
    async done() {
      finished = true;
      await stop();
    },
  };
}
