/**
 * Shared setup of the sandbox suites: a real bwrap sandbox per test file (its own uids, cgroup parent
 * and temp directory), the attack programs built with the host gcc into that directory (sources in
 * ./programs; no binaries are committed), and the checks for leftovers.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createSandbox, type Sandbox, type SandboxOptions } from '@otog/judge/sandbox/index';

const run = promisify(execFile);

export const programsDir = fileURLToPath(new URL('./programs/', import.meta.url));

/** Builds the named programs (static, -O2, pthreads) into `outDir`; returns name → path. */
export async function buildPrograms(outDir: string, names: readonly string[]): Promise<Record<string, string>> {
  const built: Record<string, string> = {};
  await Promise.all(
    names.map(async (name) => {
      const output = join(outDir, name);
      await run('/usr/bin/gcc', ['-O2', '-static', '-pthread', '-o', output, join(programsDir, `${name}.c`)], { timeout: 120_000 });
      built[name] = output;
    }),
  );
  return built;
}

export interface ProcessInfo {
  readonly pid: number;
  readonly uid: number;
  readonly state: string;
  readonly command: string;
}

/** Processes whose real uid is one of `uids` (zombies included, with state Z). */
export function processesOf(uids: readonly number[]): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      if (!uids.includes(uid)) continue;
      found.push({
        pid: Number(entry),
        uid,
        state: /^State:\s+(\S)/m.exec(status)?.[1] ?? '?',
        command: /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '?',
      });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * Processes of the slot uids that are still alive. Zombies are not running; on this VM the host init
 * reaps bwrap's exited pid-1 lazily (research/sandbox.md), so they are left out.
 */
export function livingProcessesOf(uids: readonly number[]): ProcessInfo[] {
  return processesOf(uids).filter((process) => process.state !== 'Z' && process.state !== 'X');
}

export interface TestSandbox {
  readonly sandbox: Sandbox;
  readonly tmp: string;
  readonly uids: readonly number[];
  readonly cgroupParent: string;
  close(): Promise<void>;
}

/**
 * A bwrap sandbox for one test file. Fails (does not skip) when the machine lacks a requirement: the
 * suites run as root on CI machines like this one, and the error lists what is missing.
 */
export async function startTestSandbox(name: string, firstUid: number, options: Partial<SandboxOptions> = {}): Promise<TestSandbox> {
  const tmp = mkdtempSync(join(tmpdir(), `otog-${name}-`));
  // mkdtemp makes 0700; the slot uids must be able to traverse to their box (bwrap binds it as them).
  chmodSync(tmp, 0o711);
  const cgroupParent = `otog-test-${name}-${process.pid}`;
  const slots = options.slots ?? 1;
  const sandbox = await createSandbox({ mode: 'bwrap', rootDir: join(tmp, 'sandbox'), firstUid, cgroupParent, slots, calibrationRuns: 10, ...options });
  return {
    sandbox,
    tmp,
    uids: Array.from({ length: slots }, (_unused, index) => firstUid + index),
    cgroupParent,
    async close() {
      try {
        await sandbox.close();
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  };
}

/** The run cgroups of a test sandbox that still exist (v1 hierarchies). */
export function cgroupDirsLeft(cgroupParent: string): string[] {
  return ['memory', 'pids', 'cpuacct'].map((hierarchy) => `/sys/fs/cgroup/${hierarchy}/${cgroupParent}`).filter((path) => existsSync(path));
}
