/**
 * The realtime channel at contest scale, as deployed: two API nodes (`OTOG_ROLES=api`) and a projector
 * (`OTOG_ROLES=projector`), each the production binary in its own process, sharing Postgres and Redis
 * (socket.io's Redis adapter, Redis presence and notices). Bounded client processes hold the sockets, half
 * on each node. Measured: a chat message's delivery to every socket (send → arrival), the nodes' memory per
 * socket and CPU per 1,000 deliveries, and a verdict's notice on its owner's socket at 200 verdicts/s
 * (append → arrival).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import fastifyJwt from '@fastify/jwt';
import { io as connect, type Socket } from 'socket.io-client';
import { openSession } from '@otog/api/modules/auth/session';
import { hashPassword } from '@otog/api/modules/auth/passwords';
import { insertAccount } from '@otog/api/modules/users/accounts';
import { sql } from '@otog/platform/db/pool';
import { createEventStore, type NewEvent } from '@otog/platform/eventstore/event-store';
import { otogEventRegistry } from '@otog/schemas/events';
import { REALTIME_EVENTS } from '@otog/schemas/common/chat';
import { freePort, startLocalServices } from '../tests/support/local-services.ts';
import type { BenchContext } from './lib/context.ts';
import { clusterCpuMs, processStat } from './lib/api-stack.ts';
import { verdictEvent } from './lib/contest-verdicts.ts';
import type { BenchResult, Figure } from './lib/report.ts';
import { createBenchDatabase, onCleanup } from './lib/services.ts';
import { startClientProcess, wallClock, type ClientProcess, type ClientReport } from './lib/socket-clients.ts';
import { int, ms, summarize } from './lib/stats.ts';

const MAIN = fileURLToPath(new URL('../services/api/src/main.ts', import.meta.url));
const CLIENT_PROCESSES = 4;
const VERDICTS_PER_SECOND = 200;
/** Messages one at a time: each delivered to every socket before the next is sent. */
const SINGLE_MESSAGES = 8;
const SINGLE_GAP_MS = 2_500;
/** A busy chat: 4 messages a second. */
const BUSY_GAP_MS = 250;
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

interface NodeProcess {
  readonly name: string;
  readonly pid: number;
  readonly url: string | null;
  stop(): Promise<void>;
}

/** The production binary with `env`, resolved once it says it runs. */
async function startNode(name: string, env: Record<string, string>): Promise<NodeProcess> {
  const child: ChildProcess = spawn(process.execPath, [MAIN], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const kill = onCleanup(`${name} node`, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it ran`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('OTOG is running')) resolve();
    });
  });
  return {
    name,
    pid: child.pid!,
    url: env.PORT ? `http://127.0.0.1:${env.PORT}` : null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(10_000)]);
      }
      await kill();
    },
  };
}

/** CPU (utime + stime, ms) and resident memory (bytes) of a process, from /proc. */
function processUsage(pid: number): { cpuMs: number; rssBytes: number } {
  const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
  return { cpuMs: processStat(pid)?.cpuMs ?? Number.NaN, rssBytes: rssKb * 1024 };
}
const cpuOf = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + (processStat(pid)?.cpuMs ?? 0), 0);
const sumOf = (byPid: ReadonlyMap<number, number>) => [...byPid.values()].reduce((a, b) => a + b, 0);

/** Every client process's report, merged. */
async function collectReports(clients: readonly ClientProcess[]): Promise<ClientReport> {
  const reports = await Promise.all(clients.map((client) => client.report()));
  return {
    chatLatencies: reports.flatMap((report) => report.chatLatencies),
    submissionArrivals: reports.flatMap((report) => report.submissionArrivals),
    onlinePushes: reports.reduce((sum, report) => sum + report.onlinePushes, 0),
    disconnects: reports.reduce((sum, report) => sum + report.disconnects, 0),
    cpuMs: reports.reduce((sum, report) => sum + report.cpuMs, 0),
  };
}

/** Reports until `enough` says the arrivals are complete or `timeoutMs` passes; everything received, merged. */
async function collectUntil(clients: readonly ClientProcess[], enough: (sofar: ClientReport) => boolean, timeoutMs: number): Promise<ClientReport> {
  const deadline = Date.now() + timeoutMs;
  let sofar = await collectReports(clients);
  while (!enough(sofar) && Date.now() < deadline) {
    await sleep(500);
    const more = await collectReports(clients);
    sofar = {
      chatLatencies: sofar.chatLatencies.concat(more.chatLatencies),
      submissionArrivals: sofar.submissionArrivals.concat(more.submissionArrivals),
      onlinePushes: sofar.onlinePushes + more.onlinePushes,
      disconnects: more.disconnects,
      cpuMs: more.cpuMs,
    };
  }
  return sofar;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

export async function benchRealtime(context: BenchContext): Promise<BenchResult> {
  const socketCount = context.quick ? 2_000 : 10_000;
  const messages = context.quick ? 10 : 20;
  const verdictCount = VERDICTS_PER_SECOND * (context.quick ? 10 : 30);

  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const redis = await startLocalServices({ postgres: false, redis: true, kafka: false });
    onCleanup('Redis', () => redis.stop());
    redisUrl = redis.env.REDIS_URL!;
  }
  const db = await createBenchDatabase(context.adminUrl, 'realtime', 8);
  const store = createEventStore(db.pool, otogEventRegistry);
  const dataDir = mkdtempSync(join(tmpdir(), 'otog-bench-realtime-'));
  onCleanup('realtime data dir', () => rmSync(dataDir, { recursive: true, force: true }));
  const jwtSecret = `bench-${Math.random().toString(36).slice(2)}-secret-0123456789abcdef`;

  // Accounts: one password hash for all (argon2 takes ~50 ms each), then a session and token each.
  process.stdout.write(`  realtime: ${int(socketCount + messages)} accounts and sessions\n`);
  const passwordHash = await hashPassword('bench-password');
  const accounts: Array<{ id: number; username: string; showName: string }> = [];
  for (let first = 0; first < socketCount + messages; first += 500) {
    await db.pool.transaction(async (tx) => {
      for (let i = first; i < Math.min(socketCount + messages, first + 500); i++) {
        accounts.push(await insertAccount({ store }, tx, { username: `rt${i}`, showName: `ผู้แข่งขัน ${i}`, passwordHash, role: 'user' }));
      }
    });
  }
  const signer = Fastify();
  await signer.register(fastifyJwt, { secret: jwtSecret });
  await signer.ready();
  const tokens: string[] = [];
  const day = { accessTokenTtlSeconds: 24 * 60 * 60, refreshTokenTtlSeconds: 24 * 60 * 60 };
  for (let first = 0; first < accounts.length; first += 8) {
    const batch = accounts.slice(first, first + 8);
    const sessions = await Promise.all(batch.map((account) => openSession(signer, db.pool, day, { ...account, role: 'user', rating: null })));
    tokens.push(...sessions.map((session) => session.accessToken));
  }
  await signer.close();

  // One problem and a waiting submission per verdict to come, owned round-robin by the socket holders.
  const problemId = 1;
  await store.append(`problem-${problemId}`, [
    { type: 'ProblemDetailsSet', scope: `problem:${problemId}`, data: { problemId, name: 'Realtime', sname: 'rt', case: '10' } },
    { type: 'ProblemJudgingConfigured', scope: `problem:${problemId}`, data: { problemId, score: 100, timeLimit: 1_000, memoryLimit: 256 } },
    { type: 'ProblemVisibilityChanged', scope: `problem:${problemId}`, data: { problemId, show: true } },
  ]);
  const submissionIds = (await db.pool.anyFirst(sql.unsafe`SELECT nextval('submission_ids')::int FROM generate_series(1, ${verdictCount})`)).map(Number);
  const ownerOf = new Map<number, number>();
  for (let first = 0; first < verdictCount; first += 1_000) {
    await db.pool.transaction(async (tx) => {
      for (const [k, submissionId] of submissionIds.slice(first, first + 1_000).entries()) {
        const userId = accounts[(first + k) % socketCount]!.id;
        ownerOf.set(submissionId, userId);
        const created: NewEvent = {
          type: 'SubmissionCreated',
          scope: `user:${userId}`,
          data: { submissionId, userId, problemId, contestId: null, language: 'cpp', sourceCode: 'int main() {}\n', fileName: 'main.cpp' },
        };
        await store.appendInTransaction(tx, `submission-${submissionId}`, [created], { expectedVersion: 'none' });
      }
    });
  }

  const common = { DATABASE_URL: db.url, REDIS_URL: redisUrl, JWT_SECRET: jwtSecret, OTOG_DATA_DIR: dataDir, OTOG_LOCAL_JUDGE_SLOTS: '0', LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
  const projector = await startNode('projector', { ...common, OTOG_ROLES: 'projector' });
  const nodes = [
    await startNode('api-a', { ...common, OTOG_ROLES: 'api', PORT: String(await freePort()) }),
    await startNode('api-b', { ...common, OTOG_ROLES: 'api', PORT: String(await freePort()) }),
  ];
  const nodePids = nodes.map((node) => node.pid);
  const lastSubmission = submissionIds[submissionIds.length - 1]!;
  const ownerToken = tokens[accounts.findIndex((account) => account.id === ownerOf.get(lastSubmission))]!;
  for (const deadline = Date.now() + 120_000; ; ) {
    const response = await fetch(`${nodes[0]!.url}/api/submission/${lastSubmission}`, { headers: { authorization: `Bearer ${ownerToken}` } });
    if (response.ok) break;
    if (Date.now() > deadline) throw new Error('the projector did not fold the seeded submissions within 2 minutes');
    await sleep(500);
  }
  await sleep(2_000);
  const before = nodes.map((node) => processUsage(node.pid));

  // Connect: socket i to node i % 2, the client processes taking equal shares.
  const clients = Array.from({ length: CLIENT_PROCESSES }, () => startClientProcess());
  const connectStarted = performance.now();
  const connected = await Promise.all(
    clients.map((client, c) =>
      client.connect(
        Array.from({ length: socketCount }, (_, i) => i)
          .filter((i) => i % CLIENT_PROCESSES === c)
          .map((i) => ({ url: nodes[i % 2]!.url!, token: tokens[i]! })),
        50,
      ),
    ),
  );
  const connectMs = performance.now() - connectStarted;
  const failedConnects = connected.reduce((sum, result) => sum + result.failed, 0);
  if (failedConnects > socketCount / 100) throw new Error(`${failedConnects} of ${socketCount} sockets failed to connect: ${connected.find((r) => r.firstError)?.firstError}`);
  await sleep(3_000);
  const afterConnect = nodes.map((node) => processUsage(node.pid));
  const perSocketBytes = afterConnect.map((usage, n) => (usage.rssBytes - before[n]!.rssBytes) / (socketCount / 2));
  await collectReports(clients);

  // Idle: what holding the sockets costs (heartbeats, session checks), as a baseline for the chat's CPU.
  const idleMs = 10_000;
  const idleCpuBefore = cpuOf(nodePids);
  await sleep(idleMs);
  const idleCpu = cpuOf(nodePids) - idleCpuBefore;

  // Chat: each message from its own sender (the per-user limit allows 5 per 10 s), alternating nodes.
  const senders: Socket[] = await Promise.all(
    Array.from(
      { length: messages },
      (_, m) =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(nodes[m % 2]!.url!, { path: '/socket.io', transports: ['websocket'], auth: { token: tokens[socketCount + m]! }, reconnection: false, forceNew: true });
          socket.once('connect', () => resolve(socket));
          socket.once('connect_error', reject);
        }),
    ),
  );
  await sleep(1_000);
  await collectReports(clients);
  /** `count` messages `gapMs` apart; every delivery's latency and the nodes' CPU less the idle cost. */
  const chatRound = async (count: number, gapMs: number) => {
    const cpuBefore = cpuOf(nodePids);
    const started = performance.now();
    let refused = 0;
    for (const [m, sender] of senders.slice(0, count).entries()) {
      await sleep(Math.max(0, started + m * gapMs - performance.now()));
      void (sender.timeout(10_000).emitWithAck(REALTIME_EVENTS.chatServer, `bench ${wallClock()}`) as Promise<{ ok: boolean }>).then(
        (answer) => void (answer.ok || refused++),
        () => refused++,
      );
    }
    const expected = count * socketCount;
    const received = await collectUntil(clients, (sofar) => sofar.chatLatencies.length >= expected, 30_000);
    const windowMs = performance.now() - started;
    const cpu = cpuOf(nodePids) - cpuBefore;
    await sleep(10_000); // the senders' rate-limit window, before the next round
    return { latency: summarize(received.chatLatencies), expected, refused, windowMs, cpu, deliveryCpu: cpu - (idleCpu * windowMs) / idleMs, disconnects: received.disconnects };
  };
  const single = await chatRound(SINGLE_MESSAGES, SINGLE_GAP_MS);
  const busy = await chatRound(messages, BUSY_GAP_MS);
  for (const sender of senders) sender.disconnect();

  // Verdicts at 200/s, open loop, each append's start recorded; the owner's socket hears `submission`.
  const appendStarts = new Map<number, number>();
  const appendDurations: number[] = [];
  const appendEnds = new Map<number, number>();
  let failedAppends = 0;
  // Who used the 2 cores meanwhile: the API nodes, the projector, Postgres, the clients and this process.
  const postmaster = processStat(Number(await db.pool.oneFirst(sql.unsafe`SELECT pg_backend_pid()`)))?.ppid ?? null;
  const clientPids = clients.map((client) => client.pid);
  const cpuShares = () => ({
    nodes: cpuOf(nodePids),
    projector: cpuOf([projector.pid]),
    postgres: postmaster === null ? Number.NaN : sumOf(clusterCpuMs(postmaster)),
    clients: cpuOf(clientPids),
    bench: cpuOf([process.pid]),
  });
  const sharesBefore = cpuShares();
  // What the database's backends wait on, sampled every 100 ms while the verdicts go in.
  const waits = new Map<string, number>();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rows = (await db.pool.any(sql.unsafe`
        SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS wait, count(*)::int AS n
        FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() GROUP BY 1`)) as ReadonlyArray<{ wait: string; n: number }>;
      for (const row of rows) waits.set(row.wait, (waits.get(row.wait) ?? 0) + row.n);
      await sleep(100);
    }
  })();
  const verdictsStarted = performance.now();
  const appends: Array<Promise<void>> = [];
  for (const [k, submissionId] of submissionIds.entries()) {
    const due = verdictsStarted + (k * 1_000) / VERDICTS_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const startedAt = wallClock();
    appendStarts.set(submissionId, startedAt);
    appends.push(
      store.append(`submission-${submissionId}`, [verdictEvent(`user:${ownerOf.get(submissionId)!}`, submissionId, k % 2 === 0 ? 100 : 70)], { expectedVersion: 1 }).then(
        () => {
          const committedAt = wallClock();
          appendEnds.set(submissionId, committedAt);
          appendDurations.push(committedAt - startedAt);
        },
        () => void failedAppends++,
      ),
    );
  }
  await Promise.all(appends);
  sampling = false;
  await sampler;
  const samples = Math.max(1, Math.round((performance.now() - verdictsStarted) / 100));
  const appendWindowMs = performance.now() - verdictsStarted;
  const appendLatency = summarize(appendDurations);
  const verdicts = await collectUntil(clients, (sofar) => new Set(sofar.submissionArrivals.map(([id]) => id)).size >= verdictCount, 30_000);
  const firstArrival = new Map<number, number>();
  for (const [id, at] of verdicts.submissionArrivals) if (!firstArrival.has(id)) firstArrival.set(id, at);
  const noticeLatency = summarize([...firstArrival].map(([id, at]) => at - appendStarts.get(id)!));
  const fromCommit = summarize([...firstArrival].filter(([id]) => appendEnds.has(id)).map(([id, at]) => at - appendEnds.get(id)!));
  const missedNotices = verdictCount - firstArrival.size;
  const clientCpuMs = verdicts.cpuMs;
  const verdictWindowMs = performance.now() - verdictsStarted;
  const sharesAfter = cpuShares();
  const busyDuringVerdicts = (Object.keys(sharesAfter) as Array<keyof typeof sharesAfter>).map(
    (who) => `${who} ${(((sharesAfter[who] - sharesBefore[who]) / verdictWindowMs) * 100).toFixed(0)} %`,
  );

  await Promise.all(clients.map((client) => client.close()));
  for (const node of [...nodes, projector]) await node.stop();
  await db.drop();

  const perSocketKiB = (perSocketBytes[0]! + perSocketBytes[1]!) / 2 / 1024;
  const cpuPerThousand = (busy.deliveryCpu / (busy.latency.count || 1)) * 1_000;
  const chatRow = (label: string, round: typeof single) => [label, ms(round.latency.p50), ms(round.latency.p99), ms(round.latency.max), `${int(round.latency.count)} of ${int(round.expected)}`];
  const figures: Figure[] = [
    {
      name: `Chat message → all ${int(socketCount)} sockets (2 nodes), p99`,
      value: single.latency.p99,
      unit: 'ms',
      display: `${ms(single.latency.p99)} ms`,
      ...(context.quick ? {} : { target: { op: '<', value: 1_000, text: '< 1 s' } }),
    },
    {
      name: `The same in a busy chat (${1_000 / BUSY_GAP_MS} messages/s), p99`,
      value: busy.latency.p99,
      unit: 'ms',
      display: `${ms(busy.latency.p99)} ms`,
      summary: true,
    },
    {
      name: `Verdict → notice on the owner's socket at ${VERDICTS_PER_SECOND}/s, p99`,
      value: noticeLatency.p99,
      unit: 'ms',
      display: `${ms(noticeLatency.p99)} ms`,
      target: { op: '<', value: 200, text: '< 200 ms' },
    },
    { name: 'API node memory per connected socket', value: perSocketKiB, unit: 'KiB', display: `${perSocketKiB.toFixed(1)} KiB`, summary: true },
    { name: 'API nodes CPU per 1,000 chat deliveries', value: cpuPerThousand, unit: 'ms', display: `${ms(cpuPerThousand)} ms`, summary: true },
  ];
  return {
    id: 'realtime',
    title: `Realtime: ${int(socketCount)} sockets across 2 API nodes`,
    method: [
      'Processes: two API nodes (`OTOG_ROLES=api`) and a projector (`OTOG_ROLES=projector`), each `node services/api/src/main.ts`, sharing the bench Postgres and a Redis (socket.io Redis adapter, presence, notices); ' +
        `${CLIENT_PROCESSES} client processes hold the sockets (socket.io-client, websocket transport, one manager per socket), socket i on node i mod 2. All of it shares the machine's 2 cores.`,
      `Accounts: ${int(socketCount)} socket holders and ${messages} chat senders, each with its own session and 24 h access token; ${int(verdictCount)} waiting submissions owned round-robin by the holders.`,
      `Chat: the send time (the machine's wall clock) travels in the text; latency = arrival in a client process − send time, over every delivery. One message at a time: ${SINGLE_MESSAGES} messages ${SINGLE_GAP_MS / 1000} s apart; a busy chat: ${messages} messages ${BUSY_GAP_MS} ms apart; senders alternate nodes.`,
      `CPU per 1,000 deliveries: both API nodes' CPU (/proc) over the busy round, less the idle cost of holding the sockets measured over ${idleMs / 1000} s before; memory per socket: the growth of each node's RSS from before the first client connected to 3 s after the last, over its ${int(socketCount / 2)} sockets.`,
      `Verdicts: SubmissionJudged appended at ${VERDICTS_PER_SECOND}/s, open loop, from the bench process; latency = the owner socket's first \`submission\` notice − the start of the append (so it includes the append's commit, the projector's fold and the notice's trip through Redis and the node).`,
    ],
    figures,
    tables: [
      {
        header: ['measure', 'p50', 'p99', 'max', 'count'],
        rows: [
          chatRow('chat, one message at a time (ms)', single),
          chatRow(`chat, ${1_000 / BUSY_GAP_MS} messages/s (ms)`, busy),
          ['verdict → owner notice (ms)', ms(noticeLatency.p50), ms(noticeLatency.p99), ms(noticeLatency.max), `${int(noticeLatency.count)} of ${int(verdictCount)}`],
          ['of which the append (ms)', ms(appendLatency.p50), ms(appendLatency.p99), ms(appendLatency.max), int(appendLatency.count)],
          ['from the commit (ms)', ms(fromCommit.p50), ms(fromCommit.p99), ms(fromCommit.max), int(fromCommit.count)],
        ],
      },
      {
        header: ['node', 'RSS before', 'RSS with sockets', 'per socket'],
        rows: nodes.map((node, n) => [node.name, mib(before[n]!.rssBytes), mib(afterConnect[n]!.rssBytes), `${(perSocketBytes[n]! / 1024).toFixed(1)} KiB`]),
      },
    ],
    notes: [
      `${int(socketCount)} sockets connected in ${(connectMs / 1000).toFixed(1)} s (50 at a time per client process)${failedConnects ? `, ${failedConnects} failed` : ''}; ${busy.disconnects} dropped during the run.`,
      `Idle cost of holding them: ${ms((idleCpu / idleMs) * 1000)} ms of API-node CPU per second; the busy round took ${ms(busy.cpu)} ms of API-node CPU over ${(busy.windowMs / 1000).toFixed(1)} s.`,
      `Chat sends refused: ${single.refused + busy.refused}; deliveries missing: ${int(single.expected - single.latency.count + busy.expected - busy.latency.count)}. Notices missing: ${int(missedNotices)}; failed appends: ${failedAppends}; the ${int(verdictCount)} appends took ${(appendWindowMs / 1000).toFixed(1)} s (due ${(verdictCount / VERDICTS_PER_SECOND).toFixed(0)} s).`,
      `Active backends of the bench database during the verdicts, by what they waited on (mean per 100 ms sample): ${[...waits]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([wait, n]) => `${wait} ${(n / samples).toFixed(2)}`)
        .join(', ')}.`,
      `CPU during the verdicts, in % of one core (the machine has 2): ${busyDuringVerdicts.join(', ')}.`,
      `Client processes' CPU over the whole run: ${int(clientCpuMs)} ms (they share the machine's 2 cores with the nodes, Postgres and Redis).`,
    ],
  };
}
