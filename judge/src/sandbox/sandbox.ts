import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addBoxFile, prepareSlotDirs, readBoxFile, resetBox, unmountBox, type BoxTmpfs, type SlotDirs } from './box.ts';
import { discardRunner, runWithBwrap, type BwrapContext } from './bwrap-driver.ts';
import { backendFor, detectCgroups, type CgroupBackend } from './cgroups/index.ts';
import { checkRequirements, SandboxUnavailableError, systemProbe, type RequirementProbe } from './requirements.ts';
import { buildSandboxTools, defaultBuildDir, type SandboxTools } from './tools.ts';
import type { Calibration, RunLimits, RunRequest, RunResult, Sandbox, SandboxMode, SandboxSlot } from './types.ts';
import { runUnsafe, unsafeModeWarning } from './unsafe-driver.ts';
import { median } from './verdict.ts';

export interface SandboxOptions {
  /** Required: the unsafe mode is never chosen implicitly, and bwrap never falls back to it. */
  readonly mode: SandboxMode;
  /** Where the slots' box and io directories live (created; 0711). */
  readonly rootDir: string;
  /** Parallel slots (default 1); slot i runs as uid firstUid + i. */
  readonly slots?: number;
  /** Default 60100. No passwd entry is needed. */
  readonly firstUid?: number;
  /** Parent cgroup of the runs, relative to each hierarchy (default `otog-judge`). One per judge process. */
  readonly cgroupParent?: string;
  readonly cgroupRoot?: string;
  /** Where the seccomp filter and the calibration program are built (default <repo>/build/judge). */
  readonly buildDir?: string;
  /** The box tmpfs of each slot (default 512 MiB, 16384 inodes). */
  readonly box?: BoxTmpfs;
  /** Calibration runs at start (default 20, after 3 warm-up runs). */
  readonly calibrationRuns?: number;
  /** CPU polling interval (default 10 ms). */
  readonly pollMs?: number;
  /** Where the unsafe-mode banner goes (default console.error). */
  readonly warn?: (message: string) => void;
  /** For tests of the startup checks. */
  readonly probe?: RequirementProbe;
}

export const defaultFirstUid = 60100;
const calibrationLimits: RunLimits = { cpuMs: 2000, wallMs: 20_000, memoryKiB: 64 * 1024, processes: 1, outputBytes: 1024 * 1024 };

/** Median wrapper cost from calibration runs of the empty program (raw, uncalibrated figures). */
export function calibrationFrom(samples: readonly { cpuMs: number; memKiB: number }[]): Calibration {
  return { cpuMs: median(samples.map((sample) => sample.cpuMs)), memKiB: median(samples.map((sample) => sample.memKiB)) };
}

/**
 * Starts the sandbox. bwrap mode: checks every requirement (refusing with a SandboxUnavailableError that
 * lists what is missing), builds the seccomp filter, chooses the cgroup backend, prepares the slots and
 * calibrates the wrapper's CPU and memory baseline. Unsafe mode: logs a loud warning and runs plain
 * processes with rlimits.
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  if (options.mode !== 'bwrap' && options.mode !== 'unsafe') {
    throw new Error(`sandbox mode must be 'bwrap' or 'unsafe' (explicitly), got ${JSON.stringify(options.mode)}`);
  }
  const slotCount = options.slots ?? 1;
  const firstUid = options.firstUid ?? defaultFirstUid;
  const pollMs = options.pollMs ?? 10;
  if (!Number.isInteger(slotCount) || slotCount < 1) throw new Error(`slots must be a positive integer, got ${slotCount}`);

  let backend: CgroupBackend | null = null;
  let tools: SandboxTools | null = null;
  if (options.mode === 'bwrap') {
    const probe = options.probe ?? systemProbe(options.cgroupRoot);
    const problems = checkRequirements(probe);
    if (problems.length > 0) throw new SandboxUnavailableError(problems);
    tools = await buildSandboxTools(options.buildDir ?? defaultBuildDir);
    backend = backendFor(options.probe?.cgroups ?? detectCgroups(options.cgroupRoot), options.cgroupParent ?? 'otog-judge');
    await backend.setup();
  } else {
    (options.warn ?? console.error)(unsafeModeWarning);
  }

  const box = options.box ?? { bytes: 512 * 1024 * 1024, inodes: 16384 };
  const ownUid = process.getuid?.() ?? 0;
  const dirs: SlotDirs[] = [];
  for (let index = 0; index < slotCount; index++) {
    const uid = options.mode === 'bwrap' ? firstUid + index : ownUid;
    dirs.push(await prepareSlotDirs(options.rootDir, index, uid, options.mode === 'bwrap' ? box : null));
  }

  let runCounter = 0;
  const runPrefix = `r${process.pid.toString(36)}`;
  let calibration: Calibration = { cpuMs: 0, memKiB: 0 };
  const pending = new Set<Promise<void>>();
  const removalErrors: Error[] = [];
  const context: BwrapContext | null =
    backend && tools
      ? {
          backend,
          seccompBpf: tools.seccompBpf,
          runner: tools.runner,
          spares: new Map(),
          nextRunName: (slotIndex) => `${runPrefix}-s${slotIndex}-${++runCounter}`,
          calibration: () => calibration,
          pollMs,
          track(removal) {
            const tracked = removal.catch((error: Error) => void removalErrors.push(error)).finally(() => pending.delete(tracked));
            pending.add(tracked);
          },
        }
      : null;

  const slots: SandboxSlot[] = dirs.map((slotDirs, index) => {
    const uid = options.mode === 'bwrap' ? firstUid + index : ownUid;
    const identity = { index, uid, boxDir: slotDirs.boxDir, ioDir: slotDirs.ioDir };
    return {
      ...identity,
      async resetBox() {
        resetBox(slotDirs);
      },
      async addFile(name, from, fileOptions) {
        addBoxFile(slotDirs.boxDir, uid, name, from, fileOptions);
      },
      async copyOut(name, destination, maxBytes) {
        const file = readBoxFile(slotDirs.boxDir, name, maxBytes);
        if (file === null) return false;
        rmSync(destination, { force: true });
        const mode = file.mode & 0o111 ? 0o755 : 0o644;
        writeFileSync(destination, file.data, { mode, flag: 'wx' });
        chmodSync(destination, mode); // whatever the umask
        return true;
      },
      async readFile(name, maxBytes) {
        return readBoxFile(slotDirs.boxDir, name, maxBytes)?.data ?? null;
      },
      run(request: RunRequest): Promise<RunResult> {
        if (context) return runWithBwrap(context, identity, request);
        return runUnsafe(identity, request, pollMs);
      },
    };
  });

  const free = [...slots];
  const waiters: Array<(slot: SandboxSlot) => void> = [];
  const acquire = () =>
    new Promise<SandboxSlot>((resolve) => {
      const slot = free.shift();
      if (slot) resolve(slot);
      else waiters.push(resolve);
    });
  const release = (slot: SandboxSlot) => {
    const waiter = waiters.shift();
    if (waiter) waiter(slot);
    else free.push(slot);
  };

  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    if (context) {
      for (const spare of context.spares.values()) context.track(discardRunner(spare));
      context.spares.clear();
    }
    await Promise.all(pending);
    if (options.mode === 'bwrap') {
      for (const slotDirs of dirs) await unmountBox(slotDirs.boxFs).catch(() => undefined);
      await backend?.teardown().catch((error: Error) => void removalErrors.push(error));
    }
    if (removalErrors.length > 0) throw new Error(`sandbox cleanup: ${removalErrors.map((error) => error.message).join('; ')}`);
  };

  if (context && tools) {
    try {
      calibration = await calibrate(slots[0]!, tools.emptyProgram, options.calibrationRuns ?? 20);
    } catch (error) {
      await close().catch(() => undefined);
      throw error;
    }
  }

  return {
    mode: options.mode,
    slotCount,
    get calibration() {
      return calibration;
    },
    cgroupVersion: backend?.version ?? null,
    acquire,
    release,
    async withSlot(use) {
      const slot = await acquire();
      try {
        return await use(slot);
      } finally {
        release(slot);
      }
    },
    close,
  };
}

/**
 * Runs the static empty program `runs` times (after 3 warm-ups) and takes the median raw CPU and memory:
 * the setup cost of the runner and bwrap that the cgroup charges to every run. A failing run
 * here means the sandbox does not work on this machine: refuse to start with its detail.
 */
export async function calibrate(slot: SandboxSlot, emptyProgram: string, runs: number): Promise<Calibration> {
  await slot.resetBox();
  await slot.addFile('empty', { path: emptyProgram }, { executable: true });
  const samples: Array<{ cpuMs: number; memKiB: number }> = [];
  for (let index = 0; index < runs + 3; index++) {
    const result = await slot.run({ argv: ['./empty'], limits: calibrationLimits, stdoutFile: join(slot.ioDir, 'calibration.out'), stderrFile: join(slot.ioDir, 'calibration.err') });
    if (result.status !== 'ok') {
      throw new SandboxUnavailableError([`the sandbox self-test failed (${result.status}): ${result.detail ?? 'no detail'}`]);
    }
    if (index >= 3) samples.push(result.raw);
  }
  await slot.resetBox();
  return calibrationFrom(samples);
}
