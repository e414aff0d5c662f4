import { existsSync, mkdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { requiredV2Controllers } from './detect.ts';
import {
  assertCgroupName,
  childCgroups,
  killPids,
  readKeyed,
  readNumber,
  readPids,
  readText,
  readTextOrNull,
  removeCgroupDir,
  writeExisting,
  writeText,
  type CgroupBackend,
  type CgroupLimits,
  type CgroupStats,
  type RunCgroup,
} from './common.ts';

/**
 * cgroup v2 (stock Debian 12), written from the kernel's Documentation/admin-guide/cgroup-v2.rst. It cannot
 * run on this machine (every controller is bound to v1), so tests/sandbox checks its file mapping against
 * a fake directory tree.
 *
 * Setup: every cgroup from `root` down to `<root>/<parent>` gets `+memory +pids` (and `+cpu` when
 * available) in its cgroup.subtree_control, written only for the controllers it lacks. Under systemd,
 * give the judge a unit with `Delegate=yes` and point `parent` at a sub-cgroup of it; the judge process
 * itself must then live in a sibling leaf (the "no internal processes" rule).
 *
 * | purpose        | file (in `<root>/<parent>/<run>/`)                                          |
 * |----------------|-----------------------------------------------------------------------------|
 * | memory limit   | memory.max; memory.swap.max = 0 (when swap is accounted); memory.oom.group = 1 |
 * | process limit  | pids.max                                                                    |
 * | CPU used       | cpu.stat `usage_usec` (×1000 → ns)                                          |
 * | peak memory    | memory.peak (Linux ≥ 5.19), else memory.current at the end (an underestimate) |
 * | OOM kills      | memory.events `oom_kill`                                                    |
 * | refused forks  | pids.events `max`                                                           |
 * | file cache     | memory.stat `file` − `shmem`                                                |
 * | kill           | cgroup.kill ← 1 (Linux ≥ 5.14), else SIGKILL every pid in cgroup.procs      |
 */
export function createV2Backend(options: { root: string; parent: string }): CgroupBackend {
  const { root } = options;
  options.parent.split('/').forEach(assertCgroupName);
  const parentDir = join(root, options.parent);
  // Feature files, looked up once on the parent (a non-root cgroup has the same interface files as
  // its children).
  let swapFile = false;
  let oomGroup = false;
  let killFile = false;

  function ensureControllers(dir: string, wanted: readonly string[]): void {
    const enabled = (readTextOrNull(join(dir, 'cgroup.subtree_control')) ?? '').trim().split(/\s+/);
    const missing = wanted.filter((name) => !enabled.includes(name));
    if (missing.length === 0) return;
    try {
      writeText(join(dir, 'cgroup.subtree_control'), missing.map((name) => `+${name}`).join(' '));
    } catch (error) {
      throw new Error(
        `cannot enable ${missing.join(', ')} in ${dir}/cgroup.subtree_control (${(error as Error).message}); ` +
          'under systemd run the judge in a unit with Delegate=yes and set the cgroup parent inside it',
        { cause: error },
      );
    }
  }

  function open(name: string): RunCgroup {
    const dir = join(parentDir, name);
    const procsFile = join(dir, 'cgroup.procs');
    const cpuNs = () => (readKeyed(join(dir, 'cpu.stat')).get('usage_usec') ?? 0) * 1000;
    const cgroup: RunCgroup = {
      name,
      procsFiles: [procsFile],
      dirs: [dir],
      cpuUsageNs: cpuNs,
      pids: () => readPids(procsFile),
      taskCount: () => readNumber(join(dir, 'pids.current')),
      stats(): CgroupStats {
        const stat = readKeyed(join(dir, 'memory.stat'));
        const peakFile = existsSync(join(dir, 'memory.peak')) ? 'memory.peak' : 'memory.current';
        return {
          cpuNs: cpuNs(),
          peakBytes: readNumber(join(dir, peakFile)),
          fileCacheBytes: Math.max(0, (stat.get('file') ?? 0) - (stat.get('shmem') ?? 0)),
          oomKills: readKeyed(join(dir, 'memory.events')).get('oom_kill') ?? 0,
          pidsMaxEvents: readKeyed(join(dir, 'pids.events')).get('max') ?? 0,
        };
      },
      limit(limits: CgroupLimits) {
        writeText(join(dir, 'memory.max'), String(Math.floor(limits.memoryBytes)));
        if (swapFile) writeText(join(dir, 'memory.swap.max'), '0');
        if (oomGroup) writeText(join(dir, 'memory.oom.group'), '1');
        writeText(join(dir, 'pids.max'), String(Math.floor(limits.pids)));
      },
      killAll() {
        if (killFile) {
          try {
            writeExisting(join(dir, 'cgroup.kill'), '1');
            return;
          } catch {
            // Fall back to killing pid by pid.
          }
        }
        killPids(readPids(procsFile));
      },
      async remove() {
        cgroup.killAll();
        await removeCgroupDir(dir, { beforeRetry: () => cgroup.killAll() });
      },
    };
    return cgroup;
  }

  return {
    version: 2,
    description: `cgroup v2 (${parentDir})`,
    async setup() {
      const controllers = readText(join(root, 'cgroup.controllers')).trim().split(/\s+/);
      const wanted = [...requiredV2Controllers, ...(controllers.includes('cpu') ? ['cpu'] : [])];
      const missing = requiredV2Controllers.filter((name) => !controllers.includes(name));
      if (missing.length > 0) throw new Error(`cgroup v2 at ${root} lacks the ${missing.join(', ')} controller(s)`);
      // Enable the controllers on the way down: root, each intermediate cgroup, then the parent itself
      // (so that the run cgroups below it get the interface files).
      const steps = relative(root, parentDir).split(sep);
      let dir = root;
      ensureControllers(dir, wanted);
      for (const step of steps) {
        dir = join(dir, step);
        mkdirSync(dir, { recursive: true });
        ensureControllers(dir, wanted);
      }
      swapFile = existsSync(join(parentDir, 'memory.swap.max'));
      oomGroup = existsSync(join(parentDir, 'memory.oom.group'));
      killFile = existsSync(join(parentDir, 'cgroup.kill'));
      await Promise.all(childCgroups(parentDir).map((name) => open(name).remove()));
    },
    create(name: string, limits?: CgroupLimits): RunCgroup {
      assertCgroupName(name);
      const cgroup = open(name);
      mkdirSync(cgroup.dirs[0]!);
      if (limits) cgroup.limit(limits);
      return cgroup;
    },
    async teardown() {
      await removeCgroupDir(parentDir, { timeoutMs: 30_000 });
    },
  };
}
