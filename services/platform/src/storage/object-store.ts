import type { Readable } from 'node:stream';

/** sha256 in lower-case hex: the only names objects have. */
export const OBJECT_HASH = /^[0-9a-f]{64}$/;

export function isObjectHash(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_HASH.test(value);
}

export class InvalidObjectHashError extends Error {
  constructor(hash: unknown) {
    super(`not an object hash (64 lower-case hex digits): "${String(hash).slice(0, 80)}"`);
    this.name = 'InvalidObjectHashError';
  }
}

export function assertObjectHash(hash: unknown): asserts hash is string {
  if (!isObjectHash(hash)) throw new InvalidObjectHashError(hash);
}

/** Bytes to store: a buffer, or a stream of chunks (hashed while it is written, never held whole). */
export type ObjectSource = Uint8Array | AsyncIterable<Uint8Array | string>;

export interface StoredObject {
  readonly size: number;
  readonly stream: Readable;
}

/**
 * Content-addressed blob storage (test-data zips): an object's name is the sha256 of its bytes, so a
 * name never changes meaning, writes are idempotent and readers (judge hosts) cache by name forever.
 * Every method refuses a malformed hash with InvalidObjectHashError.
 */
export interface ObjectStore {
  /** Stores the bytes (once: storing them again is a no-op) and returns their sha256 hex. */
  put(source: ObjectSource): Promise<string>;
  /** The whole object, or null when there is none by that hash. */
  get(hash: string): Promise<Buffer | null>;
  /** A stream of the object and its size, or null when there is none by that hash. */
  open(hash: string): Promise<StoredObject | null>;
  has(hash: string): Promise<boolean>;
  /** Removes the object (nothing when there is none). Objects are shared by content: the caller checks nothing else uses it. */
  delete(hash: string): Promise<void>;
}
