/**
 * Pure parts of the sandbox and languages: verdict order, calibration subtraction, startup check
 * messages, compiler message trimming, the wrapper command, configuration, cgroup detection, and the
 * explicit-only unsafe mode.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapCommand, cgroupMemoryBytes, runnerArgs, runnerRequest } from '@otog/judge/sandbox/bwrap-driver';
import { detectCgroups } from '@otog/judge/sandbox/cgroups/detect';
import {
  applyCalibration,
  calibrationFrom,
  checkRequirements,
  createSandbox,
  decideStatus,
  sandboxOptionsFromEnv,
  SandboxUnavailableError,
  splitExitStatus,
  systemProbe,
  type RequirementProbe,
  type RunLimits,
  type RunObservation,
} from '@otog/judge/sandbox/index';
import { expandArgv, getLanguage, languages, problemRunLimits, trimCompilerMessage } from '@otog/judge/languages/index';

const limits: RunLimits = { cpuMs: 1000, wallMs: 3000, memoryKiB: 262144, processes: 1, outputBytes: 1000 };
const clean: RunObservation = {
  killedFor: null,
  setupFailed: false,
  cpuMs: 10,
  memKiB: 1000,
  exitCode: 0,
  signal: null,
  oomKills: 0,
  stdoutBytes: 10,
  stderrBytes: 0,
};

describe('verdict order', () => {
  const cases: Array<[string, Partial<RunObservation>, string]> = [
    ['clean exit', {}, 'ok'],
    ['non-zero exit', { exitCode: 1 }, 're'],
    ['signal', { exitCode: null, signal: 'SIGSEGV' }, 're'],
    ['killed for CPU', { killedFor: 'cpu', exitCode: null, signal: 'SIGKILL' }, 'tle'],
    ['CPU over the limit at exit', { cpuMs: 1001 }, 'tle'],
    ['SIGXCPU (RLIMIT_CPU backstop)', { exitCode: null, signal: 'SIGXCPU' }, 'tle'],
    ['wall kill', { killedFor: 'wall', exitCode: null, signal: 'SIGKILL' }, 'wall-tle'],
    ['OOM kill', { oomKills: 1, exitCode: null, signal: 'SIGKILL' }, 'mle'],
    ['peak over the limit', { memKiB: 262145 }, 'mle'],
    ['SIGXFSZ', { exitCode: null, signal: 'SIGXFSZ' }, 'ole'],
    ['stdout at the limit, exit 0', { stdoutBytes: 1000 }, 'ole'],
    ['stderr at the limit', { stderrBytes: 1000, exitCode: 5 }, 'ole'],
    ['TLE beats MLE', { killedFor: 'cpu', oomKills: 1 }, 'tle'],
    ['wall beats MLE', { killedFor: 'wall', oomKills: 1 }, 'wall-tle'],
    ['MLE beats OLE', { oomKills: 1, stdoutBytes: 5000 }, 'mle'],
    ['OLE beats RE', { stdoutBytes: 5000, exitCode: 1 }, 'ole'],
    ['setup failed', { setupFailed: true, exitCode: 1 }, 'sandbox-error'],
    ['setup never finished but the judge killed it', { setupFailed: true, killedFor: 'wall' }, 'wall-tle'],
  ];
  it.each(cases)('%s', (_name, observation, expected) => {
    expect(decideStatus({ ...clean, ...observation }, limits)).toBe(expected);
  });

  it('splits 128+N exit statuses into signals', () => {
    expect(splitExitStatus(0)).toEqual({ exitCode: 0, signal: null });
    expect(splitExitStatus(3)).toEqual({ exitCode: 3, signal: null });
    expect(splitExitStatus(137)).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(splitExitStatus(153)).toEqual({ exitCode: null, signal: 'SIGXFSZ' });
    expect(splitExitStatus(139)).toEqual({ exitCode: null, signal: 'SIGSEGV' });
    expect(splitExitStatus(255)).toEqual({ exitCode: 255, signal: null });
  });
});

describe('calibration', () => {
  it('takes the median of the empty program runs', () => {
    const samples = [5.1, 9.9, 5.8, 6.0, 5.5].map((cpuMs, index) => ({ cpuMs, memKiB: 1100 + index * 50 }));
    expect(calibrationFrom(samples)).toEqual({ cpuMs: 5.8, memKiB: 1200 });
    expect(calibrationFrom([{ cpuMs: 4, memKiB: 1000 }, { cpuMs: 6, memKiB: 1400 }])).toEqual({ cpuMs: 5, memKiB: 1200 });
  });

  it('subtracts the wrapper cost and clamps at zero', () => {
    const calibration = { cpuMs: 5.8, memKiB: 1200 };
    expect(applyCalibration({ cpuMs: 1007.3, memKiB: 263516 }, calibration)).toEqual({ cpuMs: 1007.3 - 5.8, memKiB: 262316 });
    expect(applyCalibration({ cpuMs: 3, memKiB: 900 }, calibration)).toEqual({ cpuMs: 0, memKiB: 0 });
  });

  it('gives the cgroup room for the wrapper above the program limit', () => {
    expect(cgroupMemoryBytes({ memoryKiB: 1024 }, { cpuMs: 0, memKiB: 0 })).toBe(1024 * 1024 + 2 * 1024 * 1024);
    expect(cgroupMemoryBytes({ memoryKiB: 1024 }, { cpuMs: 0, memKiB: 3000 })).toBe(1024 * 1024 + 3000 * 1024 + 1024 * 1024);
  });
});

function probe(overrides: Partial<RequirementProbe> & { files?: Record<string, string>; missing?: string[] } = {}): RequirementProbe {
  const files: Record<string, string> = { '/proc/sys/user/max_user_namespaces': '96365\n', ...overrides.files };
  const missing = new Set(overrides.missing ?? []);
  return {
    uid: 0,
    isExecutable: (path) => !missing.has(path),
    exists: (path) => !missing.has(path),
    readText: (path) => files[path] ?? null,
    bwrapVersion: () => 'bubblewrap 0.8.0\n',
    cgroups: { version: 1, memory: '/sys/fs/cgroup/memory', pids: '/sys/fs/cgroup/pids', cpuacct: '/sys/fs/cgroup/cpuacct', swapAccounting: true },
    ...overrides,
  };
}

describe('startup checks', () => {
  it('passes when everything is there', () => {
    expect(checkRequirements(probe())).toEqual([]);
  });

  it('this machine (CI: root, bubblewrap, cgroup v1) meets every requirement', () => {
    expect(checkRequirements(systemProbe())).toEqual([]);
    expect(systemProbe().cgroups.version).toBe(1);
  });

  it('names each missing requirement with its fix', () => {
    const problems = checkRequirements(
      probe({
        uid: 1000,
        missing: ['/usr/bin/bwrap', '/usr/bin/prlimit', '/usr/include/seccomp.h'],
        files: { '/proc/sys/user/max_user_namespaces': '0\n', '/proc/sys/kernel/unprivileged_userns_clone': '0\n' },
        cgroups: { version: null, problems: ['cgroup v1 hierarchies missing: pids (/sys/fs/cgroup/pids)'] },
      }),
    );
    expect(problems).toEqual([
      'the judge is not running as root (uid 1000): it needs root to create cgroups, mount the box tmpfs and switch to the slot uids',
      'bwrap is missing (/usr/bin/bwrap): apt-get install bubblewrap',
      'prlimit is missing (/usr/bin/prlimit): apt-get install util-linux',
      'the libseccomp headers are missing (/usr/include/seccomp.h): apt-get install libseccomp-dev (the seccomp filter is built at start)',
      'user namespaces are disabled (user.max_user_namespaces = 0): sysctl -w user.max_user_namespaces=15000',
      'unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0): sysctl -w kernel.unprivileged_userns_clone=1',
      'no usable cgroups for memory, pids and CPU accounting: cgroup v1 hierarchies missing: pids (/sys/fs/cgroup/pids)',
    ]);
  });

  it('refuses an old bubblewrap and an AppArmor userns restriction', () => {
    const problems = checkRequirements(
      probe({ bwrapVersion: () => 'bubblewrap 0.6.1\n', files: { '/proc/sys/user/max_user_namespaces': '10', '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '1' } }),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^bubblewrap 0\.6\.1 is too old: the sandbox needs 0\.8\.0 or newer/);
    expect(problems[1]).toMatch(/^AppArmor restricts unprivileged user namespaces/);
  });

  it('the error lists the problems, how to install, and says the unsafe mode is for development only', () => {
    const error = new SandboxUnavailableError(['bwrap is missing (/usr/bin/bwrap): apt-get install bubblewrap']);
    expect(error.message).toBe(
      [
        'The judge sandbox (bubblewrap) cannot start:',
        '  - bwrap is missing (/usr/bin/bwrap): apt-get install bubblewrap',
        'Install the Debian packages with `bash infra/scripts/ensure-packages.sh` (as root) and fix the rest.',
        'For development only, OTOG_SANDBOX=unsafe runs submissions WITHOUT any isolation.',
      ].join('\n'),
    );
  });

  it('createSandbox refuses to start (and never falls back to unsafe) when a requirement is missing', async () => {
    const warnings: string[] = [];
    const root = mkdtempSync(join(tmpdir(), 'otog-refuse-'));
    try {
      await expect(
        createSandbox({ mode: 'bwrap', rootDir: join(root, 'sandbox'), probe: probe({ missing: ['/usr/bin/bwrap'] }), warn: (text) => warnings.push(text) }),
      ).rejects.toThrow(SandboxUnavailableError);
      expect(warnings).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the mode must be given explicitly', async () => {
    await expect(createSandbox({ rootDir: '/nonexistent' } as never)).rejects.toThrow(/explicitly/);
  });
});

describe('configuration', () => {
  it('defaults to bwrap; unsafe only when spelled out', () => {
    expect(sandboxOptionsFromEnv({}).mode).toBe('bwrap');
    expect(sandboxOptionsFromEnv({ OTOG_SANDBOX: 'unsafe' }).mode).toBe('unsafe');
    expect(() => sandboxOptionsFromEnv({ OTOG_SANDBOX: 'none' })).toThrow(/bwrap" or "unsafe/);
    expect(sandboxOptionsFromEnv({ OTOG_SANDBOX_SLOTS: '4', OTOG_SANDBOX_FIRST_UID: '62000' })).toMatchObject({ slots: 4, firstUid: 62000 });
    expect(() => sandboxOptionsFromEnv({ OTOG_SANDBOX_SLOTS: '0' })).toThrow(/OTOG_SANDBOX_SLOTS/);
  });
});

describe('unsafe mode', () => {
  const root = mkdtempSync(join(tmpdir(), 'otog-unsafe-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('logs a loud warning and runs plain processes with rlimits', async () => {
    const warnings: string[] = [];
    const sandbox = await createSandbox({ mode: 'unsafe', rootDir: join(root, 'sandbox'), warn: (text) => warnings.push(text) });
    try {
      expect(sandbox.mode).toBe('unsafe');
      expect(sandbox.cgroupVersion).toBeNull();
      expect(warnings.join('\n')).toMatch(/UNSAFE SANDBOX.*DEVELOPMENT ONLY/);
      expect(warnings.join('\n')).toMatch(/NO namespaces/);
      const result = await sandbox.withSlot(async (slot) => {
        await slot.addFile('hello.sh', { content: 'echo hello\n' });
        return slot.run({ argv: ['/bin/sh', 'hello.sh'], limits });
      });
      expect(result.status).toBe('ok');
      expect(result.detail).toMatch(/UNSAFE/);
    } finally {
      await sandbox.close();
    }
  });
});

describe('wrapper command', () => {
  const command = bwrapCommand({
    uid: 60100,
    boxDir: '/var/lib/otog/slot-0/box',
    limits: { ...limits, tmpBytes: 1 << 20 },
    request: { argv: ['./main', 'x'], limits, readOnlyBinds: [{ source: '/data/checker', target: '/opt/checker' }], env: { A: 'b' } },
  });

  it('has the runner join the cgroups, then take the stdio files, rlimits, slot uid and bwrap as the run', () => {
    expect(runnerArgs(['/sys/fs/cgroup/memory/j/r/cgroup.procs', '/sys/fs/cgroup/pids/j/r/cgroup.procs'])).toEqual([
      '--cgroup', '/sys/fs/cgroup/memory/j/r/cgroup.procs', '--cgroup', '/sys/fs/cgroup/pids/j/r/cgroup.procs',
    ]);
    const pairs = command.slice(0, command.indexOf('--')).map((arg, index, all) => `${arg} ${all[index + 1]}`);
    expect(pairs).toEqual(expect.arrayContaining(['--uid 60100', '--rlimit cpu=2:3', '--rlimit fsize=1000:1000', '--rlimit core=0:0']));
    expect(pairs).toEqual(expect.arrayContaining(['--rlimit stack=unlimited:unlimited', '--rlimit nofile=256:256']));
    expect(command[command.indexOf('--') + 1]).toBe('/usr/bin/bwrap');
    const request = runnerRequest({ stdin: '/in', stdout: '/out', stderr: '/err' }, ['--uid', '60100', '--', '/usr/bin/bwrap', 'a b']);
    expect(request.toString()).toBe('--stdin\0/in\0--stdout\0/out\0--stderr\0/err\0--uid\x0060100\0--\0/usr/bin/bwrap\0a b\0');
    expect(() => runnerRequest({ stdin: '/in', stdout: '/out', stderr: '/err' }, ['x\0y'])).toThrow(/NUL/);
  });

  it('isolates: every namespace, new session, dies with the parent, read-only root, private /tmp, seccomp', () => {
    const bwrap = command.slice(command.indexOf('/usr/bin/bwrap'));
    for (const flag of ['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--new-session', '--clearenv']) expect(bwrap).toContain(flag);
    const pairs = bwrap.map((arg, index) => `${arg} ${bwrap[index + 1]}`);
    expect(pairs).toEqual(expect.arrayContaining(['--seccomp 3', '--json-status-fd 4', '--chdir /box', '--remount-ro /', `--size ${1 << 20}`, '--tmpfs /tmp']));
    expect(bwrap.join(' ')).toContain('--ro-bind /usr /usr');
    expect(bwrap.join(' ')).toContain('--bind /var/lib/otog/slot-0/box /box');
    expect(bwrap.join(' ')).toContain('--ro-bind /data/checker /opt/checker');
    expect(bwrap.join(' ')).toContain('--setenv A b');
    expect(bwrap.slice(-3)).toEqual(['--', './main', 'x']);
  });
});

describe('cgroup detection', () => {
  const root = mkdtempSync(join(tmpdir(), 'otog-detect-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('finds v1 hierarchies (this machine) and reports what is missing otherwise', () => {
    for (const [dir, file] of [['memory', 'memory.limit_in_bytes'], ['pids', 'cgroup.procs'], ['cpuacct', 'cpuacct.usage'], ['unified', 'cgroup.controllers']] as const) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, file), file === 'cgroup.controllers' ? 'hugetlb\n' : '');
    }
    expect(detectCgroups(root)).toMatchObject({ version: 1, memory: join(root, 'memory'), swapAccounting: false });
    rmSync(join(root, 'pids'), { recursive: true });
    const detection = detectCgroups(root);
    expect(detection.version).toBeNull();
    if (detection.version === null) {
      expect(detection.problems).toEqual([
        `cgroup v2 at ${join(root, 'unified')} lacks the memory, pids controller(s) (they are bound to v1 or disabled)`,
        `cgroup v1 hierarchies missing: pids (${join(root, 'pids')})`,
      ]);
    }
  });
});

describe('languages table', () => {
  it('has c, cpp and python with absolute Debian paths and the DOMAIN time factors', () => {
    expect(languages.map((language) => language.key)).toEqual(['c', 'cpp', 'python']);
    expect(getLanguage('c').compile[0]).toBe('/usr/bin/gcc');
    expect(getLanguage('cpp').compile[0]).toBe('/usr/bin/g++');
    expect(getLanguage('python').run[0]).toBe('/usr/bin/python3');
    expect(getLanguage('python').timeFactor).toBe(5);
    expect(getLanguage('cpp').compile).toEqual(expect.arrayContaining(['-O2', '-std=c++17', '-fomit-frame-pointer']));
    expect(getLanguage('c').compile).toEqual(expect.arrayContaining(['-O2', '-std=c17', '-fomit-frame-pointer', '-static']));
    for (const language of languages) expect(language.compileLimits.wallMs).toBe(30_000);
    expect(() => getLanguage('java')).toThrow(/unknown language/);
  });

  it('derives run limits: CPU = time limit × factor, wall = 2 × CPU + 1 s, memory in MiB', () => {
    expect(problemRunLimits(getLanguage('python'), { timeLimitMs: 1000, memoryLimitMB: 256 })).toMatchObject({
      cpuMs: 5000,
      wallMs: 11_000,
      memoryKiB: 262144,
      processes: 1,
    });
    expect(problemRunLimits(getLanguage('cpp'), { timeLimitMs: 1500, memoryLimitMB: 64 })).toMatchObject({ cpuMs: 1500, wallMs: 4000, memoryKiB: 65536 });
  });

  it('expands the source templates', () => {
    expect(expandArgv(getLanguage('cpp').compile, 'main.cpp', ['grader.cpp'])).toEqual([
      '/usr/bin/g++', '-O2', '-std=c++17', '-fomit-frame-pointer', '-o', 'main', 'main.cpp', 'grader.cpp',
    ]);
    expect(expandArgv(getLanguage('python').compile, 'main.py', [])).toEqual(['/usr/bin/python3', '-m', 'py_compile', 'main.py']);
  });
});

describe('compiler message trimming', () => {
  it('removes box paths (sandbox and host) but not look-alikes', () => {
    const text = [
      "/box/main.cpp:3:5: error: 'x' was not declared",
      'In file included from /var/lib/otog/slot-0/box/lib.h:1,',
      'see /boxes/other and /box',
    ].join('\n');
    expect(trimCompilerMessage(text, ['/box', '/var/lib/otog/slot-0/box'])).toBe(
      ["main.cpp:3:5: error: 'x' was not declared", 'In file included from lib.h:1,', 'see /boxes/other and '].join('\n'),
    );
  });

  it('keeps at most 300 lines, then "and N more lines..."', () => {
    const lines = Array.from({ length: 305 }, (_unused, index) => `line ${index + 1}`);
    const trimmed = trimCompilerMessage(`${lines.join('\n')}\n`).split('\n');
    expect(trimmed).toHaveLength(301);
    expect(trimmed[299]).toBe('line 300');
    expect(trimmed[300]).toBe('and 5 more lines...');
    expect(trimmed.length).toBe(301);
    expect(trimCompilerMessage(lines.slice(0, 300).join('\n'))).toBe(lines.slice(0, 300).join('\n'));
    expect(trimCompilerMessage('')).toBe('');
  });
});
