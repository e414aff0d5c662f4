import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { assertObjectHash, type ObjectSource, type ObjectStore, type StoredObject } from './object-store.ts';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * An ObjectStore in a local directory: `<root>/ab/cd/<hash>` (two shard levels keep directories small),
 * written to `<root>/tmp/` first, flushed, then renamed into place, so a reader never sees a partial
 * object and a crash leaves at most a stray temp file.
 */
export function createLocalObjectStore(root: string): ObjectStore {
  const tmpDir = join(root, 'tmp');
  const pathOf = (hash: string) => join(root, hash.slice(0, 2), hash.slice(2, 4), hash);

  const exists = async (path: string) => {
    try {
      return (await stat(path)).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  };

  return {
    async put(source: ObjectSource): Promise<string> {
      await mkdir(tmpDir, { recursive: true, mode: 0o700 });
      const temp = join(tmpDir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
      const digest = createHash('sha256');
      // Private to this user (statements, test data, avatars): the API serves them, no one else reads them.
      let handle: FileHandle | undefined = await open(temp, 'wx', 0o600);
      try {
        const write = async (chunk: Uint8Array | string) => {
          const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          digest.update(bytes);
          await handle!.write(bytes);
        };
        if (source instanceof Uint8Array) await write(source);
        else for await (const chunk of source) await write(chunk);
        await handle.sync();
        await handle.close();
        handle = undefined;
        const hash = digest.digest('hex');
        const target = pathOf(hash);
        if (await exists(target)) {
          await rm(temp, { force: true });
          return hash;
        }
        await mkdir(join(root, hash.slice(0, 2), hash.slice(2, 4)), { recursive: true, mode: 0o700 });
        await rename(temp, target);
        return hash;
      } catch (error) {
        await handle?.close().catch(() => undefined);
        await rm(temp, { force: true });
        throw error;
      }
    },

    async delete(hash: string): Promise<void> {
      assertObjectHash(hash);
      await rm(pathOf(hash), { force: true });
    },

    async get(hash: string): Promise<Buffer | null> {
      assertObjectHash(hash);
      try {
        return await readFile(pathOf(hash));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async open(hash: string): Promise<StoredObject | null> {
      assertObjectHash(hash);
      let handle: FileHandle;
      try {
        handle = await open(pathOf(hash), 'r');
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      try {
        const { size } = await handle.stat();
        // The stream owns the handle from here and closes it when done or destroyed.
        return { size, stream: handle.createReadStream({ autoClose: true }) };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    async has(hash: string): Promise<boolean> {
      assertObjectHash(hash);
      return exists(pathOf(hash));
    },
  };
}
