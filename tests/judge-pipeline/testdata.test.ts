/**
 * The per-host test-data cache and its unzip: keyed by sha256, verified, unpacked safely (only root
 * files; `../`, absolute and nested paths never written; size limits before inflating), renamed into
 * place atomically, one download for concurrent requests, least-recently-used cleanup.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestdataCache, sha256Hex } from '@otog/judge/testdata/cache';
import { entryProblem, TestdataError, unpackZip } from '@otog/judge/testdata/unzip';
import { withForgedCrc, withForgedSize } from '../support/forged-zip.ts';
import { sandboxTmp } from './support.ts';

let tmp: string;
let counter = 0;
const fresh = (name: string) => {
  counter += 1;
  const dir = join(tmp, `${name}-${counter}`);
  mkdirSync(dir);
  return dir;
};

beforeAll(() => {
  tmp = sandboxTmp('testdata');
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

const zipOf = (files: Record<string, string>) => zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));

describe('unpackZip', () => {
  it('writes the root files only (0644) and lists what it skipped', () => {
    const dir = fresh('unzip');
    const zip = zipOf({
      '1.in': '1 2\n',
      '1.sol': '3\n',
      'subtask.json': '{}',
      '../escape.txt': 'x',
      '/etc/absolute.txt': 'x',
      'nested/2.in': 'x',
      'a\\b.txt': 'x',
      '__MACOSX/._1.in': 'x',
    });
    const { files, skipped } = unpackZip(zip, dir);
    expect(files).toEqual(['1.in', '1.sol', 'subtask.json']);
    expect(readdirSync(dir).sort()).toEqual(['1.in', '1.sol', 'subtask.json']);
    expect(readFileSync(join(dir, '1.in'), 'utf8')).toBe('1 2\n');
    expect(statSync(join(dir, '1.in')).mode & 0o777).toBe(0o644);
    expect(skipped.map((entry) => entry.name).sort()).toEqual(['../escape.txt', '/etc/absolute.txt', 'a\\b.txt', 'nested/2.in']);
    expect(existsSync(join(tmp, 'escape.txt'))).toBe(false);
    expect(existsSync('/etc/absolute.txt')).toBe(false);
  });

  it('names entries it refuses, and why', () => {
    expect(entryProblem('1.in')).toBeUndefined();
    expect(entryProblem('../1.in')).toMatch(/\.\./);
    expect(entryProblem('a/../../1.in')).toMatch(/\.\./);
    expect(entryProblem('/1.in')).toMatch(/absolute/);
    expect(entryProblem('C:/1.in')).toMatch(/absolute/);
    expect(entryProblem('tests/1.in')).toMatch(/folder/);
    expect(entryProblem('tests/')).toMatch(/directory/);
    expect(entryProblem('a\u0000b')).toMatch(/control/);
  });

  it('refuses a corrupt zip (corrupt, permanent)', () => {
    const error = (() => {
      try {
        unpackZip(strToU8('PK\u0003\u0004 garbage'), fresh('corrupt'));
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(TestdataError);
    expect((error as TestdataError).kind).toBe('corrupt');
    expect((error as TestdataError).permanent).toBe(true);
  });

  it('refuses an entry whose bytes differ from its recorded size or CRC-32 (corrupt, permanent)', () => {
    const zip = zipOf({ '1.in': '1 2\n'.repeat(200), '1.sol': '3\n' });
    expect(unpackZip(zip, fresh('honest')).files).toEqual(['1.in', '1.sol']);
    for (const [name, forged] of [
      ['crc', withForgedCrc(zip)],
      ['smaller', withForgedSize(zip, 10)],
      ['larger', withForgedSize(zip, 5_000)],
    ] as const) {
      const dir = fresh(name);
      try {
        unpackZip(forged, dir);
        expect.unreachable(`${name}: unpacked`);
      } catch (error) {
        expect(error, name).toBeInstanceOf(TestdataError);
        expect((error as TestdataError).permanent).toBe(true);
      }
      // Nothing of the lying entry was written.
      expect(readdirSync(dir).includes('1.in'), name).toBe(false);
    }
  });

  it('checks the declared sizes before inflating anything (a zip bomb never unpacks)', () => {
    const bomb = zipSync({ '1.in': new Uint8Array(8 * 1024 * 1024) }, { level: 9 });
    expect(bomb.length).toBeLessThan(64 * 1024);
    const dir = fresh('bomb');
    expect(() => unpackZip(bomb, dir, { maxEntries: 10, maxFileBytes: 1024 * 1024, maxTotalBytes: 1024 * 1024 * 1024 })).toThrow(/limit is 1048576/);
    expect(() => unpackZip(zipOf({ '1.in': 'aaaa', '2.in': 'bbbb' }), dir, { maxEntries: 10, maxFileBytes: 100, maxTotalBytes: 6 })).toThrow(/more than 6 bytes/);
    expect(() => unpackZip(zipOf({ '1.in': 'a', '2.in': 'b', '3.in': 'c' }), dir, { maxEntries: 2, maxFileBytes: 100, maxTotalBytes: 100 })).toThrow(/more than 2 entries/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('the test-data cache', () => {
  const zip = zipOf({ '1.in': '1 2\n', '1.sol': '3\n' });
  const hash = sha256Hex(zip);

  it('downloads once, verifies, unpacks atomically, and hits afterwards', async () => {
    const dir = fresh('cache');
    let downloads = 0;
    const cache = createTestdataCache({
      dir,
      fetch: async () => {
        downloads += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return zip;
      },
    });
    // Concurrent requests for one hash share one download.
    const [a, b, c] = await Promise.all([cache.acquire(hash), cache.acquire(hash), cache.acquire(hash)]);
    expect(downloads).toBe(1);
    expect(a.dir).toBe(join(dir, hash));
    expect(b.dir).toBe(a.dir);
    expect(c.dir).toBe(a.dir);
    expect(readdirSync(a.dir).sort()).toEqual(['1.in', '1.sol']);
    expect(readdirSync(dir)).toEqual([hash]);
    // Readable by the sandbox uids (custom checkers bind it read-only).
    expect(statSync(dir).mode & 0o777).toBe(0o755);
    expect(statSync(a.dir).mode & 0o777).toBe(0o755);
    for (const handle of [a, b, c]) handle.release();
    await cache.acquire(hash);
    expect(downloads).toBe(1);
    // A second process sharing the directory finds it too.
    const other = createTestdataCache({ dir, fetch: async () => Promise.reject(new Error('must not download')) });
    expect((await other.acquire(hash)).dir).toBe(join(dir, hash));
  });

  it('a download whose sha256 differs is refused and nothing is cached (hash, transient)', async () => {
    const dir = fresh('cache');
    const cache = createTestdataCache({ dir, fetch: async () => zipOf({ '1.in': 'tampered\n' }) });
    await expect(cache.acquire(hash)).rejects.toMatchObject({ kind: 'hash', permanent: false });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a failing download is a transient error; a later acquire retries', async () => {
    const dir = fresh('cache');
    let fail = true;
    const cache = createTestdataCache({
      dir,
      fetch: async () => {
        if (fail) throw new Error('connection reset');
        return zip;
      },
    });
    await expect(cache.acquire(hash)).rejects.toMatchObject({ kind: 'download', message: expect.stringContaining('connection reset') });
    fail = false;
    expect((await cache.acquire(hash)).dir).toBe(join(dir, hash));
  });

  it('a corrupt zip with the right hash is permanent and leaves no temporary directory', async () => {
    const dir = fresh('cache');
    const corrupt = strToU8('not a zip at all');
    const cache = createTestdataCache({ dir, fetch: async () => corrupt });
    await expect(cache.acquire(sha256Hex(corrupt))).rejects.toMatchObject({ kind: 'corrupt', permanent: true });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a key that is not a sha256', async () => {
    const cache = createTestdataCache({ dir: fresh('cache'), fetch: async () => zip });
    await expect(cache.acquire('../../etc')).rejects.toMatchObject({ kind: 'hash' });
  });

  it('keeps the most recently used packages, never one in use', async () => {
    const dir = fresh('cache');
    const zips = new Map<string, Uint8Array>();
    for (let i = 0; i < 4; i += 1) {
      const data = zipOf({ '1.in': `${i}\n`, '1.sol': `${i}\n` });
      zips.set(sha256Hex(data), data);
    }
    const hashes = [...zips.keys()];
    const cache = createTestdataCache({ dir, keep: 2, fetch: async (key) => zips.get(key)! });
    const held = await cache.acquire(hashes[0]!);
    const past = Date.now() / 1000 - 3600;
    utimesSync(held.dir, past, past);
    for (const [index, key] of [hashes[1]!, hashes[2]!].entries()) {
      const handle = await cache.acquire(key);
      handle.release();
      utimesSync(handle.dir, past + 10 * (index + 1), past + 10 * (index + 1));
    }
    (await cache.acquire(hashes[3]!)).release();
    // hashes[0] is the oldest but in use; hashes[1] is the least recently used of the others.
    const left = readdirSync(dir).sort();
    expect(left).toContain(hashes[0]);
    expect(left).not.toContain(hashes[1]);
    expect(left).toContain(hashes[3]);
    held.release();
  });
});
