/**
 * Where the server keeps its files (statements, test data, attachments, avatars): the S3 bucket of
 * OTOG_S3_BUCKET, shared by every node, or else the objects directory of OTOG_DATA_DIR.
 */
import { join } from 'node:path';
import { createLocalObjectStore } from '@otog/platform/storage/local-object-store';
import type { ObjectStore } from '@otog/platform/storage/object-store';
import { createS3ObjectStore, describeS3Error } from '@otog/platform/storage/s3-object-store';
import type { ApiConfig } from './config.ts';

/** The objects directory of a data directory (every stored file by sha256). */
export function objectsDirOf(dataDir: string): string {
  return join(dataDir, 'objects');
}

type StorageConfig = Pick<
  ApiConfig,
  | 'OTOG_DATA_DIR'
  | 'OTOG_S3_BUCKET'
  | 'OTOG_S3_ENDPOINT'
  | 'OTOG_S3_REGION'
  | 'OTOG_S3_ACCESS_KEY_ID'
  | 'OTOG_S3_SECRET_ACCESS_KEY'
  | 'OTOG_S3_PREFIX'
  | 'OTOG_S3_FORCE_PATH_STYLE'
>;

export interface ObjectStorage {
  readonly objects: ObjectStore;
  /** For the start's log line: where the files are, never a credential. */
  readonly where: Record<string, string>;
  /** Rejects with a message naming the variables unless the store answers (the bucket exists and may be used). */
  check(): Promise<void>;
  close(): void;
}

export function objectStorageFor(config: StorageConfig): ObjectStorage {
  const bucket = config.OTOG_S3_BUCKET;
  if (!bucket) {
    const dir = objectsDirOf(config.OTOG_DATA_DIR);
    return { objects: createLocalObjectStore(dir), where: { objects: dir }, check: async () => {}, close() {} };
  }
  const where = {
    bucket,
    region: config.OTOG_S3_REGION,
    ...(config.OTOG_S3_ENDPOINT ? { endpoint: config.OTOG_S3_ENDPOINT } : {}),
    ...(config.OTOG_S3_PREFIX ? { prefix: config.OTOG_S3_PREFIX } : {}),
  };
  const store = createS3ObjectStore({
    bucket,
    region: config.OTOG_S3_REGION,
    endpoint: config.OTOG_S3_ENDPOINT,
    prefix: config.OTOG_S3_PREFIX,
    accessKeyId: config.OTOG_S3_ACCESS_KEY_ID,
    secretAccessKey: config.OTOG_S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.OTOG_S3_FORCE_PATH_STYLE ?? config.OTOG_S3_ENDPOINT !== undefined,
    // A streamed upload (up to 64 MiB) waits here while it is hashed: on disk, not in a tmpfs /tmp.
    spoolDir: join(config.OTOG_DATA_DIR, 'spool'),
  });
  return {
    objects: store,
    where,
    async check() {
      try {
        await store.checkBucket();
      } catch (error) {
        const at = config.OTOG_S3_ENDPOINT ? ` at OTOG_S3_ENDPOINT ${config.OTOG_S3_ENDPOINT}` : ` in region ${config.OTOG_S3_REGION}`;
        throw new Error(`cannot use OTOG_S3_BUCKET "${bucket}"${at}: ${describeS3Error(error)}`, { cause: error });
      }
    },
    close: () => store.close(),
  };
}
