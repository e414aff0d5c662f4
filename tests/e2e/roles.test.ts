/**
 * Process roles (OTOG_ROLES) on one database: two API-only nodes and one projector node, each a real
 * `node services/api/src/main.ts`. What is written through one API node is read through the other once the
 * projector has folded it; the API nodes fold nothing themselves; the projector node serves no HTTP; and the
 * API nodes share their rate limits through Redis.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { z } from 'zod';
import { RATE_LIMIT_NAMESPACE } from '@otog/api/app';
import { LOGIN_ACCOUNT_LIMIT_PREFIX } from '@otog/api/modules/auth/routes';
import { sql } from '@otog/platform/db/pool';
import { freePort } from '../support/local-services.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { until } from '../support/until.ts';
import { killAll, root, startOtog, startOtogNode, type OtogProcess } from './otog-process.ts';

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) throw new Error('REDIS_URL is not set: run the suites through `npm test`, which starts a Redis server');

// One data directory for every node: API nodes must share the uploaded objects (test data of the samples).
const scratch = mkdtempSync(join(tmpdir(), 'otog-e2e-roles-'));
chmodSync(scratch, 0o755);
afterAll(async () => {
  await killAll();
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

type Body = Record<string, unknown> & Array<Record<string, unknown>>;

function client(port: number) {
  return async (method: string, path: string, init: { token?: string; json?: unknown; form?: FormData } = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}/api${path}`, {
      method,
      headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      ...(init.form ? { body: init.form } : {}),
    });
    return { status: response.status, body: (await response.json()) as Body };
  };
}

const SLOT_STARTED = 'projection slot started';

it('splits the API, the projections and the judge queue over processes sharing one database and one Redis', async () => {
  const db = await createTestDatabase();
  const redis = new Redis(redisUrl);
  const [portA, portB, portP] = [await freePort(), await freePort(), await freePort()];
  const shared = { DATABASE_URL: db.url, OTOG_DATA_DIR: scratch, LOG_LEVEL: 'info' };
  const apiNode = (port: number) =>
    startOtog({
      ...shared,
      OTOG_ROLES: 'api',
      PORT: String(port),
      OTOG_LOCAL_JUDGE_SLOTS: '0',
      JWT_SECRET: 'roles-e2e-jwt-secret-0123456789abcdef',
      OTOG_ADMIN_PASSWORD: 'roles-admin-pw',
      REDIS_URL: redisUrl,
    });
  // PORT is set and must be ignored: a node without the api role listens nowhere.
  const projectorNode = () => startOtogNode({ ...shared, OTOG_ROLES: 'projector,judge-queue', PORT: String(portP) });
  const nodes: OtogProcess[] = [];
  try {
    // Started together: the API nodes wait for the projector to create the read models, then seed once.
    const [a, b, projector] = await Promise.all([apiNode(portA), apiNode(portB), projectorNode()]);
    nodes.push(a, b, projector);
    const [apiA, apiB] = [client(portA), client(portB)];

    expect(projector.output().stdout).toContain('OTOG is running: projector, judge-queue (no HTTP server in this process).');
    expect(projector.output().stdout).not.toContain('OTOG is running at');
    await expect(fetch(`http://127.0.0.1:${portP}/api/ping`)).rejects.toThrow();

    // A user registered through A signs in through B; the sample problems seeded through one node are
    // listed through the other.
    expect((await apiA('POST', '/auth/register', { json: { username: 'roles_user', showName: 'ผู้ใช้', password: 'roles-password' } })).status).toBe(201);
    const token = (await apiB('POST', '/auth/login', { json: { username: 'roles_user', password: 'roles-password' } })).body.accessToken as string;
    expect(token).toEqual(expect.any(String));
    const aplusb = (await apiB('GET', '/problem')).body.find((problem) => problem.sname === 'aplusb');
    expect(aplusb).toBeDefined();

    // A submission through A is read through B, and the projector node's judge-queue role made its task.
    const form = new FormData();
    form.set('language', 'cpp');
    form.set('sourceCode', new Blob([readFileSync(join(root, 'judge/samples/solutions/aplusb/accept.cpp'))]), 'accept.cpp');
    const submitted = await apiA('POST', `/submission/problem/${String(aplusb!.id)}`, { token, form });
    expect(submitted.status).toBe(200);
    await until('node B shows the submission', async () => (await apiB('GET', `/submission/${String(submitted.body.id)}`, { token })).status === 200, 10_000);
    await until(
      'the judge task exists',
      async () => (await db.pool.maybeOne(sql.type(z.object({ state: z.string() }))`SELECT state FROM judge_tasks WHERE submission_id = ${Number(submitted.body.id)}`))?.state === 'queued',
      10_000,
    );

    // An announcement through A is listed through B.
    const admin = (await apiA('POST', '/auth/login', { json: { username: 'admin', password: 'roles-admin-pw' } })).body.accessToken as string;
    const first = await apiA('POST', '/announcement', { token: admin, json: { value: 'folded by the projector' } });
    expect(first.status).toBe(201);
    const announcementIds = async () => (await apiB('GET', '/announcement', { token: admin })).body.map((announcement) => announcement.id);
    await until('node B lists the announcement', async () => (await announcementIds()).includes(first.body.id), 10_000);

    // Only the projector folds: its log names the slots it started, the API nodes' logs (same level) none.
    expect(projector.output().stdout).toContain(SLOT_STARTED);
    for (const node of [a, b]) {
      expect(node.output().stdout).toContain('"roles":["api"]');
      expect(node.output().stdout).not.toContain(SLOT_STARTED);
    }
    // And with the projector stopped nothing folds: A's write waits out its read-your-writes bound, B does not
    // list it; a new projector node folds it.
    expect(await projector.stop()).toBe(0);
    const second = await apiA('POST', '/announcement', { token: admin, json: { value: 'written while no projector runs' } });
    expect(second.status).toBe(201);
    expect(a.output().stdout).toContain('projection did not catch up in time');
    expect(await announcementIds()).not.toContain(second.body.id);
    const standby = await projectorNode();
    nodes.push(standby);
    await until('the new projector folds the announcement', async () => (await announcementIds()).includes(second.body.id), 30_000);

    // The sign-in limits (10 a minute per account, 100 per address) are counted once for both nodes:
    // alternating A and B, the 11th attempt on one account is refused although A has seen only 6 of them.
    const limitKeys = `${RATE_LIMIT_NAMESPACE}*`;
    const stale = [...(await redis.keys(limitKeys)), ...(await redis.keys(`${LOGIN_ACCOUNT_LIMIT_PREFIX}*`))];
    if (stale.length > 0) await redis.del(...stale);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const api = attempt % 2 === 0 ? apiA : apiB;
      statuses.push((await api('POST', '/auth/login', { json: { username: 'roles_user', password: 'wrong-password' } })).status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
    expect(await redis.keys(limitKeys)).toContain(`${RATE_LIMIT_NAMESPACE}POST/api/auth/login-ip:127.0.0.1`);
    expect(await redis.keys(`${LOGIN_ACCOUNT_LIMIT_PREFIX}*`)).toEqual([`${LOGIN_ACCOUNT_LIMIT_PREFIX}roles_user`]);

    for (const node of [a, b, standby]) expect(node.output().stdout + node.output().stderr).not.toMatch(/faulted|"level":50/);
  } finally {
    for (const node of nodes) expect(await node.stop()).toBe(0);
    redis.disconnect();
    await db.drop();
  }
}, 240_000);
