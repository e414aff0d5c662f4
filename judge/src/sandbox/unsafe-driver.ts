import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cpuBackstopSeconds, validateRequest } from './limits.ts';
import { sandboxPrograms } from './requirements.ts';
import type { RunRequest, RunResult } from './types.ts';
import { decideStatus, splitExitStatus } from './verdict.ts';

/**
 * The banner logged when the unsafe mode starts. It is never chosen implicitly: only an explicit
 * `mode: 'unsafe'` (OTOG_SANDBOX=unsafe) selects it.
 */
export const unsafeModeWarning = [
  '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
  '!!  UNSAFE SANDBOX (OTOG_SANDBOX=unsafe) — FOR DEVELOPMENT ONLY                        !!',
  '!!  Submissions run as the judge\'s own user with rlimits only: NO namespaces, NO        !!',
  '!!  seccomp, NO cgroups. They can read test data, reach the network and the filesystem, !!',
  '!!  and leave processes behind. Time and memory figures are approximate.                !!',
  '!!  Never use this mode for a contest or on a machine with real data.                   !!',
  '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
].join('\n');

const clockTicks = 100;

function sample(pid: number): { cpuMs: number; hwmKiB: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state(0) … utime(11) stime(12) cutime(13) cstime(14).
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /VmHWM:\s+(\d+)/.exec(status);
    return { cpuMs: (ticks * 1000) / clockTicks, hwmKiB: hwm ? Number(hwm[1]) : 0 };
  } catch {
    return null;
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Development-only run: prlimit (CPU, address space, file size, no core) and a plain spawn in the box
 * directory as the judge's own user, in its own process group (killed as a group at the end). CPU and
 * memory come from polling /proc of the program, so they are approximate and miss the last interval.
 */
export async function runUnsafe(slot: { boxDir: string; ioDir: string }, request: RunRequest, pollMs: number): Promise<RunResult> {
  validateRequest(request);
  const { limits } = request;
  const stdoutFile = request.stdoutFile ?? join(slot.ioDir, 'stdout');
  const stderrFile = request.stderrFile ?? join(slot.ioDir, 'stderr');
  const fds = [
    openSync(request.stdinFile ?? '/dev/null', 'r'),
    openSync(stdoutFile, 'w', 0o600),
    openSync(stderrFile, 'w', 0o600),
  ];
  const addressSpace = limits.memoryKiB * 1024 + 64 * 1024 * 1024;
  const started = process.hrtime.bigint();
  const child = spawn(
    sandboxPrograms.prlimit,
    [
      `--cpu=${cpuBackstopSeconds(limits)}:${cpuBackstopSeconds(limits) + 1}`,
      `--as=${addressSpace}`,
      `--fsize=${Math.floor(limits.outputBytes)}`,
      '--core=0',
      '--nofile=256',
      '--',
      ...request.argv,
    ],
    {
      cwd: slot.boxDir,
      stdio: [fds[0]!, fds[1]!, fds[2]!],
      detached: true,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: slot.boxDir, LANG: 'C.UTF-8', ...request.env },
    },
  );
  for (const fd of fds) closeSync(fd);

  let cpuMs = 0;
  let memKiB = 0;
  let killedFor: 'cpu' | 'wall' | null = null;
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const poller = setInterval(() => {
    if (child.pid === undefined) return;
    const now = sample(child.pid);
    if (now === null) return;
    cpuMs = Math.max(cpuMs, now.cpuMs);
    memKiB = Math.max(memKiB, now.hwmKiB);
    if (cpuMs > limits.cpuMs && killedFor === null) {
      killedFor = 'cpu';
      killGroup();
    }
  }, pollMs);
  const wallTimer = setTimeout(() => {
    if (killedFor === null) killedFor = 'wall';
    killGroup();
  }, limits.wallMs);
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  clearInterval(poller);
  clearTimeout(wallTimer);
  killGroup();

  const { exitCode, signal } = exit.signal !== null ? { exitCode: null, signal: exit.signal } : splitExitStatus(exit.code ?? 0);
  const stdoutBytes = sizeOf(stdoutFile);
  const stderrBytes = sizeOf(stderrFile);
  const status = decideStatus(
    { killedFor, setupFailed: exit.error !== undefined, cpuMs, memKiB, exitCode, signal, oomKills: 0, stdoutBytes, stderrBytes },
    limits,
  );
  return {
    status,
    cpuMs,
    wallMs,
    memKiB,
    exitCode,
    signal,
    stdoutFile,
    stderrFile,
    stdoutBytes,
    stderrBytes,
    memoryExceeded: status === 'mle',
    processLimitHit: false,
    detail: exit.error ? `cannot spawn: ${exit.error.message}` : 'UNSAFE sandbox (development only): no isolation, approximate figures',
    raw: { cpuMs, memKiB },
  };
}
