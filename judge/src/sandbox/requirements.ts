import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { detectCgroups, type CgroupDetection } from './cgroups/detect.ts';

/**
 * Absolute paths of the programs the sandbox runs (never looked up in PATH): bwrap behind the judge's own
 * runner (built at start, tools.ts), prlimit for the unsafe mode, mount/umount for the box tmpfs, gcc.
 */
export const sandboxPrograms = {
  bwrap: '/usr/bin/bwrap',
  prlimit: '/usr/bin/prlimit',
  mount: '/usr/bin/mount',
  umount: '/usr/bin/umount',
  gcc: '/usr/bin/gcc',
} as const;

export const seccompHeader = '/usr/include/seccomp.h';
export const minimumBwrapVersion = [0, 8, 0] as const;

/** What the checks look at; the real system in production, a fake in the unit tests. */
export interface RequirementProbe {
  readonly uid: number;
  isExecutable(path: string): boolean;
  exists(path: string): boolean;
  /** File contents, or null when the file does not exist. */
  readText(path: string): string | null;
  /** `bwrap --version` output, or null when it cannot run. */
  bwrapVersion(): string | null;
  readonly cgroups: CgroupDetection;
}

export function systemProbe(cgroupRoot = '/sys/fs/cgroup'): RequirementProbe {
  return {
    uid: process.getuid?.() ?? -1,
    isExecutable(path) {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    exists: (path) => existsSync(path),
    readText(path) {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return null;
      }
    },
    bwrapVersion() {
      try {
        return execFileSync(sandboxPrograms.bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 });
      } catch {
        return null;
      }
    },
    cgroups: detectCgroups(cgroupRoot),
  };
}

function parseVersion(text: string): number[] | null {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return match ? match.slice(1, 4).map(Number) : null;
}

function atLeast(version: readonly number[], minimum: readonly number[]): boolean {
  for (let index = 0; index < minimum.length; index++) {
    const have = version[index] ?? 0;
    const need = minimum[index] ?? 0;
    if (have !== need) return have > need;
  }
  return true;
}

/**
 * Everything the bwrap sandbox needs, as one clear line per missing piece (empty when all is there):
 * root, bwrap ≥ 0.8, prlimit, mount, gcc and the libseccomp headers (the seccomp filter and the runner are
 * built at start), user namespaces for an unprivileged uid, and memory/pids/CPU cgroups (v1 or v2).
 */
export function checkRequirements(probe: RequirementProbe): string[] {
  const problems: string[] = [];
  if (probe.uid !== 0) {
    problems.push(`the judge is not running as root (uid ${probe.uid}): it needs root to create cgroups, mount the box tmpfs and switch to the slot uids`);
  }
  const packages: Record<keyof typeof sandboxPrograms, string> = {
    bwrap: 'bubblewrap',
    prlimit: 'util-linux',
    mount: 'mount',
    umount: 'mount',
    gcc: 'gcc',
  };
  for (const [name, path] of Object.entries(sandboxPrograms) as Array<[keyof typeof sandboxPrograms, string]>) {
    if (!probe.isExecutable(path)) problems.push(`${name} is missing (${path}): apt-get install ${packages[name]}`);
  }
  if (probe.isExecutable(sandboxPrograms.bwrap)) {
    const output = probe.bwrapVersion();
    const version = output === null ? null : parseVersion(output);
    if (version === null) {
      problems.push(`${sandboxPrograms.bwrap} --version failed: reinstall bubblewrap`);
    } else if (!atLeast(version, minimumBwrapVersion)) {
      problems.push(
        `bubblewrap ${version.join('.')} is too old: the sandbox needs ${minimumBwrapVersion.join('.')} or newer (--disable-userns, --json-status-fd)`,
      );
    }
  }
  if (!probe.exists(seccompHeader)) {
    problems.push(`the libseccomp headers are missing (${seccompHeader}): apt-get install libseccomp-dev (the seccomp filter is built at start)`);
  }

  const maxUserNamespaces = probe.readText('/proc/sys/user/max_user_namespaces');
  if (maxUserNamespaces === null || Number(maxUserNamespaces.trim()) <= 0) {
    problems.push(
      `user namespaces are disabled (user.max_user_namespaces = ${maxUserNamespaces?.trim() ?? 'unknown'}): sysctl -w user.max_user_namespaces=15000`,
    );
  }
  const unprivilegedClone = probe.readText('/proc/sys/kernel/unprivileged_userns_clone');
  if (unprivilegedClone !== null && unprivilegedClone.trim() !== '1') {
    problems.push('unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0): sysctl -w kernel.unprivileged_userns_clone=1');
  }
  const apparmor = probe.readText('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
  if (apparmor !== null && apparmor.trim() === '1') {
    problems.push(
      'AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1): ' +
        'add an AppArmor profile allowing userns for /usr/bin/bwrap, or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
    );
  }

  if (probe.cgroups.version === null) {
    problems.push(`no usable cgroups for memory, pids and CPU accounting: ${probe.cgroups.problems.join('; ')}`);
  }
  return problems;
}

export const unsafeModeHint = 'For development only, OTOG_SANDBOX=unsafe runs submissions WITHOUT any isolation.';

/** Thrown when the bwrap sandbox cannot start; the message lists every problem and how to fix it. */
export class SandboxUnavailableError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      [
        'The judge sandbox (bubblewrap) cannot start:',
        ...problems.map((problem) => `  - ${problem}`),
        'Install the Debian packages with `bash infra/scripts/ensure-packages.sh` (as root) and fix the rest.',
        unsafeModeHint,
      ].join('\n'),
    );
    this.name = 'SandboxUnavailableError';
    this.problems = problems;
  }
}
