export { createTestdataCache, HASH_PATTERN, sha256Hex, type CachedTestdata, type TestdataCache, type TestdataCacheOptions, type TestdataFetcher } from './cache.ts';
export { defaultUnzipLimits, entryProblem, TestdataError, unpackZip, type SkippedEntry, type TestdataErrorKind, type UnzipLimits } from './unzip.ts';
