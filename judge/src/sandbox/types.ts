/**
 * The sandbox port: limits in, a measured and classified run out. Drivers: bubblewrap (production,
 * bwrap-driver.ts) and the development-only unsafe mode (unsafe-driver.ts). docs/DESIGN.md section 7 and
 * research/sandbox.md describe the design and the numbers behind it.
 */

/**
 * How a run ended, decided in this order (verdict.ts): `tle` (CPU), `wall-tle`, `mle`, `ole`, `re`, `ok`.
 * `sandbox-error`: the sandbox itself failed (the program never started, or measuring failed); the caller
 * reports a judge error, never a verdict against the contestant.
 */
export type RunStatus = 'ok' | 'tle' | 'wall-tle' | 'mle' | 'ole' | 're' | 'sandbox-error';

export interface RunLimits {
  /** CPU time summed over every process and thread of the run. */
  readonly cpuMs: number;
  /** Wall-clock time from the start of the wrapper to the kill. */
  readonly wallMs: number;
  /** Peak memory of the run (cgroup), after the wrapper's own baseline is subtracted. */
  readonly memoryKiB: number;
  /** Processes and threads the program may have at once (1 for a single-threaded program). */
  readonly processes: number;
  /** Largest file the program may write: stdout, stderr and any file in the box or /tmp (RLIMIT_FSIZE). */
  readonly outputBytes: number;
  /** Size of the private /tmp tmpfs (its pages also count as the run's memory). Default 64 MiB. */
  readonly tmpBytes?: number;
}

export interface ReadOnlyBind {
  /** Host path; it must be reachable (directories traversable, file readable) by the slot's uid. */
  readonly source: string;
  /** Absolute path inside the sandbox, e.g. /box/data or /opt/checker. */
  readonly target: string;
}

export interface RunRequest {
  /**
   * Program and arguments as seen inside the sandbox, where the working directory is the box (`/box`).
   * Use absolute Debian paths (/usr/bin/python3) or paths relative to the box (./main).
   */
  readonly argv: readonly string[];
  readonly limits: RunLimits;
  /** Host file opened by the judge as the program's stdin; default /dev/null. */
  readonly stdinFile?: string;
  /** Host files for stdout/stderr, opened (truncated) by the judge; default the slot's io directory. */
  readonly stdoutFile?: string;
  readonly stderrFile?: string;
  readonly readOnlyBinds?: readonly ReadOnlyBind[];
  /** Extra environment; the sandbox starts from an empty one (PATH, HOME=/box, TMPDIR, LANG are set). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface RunResult {
  readonly status: RunStatus;
  /** CPU time of the program: the cgroup's usage minus the calibrated setup CPU of the wrapper. */
  readonly cpuMs: number;
  readonly wallMs: number;
  /** Peak memory of the program: cgroup peak minus file page cache and the calibrated baseline. */
  readonly memKiB: number;
  /** Exit status when the program exited normally, else null. */
  readonly exitCode: number | null;
  /** Signal name when the program (or the wrapper, when the judge killed it) died by a signal. */
  readonly signal: string | null;
  readonly stdoutFile: string;
  readonly stderrFile: string;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  /** The memory limit was hit (OOM kill or peak over the limit); set with status `mle`. */
  readonly memoryExceeded: boolean;
  /** A fork failed because of the process limit (the run may still end ok or re). */
  readonly processLimitHit: boolean;
  /** Human-readable detail: why the sandbox failed, which limit was hit. */
  readonly detail?: string;
  /** The measurements before calibration was subtracted (for calibration and diagnostics). */
  readonly raw: { readonly cpuMs: number; readonly memKiB: number };
}

/** A parallel execution slot: its own uid and box directory. Use a slot for one run at a time. */
export interface SandboxSlot {
  readonly index: number;
  readonly uid: number;
  /**
   * Host directory mounted at /box, read-write for the slot's uid; it lives on a size-limited tmpfs in bwrap
   * mode and is recreated by resetBox.
   */
  readonly boxDir: string;
  /** Host directory only the judge can reach (default stdout/stderr files, compiled programs). */
  readonly ioDir: string;
  /** Replaces the box with a new empty directory (a fresh box for the next run). */
  resetBox(): Promise<void>;
  /**
   * Puts a file in the box: owned by root, readable (and executable when asked) by the program, not
   * writable unless `writable`. `name` is a plain file name.
   */
  addFile(name: string, from: { readonly path: string } | { readonly content: string | Uint8Array }, options?: AddFileOptions): Promise<void>;
  /**
   * Copies a regular file the program left in the box to `destination` without following symlinks.
   * Returns false when it is missing, not a regular file, or larger than `maxBytes`.
   */
  copyOut(name: string, destination: string, maxBytes: number): Promise<boolean>;
  /** Reads a regular file from the box (no symlinks), at most `maxBytes`; null when missing or too big. */
  readFile(name: string, maxBytes: number): Promise<Buffer | null>;
  run(request: RunRequest): Promise<RunResult>;
}

export interface AddFileOptions {
  readonly executable?: boolean;
  readonly writable?: boolean;
}

/** Wrapper overhead measured at start and subtracted from every run. */
export interface Calibration {
  readonly cpuMs: number;
  readonly memKiB: number;
}

export type SandboxMode = 'bwrap' | 'unsafe';

export interface Sandbox {
  readonly mode: SandboxMode;
  readonly slotCount: number;
  readonly calibration: Calibration;
  /** 1 or 2 in bwrap mode, null in unsafe mode. */
  readonly cgroupVersion: 1 | 2 | null;
  /** Waits for a free slot. */
  acquire(): Promise<SandboxSlot>;
  release(slot: SandboxSlot): void;
  withSlot<T>(use: (slot: SandboxSlot) => Promise<T>): Promise<T>;
  /** Waits for pending cgroup removals, unmounts the boxes and removes the judge's cgroups. */
  close(): Promise<void>;
}
