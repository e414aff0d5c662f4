/**
 * `npm start` with KAFKA_BROKERS (the Kafka mock): the product seeds its sample problems, a contestant
 * registers, submits and is judged by the built-in worker, and every event the log then holds is on the
 * Kafka topic of its scope kind, with the relay still healthy.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '@otog/platform/db/pool';
import { SCOPE_KINDS, scopeKindOf } from '@otog/schemas/events';
import { quietKafkaLogs, topicsOfEvents } from '../contract/kafka-harness.ts';
import { freePort } from '../support/local-services.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { until } from '../support/until.ts';
import { killAll, root, startOtog } from './otog-process.ts';

const brokers = process.env.KAFKA_BROKERS;
if (!brokers) throw new Error('KAFKA_BROKERS is not set: run the suites through `npm test`, which starts the Kafka mock cluster');

const scratch = mkdtempSync(join(tmpdir(), 'otog-e2e-kafka-'));
chmodSync(scratch, 0o755);
afterAll(async () => {
  await killAll();
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

it('relays every event of a fresh start, a registration, a submission and its judging to its topic', async () => {
  const db = await createTestDatabase();
  const port = await freePort();
  const otog = await startOtog({ OTOG_DATA_DIR: scratch, PORT: String(port), DATABASE_URL: db.url, KAFKA_BROKERS: brokers, OTOG_ADMIN_PASSWORD: 'kafka-admin-pw' });
  const kafka = new Kafka({ clientId: 'otog-e2e-kafka', brokers: brokers.split(','), logCreator: quietKafkaLogs });
  try {
    const api = async (method: string, path: string, init: { token?: string; json?: unknown; form?: FormData } = {}) => {
      const response = await fetch(`http://127.0.0.1:${port}/api${path}`, {
        method,
        headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
        ...(init.form ? { body: init.form } : {}),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> & Array<Record<string, unknown>> };
    };
    const aplusb = (await api('GET', '/problem')).body.find((problem) => problem.sname === 'aplusb');
    expect(aplusb).toBeDefined();
    expect((await api('POST', '/auth/register', { json: { username: 'kafka_user', showName: 'ผู้ใช้คาฟคา', password: 'kafka-password' } })).status).toBe(201);
    const token = (await api('POST', '/auth/login', { json: { username: 'kafka_user', password: 'kafka-password' } })).body.accessToken as string;
    const form = new FormData();
    form.set('language', 'cpp');
    form.set('sourceCode', new Blob([readFileSync(join(root, 'judge/samples/solutions/aplusb/accept.cpp'))]), 'accept.cpp');
    const submitted = await api('POST', `/submission/problem/${String(aplusb!.id)}`, { token, form });
    expect(submitted.status).toBe(200);
    await until('the submission is judged', async () => (await api('GET', `/submission/${String(submitted.body.id)}`, { token })).body.status === 'accept', 120_000, 200);

    const events = await db.pool.any(sql.type(z.object({ eventId: z.string(), type: z.string(), scope: z.string() }))`
      SELECT event_id::text AS "eventId", type, scope FROM event_log`);
    const expected = new Map(events.map((event) => [event.eventId, SCOPE_KINDS[scopeKindOf(event.scope)!].topic]));
    const types = new Set(events.map((event) => event.type));
    for (const type of ['UserRegistered', 'ProblemDetailsSet', 'ProblemTestdataUploaded', 'SubmissionCreated', 'TestcaseJudged', 'SubmissionJudged']) expect(types).toContain(type);

    const seen = await topicsOfEvents(kafka, new Set(expected.keys()));
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(expected));
    const relay = await db.pool.anyFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM consumer_checkpoints WHERE consumer = 'relay:kafka'`);
    expect(relay).toEqual(['running']);
    expect(otog.output().stdout + otog.output().stderr).not.toMatch(/faulted|UnroutableScope/);
  } finally {
    expect(await otog.stop()).toBe(0);
    await db.drop();
  }
}, 240_000);
