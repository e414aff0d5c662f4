import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  assertCgroupName,
  childCgroups,
  killPids,
  readKeyed,
  readNumber,
  readPids,
  removeCgroupDir,
  writeText,
  type CgroupBackend,
  type CgroupLimits,
  type CgroupStats,
  type RunCgroup,
} from './common.ts';

export interface V1Hierarchies {
  readonly memory: string;
  readonly pids: string;
  readonly cpuacct: string;
  readonly swapAccounting: boolean;
}

/**
 * cgroup v1 (this machine): one directory per run in each of the memory, pids and cpuacct hierarchies,
 * under `<hierarchy>/<parent>/`.
 *
 * | purpose        | file                                                                   |
 * |----------------|------------------------------------------------------------------------|
 * | memory limit   | memory.limit_in_bytes, then memory.memsw.limit_in_bytes (when present) |
 * | process limit  | pids.max                                                               |
 * | CPU used       | cpuacct.usage (ns)                                                     |
 * | peak memory    | memory.memsw.max_usage_in_bytes, else memory.max_usage_in_bytes        |
 * | OOM kills      | memory.oom_control `oom_kill`                                          |
 * | refused forks  | pids.events `max`                                                      |
 * | file cache     | memory.stat `cache` − `shmem`                                          |
 * | kill           | SIGKILL every pid in pids/…/cgroup.procs                               |
 */
export function createV1Backend(hierarchies: V1Hierarchies, parent: string): CgroupBackend {
  parent.split('/').forEach(assertCgroupName);
  const parents = {
    memory: join(hierarchies.memory, parent),
    pids: join(hierarchies.pids, parent),
    cpuacct: join(hierarchies.cpuacct, parent),
  };
  const allParents = [parents.memory, parents.pids, parents.cpuacct];

  function open(name: string): RunCgroup {
    const memory = join(parents.memory, name);
    const pids = join(parents.pids, name);
    const cpuacct = join(parents.cpuacct, name);
    const dirs = [memory, pids, cpuacct];
    const procsFile = join(pids, 'cgroup.procs');
    const cgroup: RunCgroup = {
      name,
      procsFiles: dirs.map((dir) => join(dir, 'cgroup.procs')),
      dirs,
      cpuUsageNs: () => readNumber(join(cpuacct, 'cpuacct.usage')),
      pids: () => readPids(procsFile),
      taskCount: () => readNumber(join(pids, 'pids.current')),
      stats(): CgroupStats {
        const peakFile = hierarchies.swapAccounting ? 'memory.memsw.max_usage_in_bytes' : 'memory.max_usage_in_bytes';
        const stat = readKeyed(join(memory, 'memory.stat'));
        return {
          cpuNs: readNumber(join(cpuacct, 'cpuacct.usage')),
          peakBytes: readNumber(join(memory, peakFile)),
          fileCacheBytes: Math.max(0, (stat.get('cache') ?? 0) - (stat.get('shmem') ?? 0)),
          oomKills: readKeyed(join(memory, 'memory.oom_control')).get('oom_kill') ?? 0,
          pidsMaxEvents: readKeyed(join(pids, 'pids.events')).get('max') ?? 0,
        };
      },
      limit(limits: CgroupLimits) {
        const bytes = String(Math.floor(limits.memoryBytes));
        // memsw must stay >= the memory limit: set the memory limit first (both start unlimited).
        writeText(join(memory, 'memory.limit_in_bytes'), bytes);
        if (hierarchies.swapAccounting && existsSync(join(memory, 'memory.memsw.limit_in_bytes'))) {
          writeText(join(memory, 'memory.memsw.limit_in_bytes'), bytes);
        }
        writeText(join(pids, 'pids.max'), String(Math.floor(limits.pids)));
      },
      killAll: () => killPids(readPids(procsFile)),
      async remove() {
        // Kill stragglers (also those only in the memory or cpuacct hierarchy), then rmdir each.
        const beforeRetry = () => dirs.forEach((dir) => killPids(readPids(join(dir, 'cgroup.procs'))));
        beforeRetry();
        await Promise.all(dirs.map((dir) => removeCgroupDir(dir, { beforeRetry })));
      },
    };
    return cgroup;
  }

  return {
    version: 1,
    description: `cgroup v1 (${allParents.join(', ')})`,
    async setup() {
      for (const dir of allParents) mkdirSync(dir, { recursive: true });
      // Run cgroups left behind by a judge that crashed with this parent name.
      const stale = new Set(allParents.flatMap(childCgroups));
      await Promise.all([...stale].map((name) => open(name).remove()));
    },
    create(name: string, limits?: CgroupLimits): RunCgroup {
      assertCgroupName(name);
      const cgroup = open(name);
      for (const dir of cgroup.dirs) mkdirSync(dir);
      if (limits) cgroup.limit(limits);
      return cgroup;
    },
    async teardown() {
      await Promise.all(allParents.map((dir) => removeCgroupDir(dir, { timeoutMs: 30_000 })));
    },
  };
}
