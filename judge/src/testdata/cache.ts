/**
 * The per-host test-data cache, keyed by the sha256 of the zip (DESIGN.md section 7):
 *
 *   <dir>/<sha256>/          the unpacked root files of one zip (dirs 0755, files 0644: custom checkers
 *                            read it through a read-only bind as the slot uid; programs never see it)
 *   <dir>/.tmp-<sha256>-*    an unpack in progress, renamed into place atomically when complete
 *
 * A miss downloads (injected fetcher), verifies the hash, unpacks into a temporary directory and renames
 * it into place, so a reader never sees half a package, and two processes sharing the directory at worst
 * both unpack (the second rename loses and is discarded). Concurrent requests for the same hash in one
 * process share one download.
 *
 * Cleanup (LRU by directory mtime, refreshed on every use): after a new entry, entries beyond `keep`
 * that no judging of this process holds are removed, least recently used first. Leftover temporary
 * directories older than an hour (a crash mid-unpack) are removed at start.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { defaultUnzipLimits, TestdataError, unpackZip, type SkippedEntry, type UnzipLimits } from './unzip.ts';

export const HASH_PATTERN = /^[0-9a-f]{64}$/;

export type TestdataFetcher = (hash: string) => Promise<Uint8Array>;

export interface TestdataCacheOptions {
  readonly dir: string;
  readonly fetch: TestdataFetcher;
  readonly limits?: Partial<UnzipLimits>;
  /** Unpacked packages kept when not in use (default 32). */
  readonly keep?: number;
  /** Told about entries that were not extracted (nested or unsafe paths). */
  readonly onSkipped?: (hash: string, skipped: readonly SkippedEntry[]) => void;
}

export interface CachedTestdata {
  /** The unpacked package; valid until release(). */
  readonly dir: string;
  release(): void;
}

export interface TestdataCache {
  readonly dir: string;
  /** The unpacked package of `hash`, downloading it on a miss. Throws TestdataError. */
  acquire(hash: string): Promise<CachedTestdata>;
  /** Removes unused entries beyond `keep` (least recently used first). */
  cleanup(): void;
}

const staleTempMs = 60 * 60 * 1000;

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function createTestdataCache(options: TestdataCacheOptions): TestdataCache {
  const { dir } = options;
  const keep = options.keep ?? 32;
  const limits: UnzipLimits = { ...defaultUnzipLimits, ...options.limits };
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  removeStaleTemporaries(dir);

  const inFlight = new Map<string, Promise<string>>();
  const inUse = new Map<string, number>();

  const touch = (path: string) => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // Removed meanwhile by another process's cleanup: the next acquire downloads again.
    }
  };

  const fill = async (hash: string): Promise<string> => {
    const target = join(dir, hash);
    let zip: Uint8Array;
    try {
      zip = await options.fetch(hash);
    } catch (error) {
      if (error instanceof TestdataError) throw error;
      throw new TestdataError('download', `cannot download test data ${hash}: ${(error as Error).message}`, { cause: error });
    }
    const actual = sha256Hex(zip);
    if (actual !== hash) throw new TestdataError('hash', `test data ${hash}: the download has sha256 ${actual} (${zip.length} bytes)`);
    if (existsSync(target)) return target;
    const staging = join(dir, `.tmp-${hash}-${randomBytes(6).toString('hex')}`);
    mkdirSync(staging, { mode: 0o755 });
    try {
      chmodSync(staging, 0o755);
      const { skipped } = unpackZip(zip, staging, limits);
      if (skipped.length > 0) options.onSkipped?.(hash, skipped);
      try {
        renameSync(staging, target);
      } catch (error) {
        // Another process unpacked the same zip first: use theirs.
        if (!existsSync(target)) throw error;
        rmSync(staging, { recursive: true, force: true });
      }
      return target;
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
  };

  const cleanup = () => {
    let entries: Array<{ hash: string; mtimeMs: number }>;
    try {
      entries = readdirSync(dir)
        .filter((name) => HASH_PATTERN.test(name))
        .map((hash) => ({ hash, mtimeMs: statSync(join(dir, hash)).mtimeMs }));
    } catch {
      return;
    }
    entries.sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const entry of entries.slice(keep)) {
      if ((inUse.get(entry.hash) ?? 0) > 0 || inFlight.has(entry.hash)) continue;
      const trash = join(dir, `.tmp-trash-${entry.hash}-${randomBytes(6).toString('hex')}`);
      try {
        renameSync(join(dir, entry.hash), trash);
        rmSync(trash, { recursive: true, force: true });
      } catch {
        // Another process removed it first.
      }
    }
  };

  return {
    dir,
    async acquire(hash) {
      if (!HASH_PATTERN.test(hash)) throw new TestdataError('hash', `not a sha256 hash: ${JSON.stringify(hash)}`);
      // Held before any await, so a cleanup triggered by another acquire never removes it.
      inUse.set(hash, (inUse.get(hash) ?? 0) + 1);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const count = (inUse.get(hash) ?? 1) - 1;
        if (count <= 0) inUse.delete(hash);
        else inUse.set(hash, count);
      };
      try {
        const target = join(dir, hash);
        if (existsSync(target)) {
          touch(target);
          return { dir: target, release };
        }
        let pending = inFlight.get(hash);
        const started = pending === undefined;
        if (!pending) {
          pending = fill(hash).finally(() => inFlight.delete(hash));
          inFlight.set(hash, pending);
        }
        const filled = await pending;
        touch(filled);
        if (started) cleanup();
        return { dir: filled, release };
      } catch (error) {
        release();
        throw error;
      }
    },
    cleanup,
  };
}

function removeStaleTemporaries(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!name.startsWith('.tmp-')) continue;
    const path = join(dir, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > staleTempMs || name.startsWith('.tmp-trash-')) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already.
    }
  }
}
