import type { CgroupBackend } from './common.ts';
import type { CgroupDetection } from './detect.ts';
import { createV1Backend } from './v1.ts';
import { createV2Backend } from './v2.ts';

export { detectCgroups, type CgroupDetection } from './detect.ts';
export { createV1Backend } from './v1.ts';
export { createV2Backend } from './v2.ts';
export { drain, isLive, killPids, type CgroupBackend, type CgroupLimits, type CgroupStats, type RunCgroup } from './common.ts';

/** The backend for what detectCgroups found; the parent is a cgroup path relative to each hierarchy. */
export function backendFor(detection: CgroupDetection, parent: string): CgroupBackend {
  if (detection.version === 2) return createV2Backend({ root: detection.root, parent });
  if (detection.version === 1) return createV1Backend(detection, parent);
  throw new Error(`no usable cgroups: ${detection.problems.join('; ')}`);
}
