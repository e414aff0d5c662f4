import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readTextOrNull } from './common.ts';

export type CgroupDetection =
  | { readonly version: 2; readonly root: string; readonly controllers: readonly string[] }
  | {
      readonly version: 1;
      readonly memory: string;
      readonly pids: string;
      readonly cpuacct: string;
      /** memory.memsw.* present (swap accounting on). */
      readonly swapAccounting: boolean;
    }
  | { readonly version: null; readonly problems: readonly string[] };

/** Controllers the v2 backend needs (cpu.stat usage is present without the cpu controller). */
export const requiredV2Controllers = ['memory', 'pids'] as const;

function controllersOf(dir: string): string[] | null {
  const text = readTextOrNull(join(dir, 'cgroup.controllers'));
  return text === null ? null : text.trim().split(/\s+/).filter(Boolean);
}

/**
 * Chooses the cgroup backend (research/sandbox.md "Kernel checks at startup"):
 * - v2 when `<root>/cgroup.controllers` (a pure cgroup2 mount) or `<root>/unified/cgroup.controllers`
 *   (hybrid) lists memory and pids;
 * - otherwise v1 when the memory, pids and cpuacct hierarchies are mounted under `<root>`;
 * - otherwise none, with the reasons.
 * This machine is hybrid with every controller bound to v1, so it detects v1.
 */
export function detectCgroups(root = '/sys/fs/cgroup'): CgroupDetection {
  const problems: string[] = [];
  for (const candidate of [root, join(root, 'unified')]) {
    const controllers = controllersOf(candidate);
    if (controllers === null) continue;
    const missing = requiredV2Controllers.filter((name) => !controllers.includes(name));
    if (missing.length === 0) return { version: 2, root: candidate, controllers };
    problems.push(`cgroup v2 at ${candidate} lacks the ${missing.join(', ')} controller(s) (they are bound to v1 or disabled)`);
  }
  const memory = join(root, 'memory');
  const pids = join(root, 'pids');
  const cpuacct = join(root, 'cpuacct');
  const v1Missing: string[] = [];
  if (!existsSync(join(memory, 'memory.limit_in_bytes'))) v1Missing.push(`memory (${memory})`);
  if (!existsSync(join(pids, 'cgroup.procs'))) v1Missing.push(`pids (${pids})`);
  if (!existsSync(join(cpuacct, 'cpuacct.usage'))) v1Missing.push(`cpuacct (${cpuacct})`);
  if (v1Missing.length === 0) {
    return { version: 1, memory, pids, cpuacct, swapAccounting: existsSync(join(memory, 'memory.memsw.limit_in_bytes')) };
  }
  problems.push(`cgroup v1 hierarchies missing: ${v1Missing.join(', ')}`);
  return { version: null, problems };
}
