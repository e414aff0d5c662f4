import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { drain, killPids, type CgroupBackend, type RunCgroup } from './cgroups/index.ts';
import { cpuBackstopSeconds, defaultTmpBytes, validateRequest } from './limits.ts';
import { sandboxPrograms } from './requirements.ts';
import type { Calibration, RunLimits, RunRequest, RunResult } from './types.ts';
import { applyCalibration, decideStatus, splitExitStatus } from './verdict.ts';

/** The fds the runner receives besides stdio (it hands them on to bwrap). */
const seccompFd = 3;
const statusFd = 4;

/** Environment of every sandboxed program (before the request's own variables). */
export const baseEnvironment: Readonly<Record<string, string>> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/box',
  TMPDIR: '/tmp',
  LANG: 'C.UTF-8',
};

export interface CommandInput {
  readonly uid: number;
  readonly boxDir: string;
  readonly limits: RunLimits;
  readonly request: RunRequest;
}

/** The runner's own arguments (given at spawn): the cgroup.procs files it joins first. */
export function runnerArgs(procsFiles: readonly string[]): string[] {
  return procsFiles.flatMap((file) => ['--cgroup', file]);
}

/** The run as the runner reads it on its stdin: NUL-terminated words. */
export function runnerRequest(stdio: { stdin: string; stdout: string; stderr: string }, words: readonly string[]): Buffer {
  const all = ['--stdin', stdio.stdin, '--stdout', stdio.stdout, '--stderr', stdio.stderr, ...words];
  if (all.some((word) => word.includes('\0'))) throw new Error('a sandbox argument contains a NUL byte');
  return Buffer.from(all.map((word) => `${word}\0`).join(''));
}

/**
 * The run's words for the runner (infra/judge/runner.c, spawned as root; see runnerRequest):
 *   runner: joins the run's cgroups, dies with the judge, reaps every process of the run; its child sets
 *   the rlimits (CPU backstop, file size = output limit, no core, unlimited stack, 256 fds), drops all
 *   groups, switches to the slot's uid/gid, sets no_new_privs and its parent-death signal, then execs
 *   → bwrap (every namespace, a new session, dies with its parent, read-only root: /usr and the few /etc
 *     files binaries need; private /proc, /dev, /tmp; the box at /box; an empty environment; seccomp).
 * The judge opens the BPF and the runner the stdio files (as root, outside the box); nothing is opened
 * inside the box for them.
 */
export function bwrapCommand(input: CommandInput): string[] {
  const { limits, request } = input;
  const env = { ...baseEnvironment, ...request.env };
  const cpu = cpuBackstopSeconds(limits);
  const fsize = Math.floor(limits.outputBytes);
  return [
    '--uid', String(input.uid),
    '--rlimit', `cpu=${cpu}:${cpu + 1}`,
    '--rlimit', `fsize=${fsize}:${fsize}`,
    '--rlimit', 'core=0:0',
    '--rlimit', 'stack=unlimited:unlimited',
    '--rlimit', 'nofile=256:256',
    '--',
    sandboxPrograms.bwrap,
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind', '/usr', '/usr',
    '--symlink', 'usr/lib', '/lib',
    '--symlink', 'usr/lib64', '/lib64',
    '--symlink', 'usr/bin', '/bin',
    '--symlink', 'usr/sbin', '/sbin',
    '--ro-bind', '/etc/ld.so.cache', '/etc/ld.so.cache',
    '--ro-bind', '/etc/alternatives', '/etc/alternatives',
    '--proc', '/proc',
    '--dev', '/dev',
    '--size', String(Math.floor(limits.tmpBytes ?? defaultTmpBytes)),
    '--tmpfs', '/tmp',
    '--bind', input.boxDir, '/box',
    ...(request.readOnlyBinds ?? []).flatMap((bind) => ['--ro-bind', bind.source, bind.target]),
    '--remount-ro', '/',
    '--chdir', '/box',
    '--hostname', 'box',
    '--clearenv',
    ...Object.entries(env).flatMap(([key, value]) => ['--setenv', key, value]),
    '--seccomp', String(seccompFd),
    '--json-status-fd', String(statusFd),
    '--',
    ...request.argv,
  ];
}

export interface BwrapContext {
  readonly backend: CgroupBackend;
  readonly seccompBpf: string;
  /** The built runner (tools.ts). */
  readonly runner: string;
  /** Each slot's runner for its next run, started (and joined to its cgroup) during the current run. */
  readonly spares: Map<number, StartedRunner>;
  /** A fresh run (cgroup) name for a slot. */
  nextRunName(slotIndex: number): string;
  calibration(): Calibration;
  readonly pollMs: number;
  /** Keeps track of background cgroup removals (rmdir retried on EBUSY). */
  track(removal: Promise<void>): void;
}

export interface SlotIdentity {
  readonly index: number;
  readonly uid: number;
  readonly boxDir: string;
  readonly ioDir: string;
}

/** Processes of the run besides the program's own: the runner, the outer bwrap and bwrap's pid 1. */
export const wrapperProcesses = 3;

/** Memory the wrapper itself needs in the cgroup on top of the program's limit. */
export function cgroupMemoryBytes(limits: Pick<RunLimits, 'memoryKiB'>, calibration: Calibration): number {
  return limits.memoryKiB * 1024 + Math.max(2 * 1024 * 1024, calibration.memKiB * 1024 + 1024 * 1024);
}

function readHead(path: string, maxBytes: number): string {
  try {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(maxBytes);
      const count = readSync(fd, buffer, 0, maxBytes, 0);
      return buffer.subarray(0, count).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function sandboxError(request: RunRequest, stdoutFile: string, stderrFile: string, detail: string, wallMs = 0): RunResult {
  return {
    status: 'sandbox-error',
    cpuMs: 0,
    wallMs,
    memKiB: 0,
    exitCode: null,
    signal: null,
    stdoutFile,
    stderrFile,
    stdoutBytes: sizeOf(stdoutFile),
    stderrBytes: sizeOf(stderrFile),
    memoryExceeded: false,
    processLimitHit: false,
    detail,
    raw: { cpuMs: 0, memKiB: 0 },
  };
}

interface RunnerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: Error;
}

/** A runner spawned in its run's fresh cgroup, waiting for the run on its stdin. */
export interface StartedRunner {
  readonly cgroup: RunCgroup;
  readonly child: ChildProcess;
  readonly exit: Promise<RunnerExit>;
  readonly exited: () => boolean;
  readonly statusText: () => string;
  readonly statusStream: Readable;
  readonly statusClosed: Promise<void>;
}

/** Creates a run's cgroup (limits come later) and spawns the runner into it. Throws when either fails. */
export function startRunner(context: Pick<BwrapContext, 'backend' | 'seccompBpf' | 'runner'>, runName: string): StartedRunner {
  const cgroup = context.backend.create(runName);
  let child: ChildProcess;
  const seccomp = openSync(context.seccompBpf, 'r');
  try {
    child = spawn(context.runner, runnerArgs(cgroup.procsFiles), {
      stdio: ['pipe', 'ignore', 'ignore', seccomp, 'pipe'],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
  } catch (error) {
    void cgroup.remove().catch(() => undefined);
    throw error;
  } finally {
    closeSync(seccomp);
  }
  let done = false;
  const exit = new Promise<RunnerExit>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).finally(() => (done = true));
  // A runner that died before reading its run makes writing the run fail with EPIPE: seen as its exit.
  child.stdin!.on('error', () => undefined);
  let text = '';
  const statusStream = child.stdio[statusFd] as Readable;
  statusStream.setEncoding('utf8');
  statusStream.on('data', (chunk: string) => (text += chunk));
  const statusClosed = new Promise<void>((resolve) => {
    statusStream.once('close', resolve);
    statusStream.once('error', () => resolve());
  });
  return { cgroup, child, exit, exited: () => done, statusText: () => text, statusStream, statusClosed };
}

/** Kills a runner that was never given a run and removes its cgroup. */
export async function discardRunner(runner: StartedRunner): Promise<void> {
  runner.child.kill('SIGKILL');
  await runner.exit;
  runner.statusStream.destroy();
  await runner.cgroup.remove();
}

/** The slot's spare runner when it is still waiting, else a new one. */
function takeRunner(context: BwrapContext, slot: SlotIdentity): StartedRunner {
  const spare = context.spares.get(slot.index);
  context.spares.delete(slot.index);
  if (spare && !spare.exited()) return spare;
  if (spare) context.track(discardRunner(spare));
  return startRunner(context, context.nextRunName(slot.index));
}

/**
 * One run: take the slot's runner (already in its fresh cgroup), set the cgroup's limits, send the run,
 * start the next run's runner, poll CPU and arm the wall timer, kill on either, check that nothing of the
 * run is left after the runner's exit, read the counters, classify, and remove the cgroup in the background.
 */
export async function runWithBwrap(context: BwrapContext, slot: SlotIdentity, request: RunRequest): Promise<RunResult> {
  validateRequest(request);
  const { limits } = request;
  const stdoutFile = request.stdoutFile ?? join(slot.ioDir, 'stdout');
  const stderrFile = request.stderrFile ?? join(slot.ioDir, 'stderr');
  const calibration = context.calibration();

  let runner: StartedRunner;
  try {
    runner = takeRunner(context, slot);
  } catch (error) {
    return sandboxError(request, stdoutFile, stderrFile, `cannot start the run's cgroup and runner: ${(error as Error).message}`);
  }
  const { cgroup, child } = runner;
  let started = 0n;
  try {
    cgroup.limit({ memoryBytes: cgroupMemoryBytes(limits, calibration), pids: limits.processes + wrapperProcesses });
    const words = bwrapCommand({ uid: slot.uid, boxDir: slot.boxDir, limits, request });
    const run = runnerRequest({ stdin: request.stdinFile ?? '/dev/null', stdout: stdoutFile, stderr: stderrFile }, words);

    started = process.hrtime.bigint();
    child.stdin!.end(run);
    // The next run's runner joins its cgroup now, off that run's critical path.
    try {
      context.spares.set(slot.index, startRunner(context, context.nextRunName(slot.index)));
    } catch {
      // The next run starts its own.
    }

    let killedFor: 'cpu' | 'wall' | null = null;
    let backstop: NodeJS.Timeout | undefined;
    const kill = (reason: 'cpu' | 'wall') => {
      if (killedFor !== null) return;
      killedFor = reason;
      // The runner SIGKILLs bwrap (whose pid 1 takes the pid namespace down), reaps it all and exits; every
      // other process of the run is SIGKILLed here at once too. The runner is spared so that it can reap:
      // then nothing of the run is left when its exit is seen. If it does not exit, kill it and all.
      child.kill('SIGTERM');
      killPids(cgroup.pids().filter((pid) => pid !== child.pid));
      backstop = setTimeout(() => {
        child.kill('SIGKILL');
        cgroup.killAll();
      }, 2000);
    };
    const cpuBudgetNs = (limits.cpuMs + calibration.cpuMs) * 1e6;
    const poller = setInterval(() => {
      try {
        if (cgroup.cpuUsageNs() > cpuBudgetNs) kill('cpu');
      } catch {
        // The cgroup is being torn down; the exit handler takes over.
      }
    }, context.pollMs);
    const wallTimer = setTimeout(() => kill('wall'), limits.wallMs);

    const exit = await runner.exit;
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    clearInterval(poller);
    clearTimeout(wallTimer);
    clearTimeout(backstop);

    // The runner has reaped every process of the run before exiting; this checks it (and kills and waits
    // for stragglers if the runner itself was killed).
    const drained = await drain(cgroup, 5000);
    await Promise.race([runner.statusClosed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    runner.statusStream.destroy();
    const statusText = runner.statusText();
    if (exit.error) {
      return sandboxError(request, stdoutFile, stderrFile, `cannot spawn the sandbox: ${exit.error.message}`, wallMs);
    }
    if (!drained) {
      return sandboxError(request, stdoutFile, stderrFile, `processes of run ${cgroup.name} survived SIGKILL for 5 s`, wallMs);
    }

    const stats = cgroup.stats();
    const raw = { cpuMs: stats.cpuNs / 1e6, memKiB: Math.max(0, stats.peakBytes - stats.fileCacheBytes) / 1024 };
    const measured = applyCalibration(raw, calibration);
    const { exitCode, signal } = exit.signal !== null ? { exitCode: null, signal: exit.signal } : splitExitStatus(exit.code ?? 0);
    // bwrap reports "exit-code" once the program ran and ended; it is missing when the runner,
    // bwrap's own setup (mounts, namespaces) or the exec failed. ("child-pid" comes before the mounts, so
    // it proves nothing.) A run killed by the judge or the OOM killer may also lack it.
    const setupFailed = !statusText.includes('"exit-code"') && stats.oomKills === 0;
    const stdoutBytes = sizeOf(stdoutFile);
    const stderrBytes = sizeOf(stderrFile);
    const observation = {
      killedFor: killedFor as 'cpu' | 'wall' | null,
      setupFailed,
      cpuMs: measured.cpuMs,
      memKiB: measured.memKiB,
      exitCode,
      signal,
      oomKills: stats.oomKills,
      stdoutBytes,
      stderrBytes,
    };
    const status = decideStatus(observation, limits);
    const memoryExceeded = status === 'mle';
    let detail: string | undefined;
    if (status === 'sandbox-error') detail = `the sandbox did not start the program: ${readHead(stderrFile, 2000).trim() || `exit status ${exit.code}`}`;
    else if (status === 'tle') detail = `CPU time limit of ${limits.cpuMs} ms exceeded`;
    else if (status === 'wall-tle') detail = `wall-clock limit of ${limits.wallMs} ms exceeded`;
    else if (status === 'mle') {
      detail = `memory limit of ${limits.memoryKiB} KiB exceeded${stats.oomKills > 0 ? ' (killed by the OOM killer)' : ` (peak ${Math.round(measured.memKiB)} KiB)`}`;
    } else if (status === 'ole') detail = `output limit of ${limits.outputBytes} bytes exceeded`;
    return {
      status,
      cpuMs: Math.round(measured.cpuMs * 1000) / 1000,
      wallMs: Math.round(wallMs * 1000) / 1000,
      memKiB: Math.round(measured.memKiB),
      exitCode,
      signal,
      stdoutFile,
      stderrFile,
      stdoutBytes,
      stderrBytes,
      memoryExceeded,
      processLimitHit: stats.pidsMaxEvents > 0,
      ...(detail === undefined ? {} : { detail }),
      raw: { cpuMs: raw.cpuMs, memKiB: raw.memKiB },
    };
  } catch (error) {
    child.kill('SIGKILL');
    cgroup.killAll();
    const wallMs = started === 0n ? 0 : Number(process.hrtime.bigint() - started) / 1e6;
    return sandboxError(request, stdoutFile, stderrFile, `sandbox failure: ${(error as Error).message}`, wallMs);
  } finally {
    context.track(cgroup.remove());
  }
}
