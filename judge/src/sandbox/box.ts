import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  copyFileSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sandboxPrograms } from './requirements.ts';
import type { AddFileOptions } from './types.ts';

const run = promisify(execFile);

export interface BoxTmpfs {
  readonly bytes: number;
  readonly inodes: number;
}

export interface SlotDirs {
  readonly slotDir: string;
  /** The tmpfs (or plain directory) holding the box: root-owned, 0711, never writable by the program. */
  readonly boxFs: string;
  /** Mounted at /box in the sandbox: `<boxFs>/box`, owned by the slot's uid, 0700, recreated by resetBox. */
  readonly boxDir: string;
  /** Judge-only (root, 0700): default stdout/stderr files and compiled programs. */
  readonly ioDir: string;
  readonly uid: number;
}

/** Mount points of this mount namespace (octal escapes of /proc/self/mountinfo decoded). */
function mountPoints(): Set<string> {
  const text = readFileSync('/proc/self/mountinfo', 'utf8');
  return new Set(
    text
      .split('\n')
      .map((line) => line.split(' ')[4])
      .filter((path): path is string => Boolean(path))
      .map((path) => path.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8)))),
  );
}

/**
 * Creates `<root>/slot-<index>/{boxfs/box,io}`. `root`, the slot directory and boxfs are root-owned 0711 so
 * that the slot's uid can reach its box (bwrap binds it as that uid) but cannot list or change anything
 * else. With `tmpfs`, boxfs is a size- and inode-limited tmpfs (a program cannot fill the disk through
 * its box; what it writes there is memory charged to its own cgroup); a mount left by a crashed judge is
 * replaced.
 */
export async function prepareSlotDirs(root: string, index: number, uid: number, tmpfs: BoxTmpfs | null): Promise<SlotDirs> {
  mkdirSync(root, { recursive: true, mode: 0o711 });
  chmodSync(root, 0o711);
  const slotDir = join(root, `slot-${index}`);
  const boxFs = join(slotDir, 'boxfs');
  const ioDir = join(slotDir, 'io');
  mkdirSync(slotDir, { recursive: true, mode: 0o711 });
  chmodSync(slotDir, 0o711);
  mkdirSync(ioDir, { recursive: true, mode: 0o700 });
  chmodSync(ioDir, 0o700);
  mkdirSync(boxFs, { recursive: true, mode: 0o711 });
  if (tmpfs) {
    if (mountPoints().has(boxFs)) await unmountBox(boxFs);
    const options = `size=${tmpfs.bytes},nr_inodes=${tmpfs.inodes},mode=0711,uid=0,gid=0,nosuid,nodev`;
    await run(sandboxPrograms.mount, ['-t', 'tmpfs', '-o', options, 'otog-box', boxFs]);
  }
  chmodSync(boxFs, 0o711);
  const dirs = { slotDir, boxFs, boxDir: join(boxFs, 'box'), ioDir, uid };
  resetBox(dirs);
  return dirs;
}

export async function unmountBox(path: string): Promise<void> {
  try {
    await run(sandboxPrograms.umount, [path]);
  } catch {
    await run(sandboxPrograms.umount, ['--lazy', path]);
  }
}

/**
 * A fresh box: the old directory is removed whole (rm never follows the program's symlinks, and nothing
 * of the slot's uid runs now) and a new one is made, so that nothing the program did to the directory
 * itself — its mode, ACLs, extended attributes — carries over to the next run.
 */
export function resetBox(dirs: Pick<SlotDirs, 'boxDir' | 'uid'>): void {
  rmSync(dirs.boxDir, { recursive: true, force: true });
  mkdirSync(dirs.boxDir, { mode: 0o700 });
  if (dirs.uid !== process.getuid?.()) chownSync(dirs.boxDir, dirs.uid, dirs.uid);
  chmodSync(dirs.boxDir, 0o700);
}

export function assertBoxName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new Error(`not a plain file name: ${JSON.stringify(name)}`);
  }
}

/**
 * Creates a file in the box with O_EXCL (a symlink left by a program can never redirect the judge's write)
 * and copies the content in. Owned by the judge (read-only for the program) unless `writable`.
 */
export function addBoxFile(
  boxDir: string,
  uid: number,
  name: string,
  from: { readonly path: string } | { readonly content: string | Uint8Array },
  options: AddFileOptions = {},
): void {
  assertBoxName(name);
  const mode = options.executable ? 0o755 : 0o644;
  const path = join(boxDir, name);
  if ('path' in from) {
    // COPYFILE_EXCL opens the destination with O_CREAT|O_EXCL: it fails on anything already there,
    // a dangling symlink included.
    copyFileSync(from.path, path, constants.COPYFILE_EXCL);
  } else {
    const content = typeof from.content === 'string' ? Buffer.from(from.content) : from.content;
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    try {
      let offset = 0;
      while (offset < content.length) offset += writeSync(fd, content, offset, content.length - offset);
    } finally {
      closeSync(fd);
    }
  }
  // Safe by path: the file was just created by the judge with O_EXCL and nothing of the slot runs now.
  if (options.writable && uid !== process.getuid?.()) chownSync(path, uid, uid);
  chmodSync(path, mode);
}

/**
 * Reads a regular file from the box without following symlinks or blocking on FIFOs; null when it is
 * missing, not a regular file, or bigger than `maxBytes`.
 */
export function readBoxFile(boxDir: string, name: string, maxBytes: number): { data: Buffer; mode: number } | null {
  assertBoxName(name);
  let fd: number;
  try {
    fd = openSync(join(boxDir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return null;
    const data = Buffer.alloc(stat.size);
    let offset = 0;
    while (offset < data.length) {
      const count = readSync(fd, data, offset, data.length - offset, offset);
      if (count === 0) break;
      offset += count;
    }
    return { data: data.subarray(0, offset), mode: stat.mode };
  } finally {
    closeSync(fd);
  }
}
