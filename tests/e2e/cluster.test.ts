/**
 * `npm run cluster`'s topology, started the way the command starts it (startCluster): two API nodes
 * behind the load balancer, two projectors (one a standby), the relay and a judge, each a real process,
 * with their own Redis and Kafka-protocol broker. Submissions are judged through the balancer, chat crosses
 * API nodes through Redis, and a SIGKILL of an API node, of a projector held down, and of a judge in the
 * middle of a submission loses nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, expect, it } from 'vitest';
import { REALTIME_EVENTS } from '@otog/schemas/common/chat';
import { createLogger } from '@otog/platform/log/logger';
import { startCluster, type Cluster } from '../../services/api/src/cluster/cluster.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { until } from '../support/until.ts';
import { root } from './otog-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'otog-e2e-cluster-'));
let cluster: Cluster | undefined;
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

type Json = Record<string, unknown>;

async function call(base: string, method: string, path: string, init: { token?: string; json?: unknown; form?: FormData } = {}) {
  const response = await fetch(`${base}/api${path}`, {
    method,
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    ...(init.form ? { body: init.form } : {}),
  });
  return { status: response.status, body: (await response.json()) as Json & Json[] };
}

function sourceForm(language: string, name: string, source: string | Buffer): FormData {
  const form = new FormData();
  form.set('language', language);
  form.set('sourceCode', new Blob([source]), name);
  return form;
}

function openSocket(url: string, token: string): Promise<Socket> {
  const socket = io(url, { path: '/socket.io', transports: ['websocket'], auth: { token }, reconnection: false });
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

it('runs the scaled topology and loses nothing when an API node, a projector or a judge is killed', { timeout: 240_000 }, async () => {
  const db = await createTestDatabase();
  cluster = await startCluster({
    dir,
    apiNodes: 2,
    judges: 1,
    projectors: 2,
    judgeSlots: 1,
    host: '127.0.0.1',
    port: 0,
    databaseUrl: db.url,
    adminPassword: 'cluster-admin-pw',
    env: { PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}`, JUDGE_LEASE_SECONDS: '5' },
    logger: createLogger({ name: 'cluster-test', level: 'silent' }),
  });
  const lb = cluster.url;
  const apiNodes = cluster.processes.filter((process) => process.role === 'api');
  expect(apiNodes.map((node) => node.name)).toEqual(['api-1', 'api-2']);
  expect(cluster.processes.map((process) => process.name).sort()).toEqual(['api-1', 'api-2', 'judge-1', 'projector-1', 'projector-2', 'relay-1']);
  expect(cluster.admin).toEqual({ username: 'admin', password: 'cluster-admin-pw', generated: false });
  expect((await call(lb, 'GET', '/health/ready')).body).toMatchObject({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });

  // A contestant registers and submits through the balancer; the judge (claiming through it too) accepts.
  expect((await call(lb, 'POST', '/auth/register', { json: { username: 'cluster_user', showName: 'ผู้แข่งขัน', password: 'cluster-password' } })).status).toBe(201);
  const login = (await call(lb, 'POST', '/auth/login', { json: { username: 'cluster_user', password: 'cluster-password' } })).body;
  const token = String(login.accessToken);
  const userId = Number((login.user as Json).id);
  const aplusb = (await call(lb, 'GET', '/problem', { token })).body.find((problem) => problem.sname === 'aplusb');
  expect(aplusb).toBeDefined();
  const accepted = readFileSync(join(root, 'judge/samples/solutions/aplusb/accept.cpp'));
  const submit = async (form: FormData) => {
    const answer = await call(lb, 'POST', `/submission/problem/${String(aplusb!.id)}`, { token, form });
    expect(answer.status).toBe(200);
    return Number(answer.body.id);
  };
  const statusOf = async (id: number) => String((await call(lb, 'GET', `/submission/${id}`, { token })).body.status);
  const first = await submit(sourceForm('cpp', 'accept.cpp', accepted));
  await until('the first submission is accepted', async () => (await statusOf(first)) === 'accept', 60_000, 100);

  // Chat sent on one API node reaches a client of the other (socket.io's Redis adapter).
  const [onA, onB] = [await openSocket(apiNodes[0]!.url!, token), await openSocket(apiNodes[1]!.url!, token)];
  const heard: unknown[] = [];
  onB.on(REALTIME_EVENTS.chat, (message: unknown) => heard.push(message));
  expect(await onA.timeout(5_000).emitWithAck(REALTIME_EVENTS.chatServer, 'สวัสดีจาก api-1')).toMatchObject({ ok: true });
  await until('the chat crosses to api-2', () => heard.some((message) => JSON.stringify(message).includes('สวัสดีจาก api-1')), 10_000);

  // SIGKILL an API node: requests through the balancer keep succeeding (a refused connection goes to the
  // other node), and the supervisor brings it back into the rotation.
  await cluster.supervisor.kill('api-1');
  const during = await Promise.all(Array.from({ length: 10 }, () => call(lb, 'GET', '/problem', { token })));
  expect(during.map((answer) => answer.status)).toEqual(Array(10).fill(200));
  await until('api-1 is back in the rotation', () => cluster!.balancer.ready().includes('api-1'), 60_000, 100);

  // SIGKILL a projector and keep it down: the standby takes over every projection and the judge queue.
  await cluster.supervisor.kill('projector-1', 'SIGKILL', { restart: false });
  const second = await submit(sourceForm('cpp', 'accept.cpp', accepted));
  await until('the standby folds and queues the second submission', async () => (await statusOf(second)) === 'accept', 60_000, 100);
  cluster.supervisor.resume('projector-1');

  // SIGKILL the judge while it judges (a slow but correct answer): its lease expires, the restarted judge
  // claims the submission again and it ends accepted, once.
  const slow = 'import time\nfor _ in range(20):\n    time.sleep(0.05)\na, b = map(int, input().split())\nprint(a + b)\n';
  const third = await submit(sourceForm('python', 'slow.py', slow));
  await until('the judge takes the third submission', async () => (await statusOf(third)) === 'grading', 30_000, 20);
  await cluster.supervisor.kill('judge-1');
  await until('the third submission is judged again and accepted', async () => (await statusOf(third)) === 'accept', 90_000, 100);
  expect(cluster.supervisor.restarts('judge-1')).toBe(1);
  const mine = (await call(lb, 'GET', `/submission/user/${userId}`, { token })).body;
  expect(mine.map((submission) => submission.id).sort()).toEqual([first, second, third].sort());

  // Every process serves Prometheus metrics on its ops port, with its roles' figures.
  const metricsOf = async (name: string) => (await fetch(`${cluster!.processes.find((process) => process.name === name)!.opsUrl!}/metrics`)).text();
  const [api1, api2, projector, relay, judge] = [await metricsOf('api-1'), await metricsOf('api-2'), await metricsOf('projector-2'), await metricsOf('relay-1'), await metricsOf('judge-1')];
  expect(api2).toMatch(/^otog_realtime_sockets\{[^}]*\} 1$/m);
  expect(api2).toMatch(/^otog_http_request_duration_seconds_count\{[^}]*route="\/api\/problem"[^}]*\} [1-9]/m);
  // Claims (through the balancer, so on either node) recorded how long each task waited: three tasks, four claims.
  const claims = [api1, api2].map((text) => Number(/^otog_judge_queue_wait_seconds_count\{[^}]*\} (\d+)$/m.exec(text)?.[1] ?? 0));
  expect(claims[0]! + claims[1]!).toBeGreaterThanOrEqual(3);
  expect(projector).toMatch(/^otog_projection_lag_events\{[^}]*projection="submissions"[^}]*\} 0$/m);
  expect(projector).toMatch(/^otog_judge_queue_tasks\{[^}]*state="queued"[^}]*\} 0$/m);
  expect(relay).toMatch(/^otog_relay_lag_events\{[^}]*\} \d+$/m);
  // The scoreboard projection reads its Kafka topics here: its consumer lag is a gauge per partition of
  // each topic it reads (contest and problem events, nothing else), and it drains to 0.
  const kafkaLag = (text: string) =>
    [...text.matchAll(/^otog_kafka_consumer_lag_messages\{([^}]*)\} (\d+)$/gm)]
      .map(([, labels, value]) => ({ labels: labels!, value: Number(value) }))
      .filter((sample) => sample.labels.includes('projection="contest_scores"'));
  const topicsRead = (samples: ReturnType<typeof kafkaLag>) => [...new Set(samples.map((sample) => /topic="([^"]+)"/.exec(sample.labels)![1]))].sort();
  await until('the scoreboard projection reports its two topics and has applied every message of them', async () => {
    const samples = kafkaLag(await metricsOf('projector-2'));
    return topicsRead(samples).join() === 'otog.contest-events.v1,otog.problems.v1' && samples.every((sample) => sample.value === 0);
  }, 30_000, 200);
  // The restarted judge judged the third submission.
  expect(judge).toMatch(/^otog_judge_slots\{[^}]*\} 1$/m);
  expect(judge).toMatch(/^otog_judge_judged_total\{[^}]*status="accept"[^}]*\} 1$/m);

  // Stopping leaves no process behind.
  const pids = cluster.supervisor.names().map((name) => cluster!.supervisor.pid(name));
  await cluster.stop();
  cluster = undefined;
  for (const pid of pids) expect(() => process.kill(pid!, 0)).toThrow();
});
