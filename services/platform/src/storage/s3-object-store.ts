import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { assertObjectHash, type ObjectSource, type ObjectStore, type StoredObject } from './object-store.ts';

export interface S3ObjectStoreOptions {
  /** An S3-compatible service's URL (MinIO, another cloud); unset: AWS S3 of the region. */
  readonly endpoint?: string | undefined;
  readonly region: string;
  readonly bucket: string;
  /** Prepended to every key (several deployments can share a bucket); a `/` is added when missing. */
  readonly prefix?: string | undefined;
  /** Both or neither: without them the SDK's default chain (AWS_* variables, instance role) applies. */
  readonly accessKeyId?: string | undefined;
  readonly secretAccessKey?: string | undefined;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>` (MinIO and most self-hosted stores). */
  readonly forcePathStyle?: boolean | undefined;
  /** Where a streamed put is spooled while it is hashed; the OS temp directory by default. */
  readonly spoolDir?: string | undefined;
}

export interface S3ObjectStore extends ObjectStore {
  /** Resolves when the bucket answers HeadBucket (reachable, exists, the credentials may use it). */
  checkBucket(): Promise<void>;
  /** Closes the client's sockets. */
  close(): void;
}

/** The SDK names a HEAD's 404 NotFound (no body to carry a code) and a GET's NoSuchKey. */
const isMissing = (error: unknown) => {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'NoSuchKey' || name === 'NotFound';
};

/** Why an S3 call failed, in a sentence: HEAD errors have no body, so the status is often all there is. */
export function describeS3Error(error: unknown): string {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  const name = (error as { name?: unknown } | null)?.name;
  const message = error instanceof Error ? error.message : String(error);
  const text = message && message !== 'UnknownError' ? message : String(name ?? 'unknown error');
  return status ? `${text} (HTTP ${status})` : text;
}

/**
 * An ObjectStore in an S3 bucket: the key is `<prefix><hash>`, so every node that names the same bucket
 * shares every object. A streamed put is spooled to a temp file while it is hashed and then uploaded once
 * under its final key: nothing large is held in memory, a put of content already stored uploads nothing,
 * and no half-written or temporary key is ever visible in the bucket (a multipart upload to a temporary
 * key then CopyObject would write every object twice and leave orphans when a node dies in between).
 */
export function createS3ObjectStore(options: S3ObjectStoreOptions): S3ObjectStore {
  const client = new S3Client({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    ...(options.accessKeyId && options.secretAccessKey
      ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
      : {}),
    // Checksums only where S3 requires them: the default (CRC32 in aws-chunked trailers, checksum-mode on
    // GETs) is refused or mis-stored by many S3-compatible stores. Our keys are the content's sha256 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A black-holed endpoint fails the start instead of hanging it.
    requestHandler: { connectionTimeout: 10_000 },
  });
  const bucket = options.bucket;
  const prefix = options.prefix ? options.prefix.replace(/\/*$/, '/') : '';
  const spoolRoot = options.spoolDir ?? tmpdir();
  const keyOf = (hash: string) => `${prefix}${hash}`;

  const has = async (hash: string): Promise<boolean> => {
    assertObjectHash(hash);
    try {
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(hash) }));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  };

  const fetchObject = async (hash: string) => {
    assertObjectHash(hash);
    try {
      return await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(hash) }));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };

  const upload = async (hash: string, body: Uint8Array | Readable, size: number) => {
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: keyOf(hash), Body: body, ContentLength: size, ContentType: 'application/octet-stream' }),
    );
  };

  /** Writes the stream to a private temp file, hashing as it goes; the caller removes `dir`. */
  const spool = async (source: AsyncIterable<Uint8Array | string>, dir: string) => {
    const path = join(dir, 'object');
    const digest = createHash('sha256');
    let size = 0;
    const handle: FileHandle = await open(path, 'wx', 0o600);
    try {
      for await (const chunk of source) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        digest.update(bytes);
        size += bytes.length;
        await handle.write(bytes);
      }
    } finally {
      await handle.close();
    }
    return { path, size, hash: digest.digest('hex') };
  };

  return {
    async put(source: ObjectSource): Promise<string> {
      if (source instanceof Uint8Array) {
        const hash = createHash('sha256').update(source).digest('hex');
        if (!(await has(hash))) await upload(hash, source, source.length);
        return hash;
      }
      if (options.spoolDir) await mkdir(spoolRoot, { recursive: true, mode: 0o700 });
      const dir = await mkdtemp(join(spoolRoot, 'otog-s3-put-'));
      try {
        const spooled = await spool(source, dir);
        if (!(await has(spooled.hash))) await upload(spooled.hash, createReadStream(spooled.path), spooled.size);
        return spooled.hash;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    async get(hash: string): Promise<Buffer | null> {
      const object = await fetchObject(hash);
      if (!object) return null;
      const bytes = await object.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },

    async open(hash: string): Promise<StoredObject | null> {
      const object = await fetchObject(hash);
      if (!object) return null;
      // In Node the body is the response's IncomingMessage: a Readable, streamed as it arrives.
      const body = object.Body as unknown;
      if (!(body instanceof Readable) || object.ContentLength === undefined) {
        (body as { destroy?: () => void } | undefined)?.destroy?.();
        throw new Error(`S3 answered GetObject ${keyOf(hash)} without a streamed body and a length`);
      }
      return { size: object.ContentLength, stream: body };
    },

    has,

    async delete(hash: string): Promise<void> {
      assertObjectHash(hash);
      // S3 answers 204 whether or not the key existed.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(hash) }));
    },

    async checkBucket(): Promise<void> {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    },

    close() {
      client.destroy();
    },
  };
}
