/**
 * One contract for every ObjectStore: the local directory and an S3 bucket (s3rver on loopback) must
 * answer alike, so the server can be pointed at either. Then what is particular to each.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalObjectStore } from '@otog/platform/storage/local-object-store';
import { InvalidObjectHashError, type ObjectStore } from '@otog/platform/storage/object-store';
import { createS3ObjectStore, type S3ObjectStore } from '@otog/platform/storage/s3-object-store';
import { startS3Server, type LocalS3 } from '../support/s3-server.ts';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const MISSING = '0'.repeat(64);
const BAD_HASHES = ['', 'abc', 'A'.repeat(64), `../../${'a'.repeat(58)}`, `${'a'.repeat(64)}/`, `${'a'.repeat(63)}g`, `${'a'.repeat(64)}\n`];
const MiB = 1024 * 1024;
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const dirs: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `otog-${name}-`));
  dirs.push(dir);
  return dir;
};
let s3: LocalS3;
const s3Stores: S3ObjectStore[] = [];
const s3Store = (options: { prefix?: string; spoolDir?: string } = {}) => {
  const store = createS3ObjectStore({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
    spoolDir: options.spoolDir ?? tempDir('spool'),
    ...(options.prefix ? { prefix: options.prefix } : {}),
  });
  s3Stores.push(store);
  return store;
};

beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  for (const store of s3Stores) store.close();
  await s3?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// Each kind makes a fresh, empty store (a new directory; a new key prefix in the one bucket).
let prefixes = 0;
const kinds: Array<[string, () => ObjectStore]> = [
  ['local directory', () => createLocalObjectStore(tempDir('objects'))],
  ['S3 bucket', () => s3Store({ prefix: `contract-${(prefixes += 1)}` })],
];

describe.each(kinds)('ObjectStore contract: %s', (kind, fresh) => {
  it('stores a buffer under its sha256 and reads it back whole, as a stream with its size, and by has', async () => {
    const store = fresh();
    const bytes = Buffer.from('hello, otog\n');
    const hash = await store.put(bytes);
    expect(hash).toBe(sha(bytes));
    expect(await store.has(hash)).toBe(true);
    expect(await store.get(hash)).toEqual(bytes);
    const opened = await store.open(hash);
    expect(opened!.size).toBe(bytes.length);
    expect(await readAll(opened!.stream)).toEqual(bytes);
    expect(await store.put(new Uint8Array())).toBe(sha(new Uint8Array()));
    expect(await store.get(sha(new Uint8Array()))).toEqual(Buffer.alloc(0));
  });

  it('stores a stream of buffers and strings; putting the same bytes again is a no-op with the same hash', async () => {
    const store = fresh();
    const big = Buffer.alloc(3 * MiB, 7);
    const fromStream = await store.put(Readable.from([big.subarray(0, 1_000_000), big.subarray(1_000_000)]));
    expect(fromStream).toBe(sha(big));
    expect(await store.put(big)).toBe(fromStream);
    expect(await store.put(Readable.from([big]))).toBe(fromStream);
    expect((await store.get(fromStream))!.equals(big)).toBe(true);
    expect(await store.put(Readable.from(['ab', Buffer.from('c')]))).toBe(sha(Buffer.from('abc')));
  });

  it('answers null and false for an object it does not have, and deletes idempotently', async () => {
    const store = fresh();
    expect(await store.has(MISSING)).toBe(false);
    expect(await store.get(MISSING)).toBeNull();
    expect(await store.open(MISSING)).toBeNull();
    const hash = await store.put(Buffer.from('to delete'));
    const kept = await store.put(Buffer.from('to keep'));
    await store.delete(hash);
    expect(await store.has(hash)).toBe(false);
    expect(await store.get(hash)).toBeNull();
    expect(await store.open(hash)).toBeNull();
    await store.delete(hash);
    await store.delete(MISSING);
    expect(await store.get(kept)).toEqual(Buffer.from('to keep'));
  });

  it('refuses a malformed hash in every method', async () => {
    const store = fresh();
    for (const bad of BAD_HASHES) {
      await expect(store.get(bad)).rejects.toBeInstanceOf(InvalidObjectHashError);
      await expect(store.has(bad)).rejects.toBeInstanceOf(InvalidObjectHashError);
      await expect(store.open(bad)).rejects.toBeInstanceOf(InvalidObjectHashError);
      await expect(store.delete(bad)).rejects.toBeInstanceOf(InvalidObjectHashError);
    }
  });

  it('stores nothing when the source fails midway', async () => {
    const store = fresh();
    async function* broken() {
      yield Buffer.from('partial');
      throw new Error('upload interrupted');
    }
    await expect(store.put(broken())).rejects.toThrow('upload interrupted');
    expect(await store.has(sha(Buffer.from('partial')))).toBe(false);
  });

  it('streams a 64 MiB put (the largest test data) without holding it in memory', { timeout: 120_000 }, async () => {
    const store = fresh();
    // One 1 MiB chunk sent 64 times (the store finishes each write before asking for the next): the
    // source itself allocates nothing, so a store that gathered the upload would show its 64 MiB in RSS.
    const chunk = Buffer.alloc(MiB);
    for (let index = 0; index < chunk.length; index += 4) chunk.writeUInt32LE(index * 2_654_435_761 >>> 0, index);
    const expected = createHash('sha256');
    for (let index = 0; index < 64; index += 1) expected.update(chunk);
    const hash = expected.digest('hex');
    async function* source() {
      for (let index = 0; index < 64; index += 1) yield chunk;
    }
    // What the put keeps alive, sampled after a full GC every 20 ms (RSS alone also counts chunks that are
    // garbage but not yet collected, which depends on when V8 gets round to it).
    const live = () => {
      collectGarbage();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.external;
    };
    const before = live();
    const rssBefore = process.memoryUsage().rss;
    let peak = before;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, live());
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 20);
    try {
      expect(await store.put(source())).toBe(hash);
    } finally {
      clearInterval(sampler);
    }
    const grewMiB = (peak - before) / MiB;
    console.log(`64 MiB put into the ${kind}: live memory grew ${grewMiB.toFixed(1)} MiB at most, RSS ${((rssPeak - rssBefore) / MiB).toFixed(1)} MiB`);
    expect(grewMiB).toBeLessThan(16);
    const opened = await store.open(hash);
    expect(opened!.size).toBe(64 * MiB);
    const read = createHash('sha256');
    for await (const part of opened!.stream) read.update(part as Buffer);
    expect(read.digest('hex')).toBe(hash);
  });
});

describe('local object store', () => {
  it('keeps objects in sharded directories and leaves nothing in its temp area', async () => {
    const dir = tempDir('objects');
    const store = createLocalObjectStore(dir);
    const hash = await store.put(Buffer.from('sharded'));
    expect(readdirSync(join(dir, hash.slice(0, 2), hash.slice(2, 4)))).toEqual([hash]);
    await store.put(Readable.from([Buffer.from('sharded')]));
    async function* broken() {
      yield Buffer.from('partial');
      throw new Error('upload interrupted');
    }
    await expect(store.put(broken())).rejects.toThrow('upload interrupted');
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
  });
});

describe('S3 object store', () => {
  it('keys objects under its prefix: another prefix in the same bucket does not see them', async () => {
    const a = s3Store({ prefix: 'tenant-a' });
    const b = s3Store({ prefix: 'tenant-b/' });
    const sameAsA = s3Store({ prefix: 'tenant-a/' });
    const hash = await a.put(Buffer.from('prefixed'));
    expect(await b.has(hash)).toBe(false);
    expect(await sameAsA.get(hash)).toEqual(Buffer.from('prefixed'));
  });

  it('removes its spool file after a streamed put, whether it succeeded or failed', async () => {
    const spoolDir = tempDir('spool');
    const store = s3Store({ prefix: 'spool', spoolDir });
    await store.put(Readable.from([Buffer.from('spooled')]));
    async function* broken() {
      yield Buffer.from('partial');
      throw new Error('upload interrupted');
    }
    await expect(store.put(broken())).rejects.toThrow('upload interrupted');
    expect(readdirSync(spoolDir)).toEqual([]);
  });

  it('checks its bucket: a missing bucket or an unreachable endpoint is refused', async () => {
    await expect(s3Store().checkBucket()).resolves.toBeUndefined();
    const missing = createS3ObjectStore({ ...s3Options(), bucket: 'no-such-bucket' });
    const unreachable = createS3ObjectStore({ ...s3Options(), endpoint: 'http://127.0.0.1:1' });
    s3Stores.push(missing, unreachable);
    await expect(missing.checkBucket()).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    await expect(unreachable.checkBucket()).rejects.toThrow(/ECONNREFUSED/);
  });
});

function s3Options() {
  return { endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true };
}
