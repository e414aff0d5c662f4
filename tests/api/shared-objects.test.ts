/**
 * Two API nodes of one deployment: the same database and S3 bucket, each its own OTOG_DATA_DIR. A file
 * uploaded through one (statement, test data, attachment) is served by the other: the signed link, the
 * statement route and the judges' test data by hash.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '@otog/api/app';
import { apiSettingsFrom } from '@otog/api/api-settings';
import { readApiConfig } from '@otog/api/config';
import { createJudgeQueue, type JudgeQueue } from '@otog/api/judging/judge-queue';
import { addWorker } from '@otog/api/judging/worker-tokens';
import { objectStorageFor, type ObjectStorage } from '@otog/api/object-storage';
import { sql } from '@otog/platform/db/pool';
import { readModel } from '@otog/platform/runner/read-model';
import { problemsProjection } from '@otog/projections';
import { pathOf } from '@otog/schemas/api/contract';
import { problemContract as routes, type Problem } from '@otog/schemas/api/problem';
import { startS3Server, type LocalS3 } from '../support/s3-server.ts';
import { startStack, type Stack, type TestUser } from './support/stack.ts';

const PDF = '%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n';
const JWT_SECRET = 'shared-secret-of-every-node-0123456789';

let s3: LocalS3;
let dataDirA: string;
let dataDirB: string;
const storages: ObjectStorage[] = [];
let stack: Stack;
let nodeB: App;
let queueB: JudgeQueue;
let admin: TestUser;

/** A node's environment: the deployment's S3 settings and secret, the node's own data directory. */
function configOf(dataDir: string, overrides: Record<string, string> = {}) {
  return readApiConfig({
    OTOG_DATA_DIR: dataDir,
    JWT_SECRET,
    OTOG_S3_BUCKET: s3.bucket,
    OTOG_S3_ENDPOINT: s3.endpoint,
    OTOG_S3_ACCESS_KEY_ID: s3.accessKeyId,
    OTOG_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    OTOG_S3_PREFIX: 'objects',
    ...overrides,
  });
}

function storageOf(config: ReturnType<typeof readApiConfig>): ObjectStorage {
  const storage = objectStorageFor(config);
  storages.push(storage);
  return storage;
}

beforeAll(async () => {
  s3 = await startS3Server();
  dataDirA = mkdtempSync(join(tmpdir(), 'otog-node-a-'));
  dataDirB = mkdtempSync(join(tmpdir(), 'otog-node-b-'));
  const configA = configOf(dataDirA);
  const configB = configOf(dataDirB);
  const storageA = storageOf(configA);
  const storageB = storageOf(configB);
  await storageA.check();
  await storageB.check();
  stack = await startStack({ objects: storageA.objects, settings: { jwtSecret: apiSettingsFrom(configA).jwtSecret } });
  // Node B: its own app and judge queue over the same database, its files through its own S3 client.
  const { runtime } = stack;
  queueB = createJudgeQueue({ pool: runtime.pool, store: runtime.store, listener: runtime.listener });
  const api = { ...stack.deps, objects: storageB.objects, settings: apiSettingsFrom(configB) };
  nodeB = buildApp({ judging: { pool: runtime.pool, queue: queueB, objects: storageB.objects }, api });
  await nodeB.ready();
  admin = await stack.createUser({ role: 'admin' });
}, 120_000);

afterAll(async () => {
  await nodeB?.close();
  queueB?.close();
  await stack?.stop();
  for (const storage of storages) storage.close();
  await s3?.stop();
  for (const dir of [dataDirA, dataDirB]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const Hashes = z.object({ testdata_hash: z.string().nullable(), statement_hash: z.string().nullable() });
const liveProblems = readModel({ p: problemsProjection });
async function hashesOf(problemId: number) {
  const { p } = await liveProblems(stack.deps.pool);
  return stack.deps.pool.one(sql.type(Hashes)`SELECT testdata_hash, statement_hash FROM ${p.problems} WHERE id = ${problemId}`);
}

const local = (path: string) => new URL(path).pathname + new URL(path).search;

describe('files shared by API nodes through S3', () => {
  it('serves through node B what was uploaded through node A: statement, test data by hash, attachment by signed link', async () => {
    const zip = zipSync({ '1.in': new TextEncoder().encode('1 2\n'), '1.sol': new TextEncoder().encode('3\n') });
    const created: Problem = await stack.expectCall(routes.createProblem, 201, {
      as: admin,
      form: {
        fields: { name: 'Shared', sname: 'shared', score: '100', timeLimit: '1', memoryLimit: '256' },
        files: {
          zip: { filename: 'tests.zip', content: zip, contentType: 'application/zip' },
          pdf: { filename: 'statement.pdf', content: PDF, contentType: 'application/pdf' },
        },
      },
    });
    await stack.expectCall(routes.showProblem, 200, { as: admin, params: { problemId: created.id }, body: { show: true } });
    const hashes = await hashesOf(created.id);

    // The statement, read through node B.
    const statement = await nodeB.inject({ method: 'GET', url: `/api${pathOf(routes.getProblemDoc, { problemId: created.id })}` });
    expect(statement.statusCode, statement.body).toBe(200);
    expect(statement.rawPayload.toString('latin1')).toBe(PDF);

    // A judge host asking node B for the test data by its hash.
    const token = await addWorker(stack.runtime.pool, `shared-objects-${process.pid}`, { rotate: true });
    const testdata = await nodeB.inject({
      method: 'GET',
      url: `/api/internal/judge/testdata/${hashes.testdata_hash}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(testdata.statusCode, testdata.body).toBe(200);
    expect(createHash('sha256').update(testdata.rawPayload).digest('hex')).toBe(hashes.testdata_hash);
    expect(Number(testdata.headers['content-length'])).toBe(testdata.rawPayload.length);

    // An attachment sent to node A's signed upload link, fetched with a link node A signed, through node B.
    const bytes = Buffer.from('PK-shared-attachment');
    const metadata = { size: bytes.length, name: 'shared.zip', lastModified: 1_700_000_000_000, type: 'application/zip' };
    const { url: uploadUrl } = await stack.expectCall(routes.uploadAttachment, 200, { as: admin, params: { problemId: created.id }, body: { metadata } });
    const uploaded = await stack.app.inject({ method: 'PUT', url: local(uploadUrl), payload: bytes, headers: { 'content-type': 'application/zip' } });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const { url: downloadUrl } = await stack.expectCall(routes.downloadAttachment, 200, { as: admin, params: { problemId: created.id }, body: {} });
    const downloaded = await nodeB.inject({ method: 'GET', url: local(downloadUrl) });
    expect(downloaded.statusCode, downloaded.body).toBe(200);
    expect(downloaded.rawPayload.equals(bytes)).toBe(true);

    // Nothing went to either node's disk; a node with only a local store has none of it.
    expect(existsSync(join(dataDirA, 'objects'))).toBe(false);
    expect(existsSync(join(dataDirB, 'objects'))).toBe(false);
    const localOnly = storageOf(readApiConfig({ OTOG_DATA_DIR: dataDirB })).objects;
    expect(await localOnly.has(hashes.testdata_hash!)).toBe(false);
  });

  it('refuses to start on a bucket it cannot use, naming the variable', async () => {
    await expect(storageOf(configOf(dataDirA, { OTOG_S3_BUCKET: 'no-such-bucket' })).check()).rejects.toThrow(
      `cannot use OTOG_S3_BUCKET "no-such-bucket" at OTOG_S3_ENDPOINT ${s3.endpoint}: NotFound (HTTP 404)`,
    );
    await expect(storageOf(configOf(dataDirA, { OTOG_S3_ENDPOINT: 'http://127.0.0.1:1' })).check()).rejects.toThrow(
      /^cannot use OTOG_S3_BUCKET "otog-test" at OTOG_S3_ENDPOINT http:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    );
  });
});
