import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { deterministicEventId, OTOG_NAMESPACE, uuidv5 } from '@otog/platform/eventstore/deterministic-id';
import { createLocalObjectStore } from '@otog/platform/storage/local-object-store';
import { InvalidObjectHashError } from '@otog/platform/storage/object-store';

describe('uuid v5', () => {
  it('matches known vectors (RFC 4122 namespaces)', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
    expect(uuidv5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    // Non-ASCII names are hashed as UTF-8.
    expect(uuidv5('https://example.com/ทดสอบ', '6ba7b811-9dad-11d1-80b4-00c04fd430c8')).toBe('a4075470-1f62-5381-a289-0d1ce805102d');
  });

  it("derives OTOG's event ids from natural keys, stably forever", () => {
    expect(OTOG_NAMESPACE).toBe('f63c657e-92dd-48b1-9051-816a5e9df6d8');
    expect(deterministicEventId('42:1:3')).toBe('c20b00f6-d268-57f0-93c9-2b0de1904b5c');
    expect(deterministicEventId('42:1:judged')).toBe('f43903d6-e3ea-59e3-b3a7-c69157312128');
    expect(deterministicEventId('42:1:3')).not.toBe(deterministicEventId('42:1:4'));
    expect(deterministicEventId('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidv5('x', 'not-a-uuid')).toThrow(/not a UUID/);
  });
});

describe('local object store', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'otog-objects-'));
    dirs.push(dir);
    return { dir, store: createLocalObjectStore(dir) };
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

  it('stores by sha256 in sharded directories and reads back as buffer or stream', async () => {
    const { dir, store } = fresh();
    const bytes = Buffer.from('hello, otog\n');
    const hash = await store.put(bytes);
    expect(hash).toBe(sha(bytes));
    expect(readdirSync(join(dir, hash.slice(0, 2), hash.slice(2, 4)))).toEqual([hash]);
    expect(await store.has(hash)).toBe(true);
    expect(await store.get(hash)).toEqual(bytes);
    const opened = await store.open(hash);
    expect(opened!.size).toBe(bytes.length);
    const chunks: Buffer[] = [];
    for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).toEqual(bytes);
    // Nothing is left in the temp area.
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
  });

  it('is idempotent, accepts streams, and answers null for unknown objects', async () => {
    const { dir, store } = fresh();
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const fromStream = await store.put(Readable.from([big.subarray(0, 1_000_000), big.subarray(1_000_000)]));
    expect(fromStream).toBe(sha(big));
    expect(await store.put(big)).toBe(fromStream);
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
    expect((await store.get(fromStream))!.equals(big)).toBe(true);
    const missing = '0'.repeat(64);
    expect(await store.has(missing)).toBe(false);
    expect(await store.get(missing)).toBeNull();
    expect(await store.open(missing)).toBeNull();
    expect(await store.put(new Uint8Array())).toBe(sha(new Uint8Array()));
  });

  it('refuses malformed hashes (no path tricks)', async () => {
    const { store } = fresh();
    for (const bad of ['', 'abc', 'A'.repeat(64), `../../${'a'.repeat(58)}`, `${'a'.repeat(64)}/`, `${'a'.repeat(63)}g`, `${'a'.repeat(64)}\n`]) {
      await expect(store.get(bad)).rejects.toBeInstanceOf(InvalidObjectHashError);
      await expect(store.has(bad)).rejects.toBeInstanceOf(InvalidObjectHashError);
      await expect(store.open(bad)).rejects.toBeInstanceOf(InvalidObjectHashError);
    }
  });

  it('leaves no temp file when the source fails midway', async () => {
    const { dir, store } = fresh();
    async function* broken() {
      yield Buffer.from('partial');
      throw new Error('upload interrupted');
    }
    await expect(store.put(broken())).rejects.toThrow('upload interrupted');
    expect(readdirSync(join(dir, 'tmp'))).toEqual([]);
    expect(readdirSync(dir)).toEqual(['tmp']);
  });
});
