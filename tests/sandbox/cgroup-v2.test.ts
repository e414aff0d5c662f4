/**
 * The cgroup v2 backend's file mapping. This machine cannot run cgroup v2 (every controller is bound to
 * v1, research/sandbox.md), so — and only here — the backend is pointed at a FAKE cgroup tree in a temp
 * directory: plain files standing in for the kernel's interface files. The test checks which files the
 * backend writes with which values and how it reads the counters; the kernel's behaviour itself is not
 * simulated (on a real v2 host the attack suite covers that).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createV2Backend } from '@otog/judge/sandbox/cgroups/v2';
import { detectCgroups } from '@otog/judge/sandbox/cgroups/detect';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'otog-fake-cgroup2-'));
  // The root of a cgroup2 mount: controllers available, none enabled for children yet.
  writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma misc\n');
  writeFileSync(join(root, 'cgroup.subtree_control'), '');
  writeFileSync(join(root, 'cgroup.procs'), '1\n');
  // The judge's parent as the kernel would populate it once memory and pids are enabled above it.
  const parent = join(root, 'otog-judge');
  mkdirSync(parent);
  for (const file of ['cgroup.subtree_control', 'memory.swap.max', 'memory.oom.group', 'cgroup.kill']) writeFileSync(join(parent, file), '');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const read = (path: string) => readFileSync(path, 'utf8');

/** What the kernel would show in a run cgroup after some activity. */
function fakeCounters(dir: string): void {
  writeFileSync(join(dir, 'cpu.stat'), 'usage_usec 1234567\nuser_usec 1200000\nsystem_usec 34567\nnr_periods 0\n');
  writeFileSync(join(dir, 'memory.peak'), String(300 * 1024 * 1024));
  writeFileSync(join(dir, 'memory.current'), String(10 * 1024 * 1024));
  writeFileSync(join(dir, 'memory.events'), 'low 0\nhigh 0\nmax 17\noom 1\noom_kill 1\noom_group_kill 1\n');
  writeFileSync(join(dir, 'memory.stat'), 'anon 268435456\nfile 20971520\nkernel 1048576\nshmem 4194304\nfile_mapped 0\n');
  writeFileSync(join(dir, 'pids.events'), 'max 3\n');
  writeFileSync(join(dir, 'cgroup.procs'), '');
}

function removeFakeFiles(dir: string): void {
  for (const file of readdirSync(dir)) unlinkSync(join(dir, file));
}

describe('cgroup v2 backend: file mapping (fake tree, v2 cannot run on this machine)', () => {
  it('detects a pure v2 mount and a hybrid unified mount with the controllers', () => {
    expect(detectCgroups(root)).toMatchObject({ version: 2, root });
    const hybrid = mkdtempSync(join(tmpdir(), 'otog-fake-hybrid-'));
    try {
      mkdirSync(join(hybrid, 'unified'));
      writeFileSync(join(hybrid, 'unified', 'cgroup.controllers'), 'memory pids cpu\n');
      expect(detectCgroups(hybrid)).toMatchObject({ version: 2, root: join(hybrid, 'unified') });
    } finally {
      rmSync(hybrid, { recursive: true, force: true });
    }
  });

  it('setup enables memory, pids and cpu on the root and on the parent', async () => {
    const backend = createV2Backend({ root, parent: 'otog-judge' });
    await backend.setup();
    expect(backend.version).toBe(2);
    expect(read(join(root, 'cgroup.subtree_control'))).toBe('+memory +pids +cpu');
    expect(read(join(root, 'otog-judge', 'cgroup.subtree_control'))).toBe('+memory +pids +cpu');
  });

  it('setup writes only the controllers that are missing, and creates nested parents', async () => {
    writeFileSync(join(root, 'cgroup.subtree_control'), 'memory pids\n');
    const backend = createV2Backend({ root, parent: 'judge.slice/runs' });
    await backend.setup();
    expect(read(join(root, 'cgroup.subtree_control'))).toBe('+cpu');
    expect(read(join(root, 'judge.slice', 'cgroup.subtree_control'))).toBe('+memory +pids +cpu');
    expect(read(join(root, 'judge.slice', 'runs', 'cgroup.subtree_control'))).toBe('+memory +pids +cpu');
  });

  it('setup refuses a root without the memory controller', async () => {
    writeFileSync(join(root, 'cgroup.controllers'), 'cpu io pids\n');
    await expect(createV2Backend({ root, parent: 'otog-judge' }).setup()).rejects.toThrow(/lacks the memory controller/);
  });

  it('a run cgroup: limits written to memory.max, memory.swap.max, memory.oom.group and pids.max', async () => {
    const backend = createV2Backend({ root, parent: 'otog-judge' });
    await backend.setup();
    const cgroup = backend.create('run-1', { memoryBytes: 268435456 + 2097152, pids: 3 });
    const dir = join(root, 'otog-judge', 'run-1');
    expect(cgroup.dirs).toEqual([dir]);
    expect(cgroup.procsFiles).toEqual([join(dir, 'cgroup.procs')]);
    expect(read(join(dir, 'memory.max'))).toBe('270532608');
    expect(read(join(dir, 'memory.swap.max'))).toBe('0');
    expect(read(join(dir, 'memory.oom.group'))).toBe('1');
    expect(read(join(dir, 'pids.max'))).toBe('3');
  });

  it('counters: cpu.stat usage_usec, memory.peak, memory.events oom_kill, pids.events max, memory.stat file − shmem', async () => {
    const backend = createV2Backend({ root, parent: 'otog-judge' });
    await backend.setup();
    const cgroup = backend.create('run-2', { memoryBytes: 1 << 30, pids: 10 });
    const dir = cgroup.dirs[0]!;
    fakeCounters(dir);
    expect(cgroup.cpuUsageNs()).toBe(1234567000);
    expect(cgroup.stats()).toEqual({
      cpuNs: 1234567000,
      peakBytes: 300 * 1024 * 1024,
      fileCacheBytes: 20971520 - 4194304,
      oomKills: 1,
      pidsMaxEvents: 3,
    });
    // Without memory.peak (Linux < 5.19) the current usage stands in.
    unlinkSync(join(dir, 'memory.peak'));
    expect(cgroup.stats().peakBytes).toBe(10 * 1024 * 1024);
  });

  it('kill writes 1 to cgroup.kill; remove rmdirs the run cgroup', async () => {
    const backend = createV2Backend({ root, parent: 'otog-judge' });
    await backend.setup();
    const cgroup = backend.create('run-3', { memoryBytes: 1 << 30, pids: 10 });
    const dir = cgroup.dirs[0]!;
    fakeCounters(dir);
    writeFileSync(join(dir, 'cgroup.kill'), '');
    cgroup.killAll();
    expect(read(join(dir, 'cgroup.kill'))).toBe('1');
    expect(cgroup.pids()).toEqual([]);
    // On cgroupfs rmdir succeeds with the interface files present; a plain directory must be emptied.
    removeFakeFiles(dir);
    await cgroup.remove();
    expect(existsSync(dir)).toBe(false);
  });

  it('setup removes run cgroups left behind by a crashed judge', async () => {
    mkdirSync(join(root, 'otog-judge', 'stale-run'));
    await createV2Backend({ root, parent: 'otog-judge' }).setup();
    expect(existsSync(join(root, 'otog-judge', 'stale-run'))).toBe(false);
  });

  it('skips memory.swap.max and memory.oom.group when the kernel has no such files', async () => {
    unlinkSync(join(root, 'otog-judge', 'memory.swap.max'));
    unlinkSync(join(root, 'otog-judge', 'memory.oom.group'));
    const backend = createV2Backend({ root, parent: 'otog-judge' });
    await backend.setup();
    backend.create('run-4', { memoryBytes: 1 << 20, pids: 1 });
    expect(existsSync(join(root, 'otog-judge', 'run-4', 'memory.swap.max'))).toBe(false);
    expect(existsSync(join(root, 'otog-judge', 'run-4', 'memory.oom.group'))).toBe(false);
  });
});
