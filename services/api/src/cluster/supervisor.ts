/**
 * Runs the processes of `npm run cluster` the way an orchestrator would: each with its own environment
 * and log file, restarted after it dies (whatever killed it), stopped with SIGTERM and, after a grace
 * period, SIGKILL. Children hold a pipe on stdin and stop when it closes (OTOG_STOP_WITH_STDIN), so even a
 * supervisor killed with SIGKILL leaves no orphans behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface ProcessSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** stdout and stderr of every run go here, appended. */
  readonly logFile: string;
  /** A different umask for the child (the judge's sandbox expects 022); default: ours. */
  readonly umask?: number;
}

export interface ProcessEvent {
  readonly name: string;
  readonly kind: 'started' | 'exited';
  readonly pid: number | undefined;
  readonly code?: number | null;
  readonly signal?: NodeJS.Signals | null;
}

interface Supervised {
  spec: ProcessSpec;
  child: ChildProcess | undefined;
  exited: Promise<void>;
  restarts: number;
  timer: NodeJS.Timeout | undefined;
  /** Held down by kill(..., { restart: false }) until resume(). */
  held: boolean;
  /** The log file, open for appending; children write to it directly, so their last lines survive us. */
  log: number;
}

const STOP_GRACE_MS = 20_000;

export class Supervisor {
  readonly #processes = new Map<string, Supervised>();
  readonly #restartDelayMs: number;
  readonly #onEvent: (event: ProcessEvent) => void;
  #stopping = false;

  constructor(options: { restartDelayMs?: number; onEvent?: (event: ProcessEvent) => void } = {}) {
    this.#restartDelayMs = options.restartDelayMs ?? 1_000;
    this.#onEvent = options.onEvent ?? (() => {});
  }

  start(spec: ProcessSpec): void {
    if (this.#processes.has(spec.name)) throw new Error(`a process named ${spec.name} is already supervised`);
    mkdirSync(dirname(spec.logFile), { recursive: true });
    const entry: Supervised = { spec, child: undefined, exited: Promise.resolve(), restarts: 0, timer: undefined, held: false, log: openSync(spec.logFile, 'a') };
    this.#processes.set(spec.name, entry);
    this.#launch(entry);
  }

  #launch(entry: Supervised): void {
    const { spec } = entry;
    const umask = spec.umask === undefined ? undefined : process.umask(spec.umask);
    let child: ChildProcess;
    try {
      // Out of our process group: a terminal's Ctrl-C reaches only us, and stop() takes the children down in order.
      child = spawn(spec.command, [...spec.args], { env: { ...spec.env }, stdio: ['pipe', entry.log, entry.log], detached: true });
    } finally {
      if (umask !== undefined) process.umask(umask);
    }
    entry.child = child;
    // A child that cannot start (ENOENT) reports through 'error' and then 'exit'.
    child.on('error', (error) => writeSync(entry.log, `supervisor: ${spec.name} could not start: ${error.message}\n`));
    entry.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        entry.child = undefined;
        writeSync(entry.log, `supervisor: ${spec.name} exited (code ${code}, signal ${signal})\n`);
        this.#onEvent({ name: spec.name, kind: 'exited', pid: child.pid, code, signal });
        if (!this.#stopping && !entry.held) {
          entry.restarts += 1;
          entry.timer = setTimeout(() => this.#launch(entry), this.#restartDelayMs);
        }
        resolve();
      });
    });
    this.#onEvent({ name: spec.name, kind: 'started', pid: child.pid });
  }

  names(): string[] {
    return [...this.#processes.keys()];
  }

  pid(name: string): number | undefined {
    return this.#processes.get(name)?.child?.pid;
  }

  restarts(name: string): number {
    return this.#processes.get(name)?.restarts ?? 0;
  }

  /**
   * Signals one process (SIGKILL by default, as a crash would) and resolves once it has exited. The
   * supervisor restarts it, unless `restart: false` holds it down until resume().
   */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL', options: { restart?: boolean } = {}): Promise<void> {
    const entry = this.#processes.get(name);
    if (!entry?.child) throw new Error(`${name} is not running`);
    entry.held = options.restart === false;
    entry.child.kill(signal);
    await entry.exited;
  }

  resume(name: string): void {
    const entry = this.#processes.get(name);
    if (!entry?.held) return;
    entry.held = false;
    if (!entry.child && !this.#stopping) this.#launch(entry);
  }

  /** Stops every process: the groups in the given order (each group at once), then the rest; none restarts. */
  async stop(groups: ReadonlyArray<readonly string[]> = []): Promise<void> {
    this.#stopping = true;
    for (const group of [...groups, this.names()]) {
      await Promise.all(
        group.map(async (name) => {
          const entry = this.#processes.get(name);
          if (!entry) return;
          clearTimeout(entry.timer);
          const child = entry.child;
          if (child) {
            child.kill('SIGTERM');
            const forced = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
            await entry.exited;
            clearTimeout(forced);
          }
          closeSync(entry.log);
          this.#processes.delete(name);
        }),
      );
    }
  }
}
