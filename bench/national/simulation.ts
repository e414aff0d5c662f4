/**
 * A national contest, compressed, on the scaled topology (`npm run cluster`'s processes): contestants
 * submit through the load balancer with arrival bursts at the start and near the end, simulated judge
 * hosts answer, scoreboard readers poll, chat clients talk, and processes are killed with SIGKILL and
 * restarted by the supervisor. At the end it checks what must hold whatever was killed:
 *
 * - every submission that got a 2xx exists exactly once in the log (clients retry with an Idempotency-Key)
 *   and reached a final status;
 * - every event of the log is on its Kafka topic (duplicates counted: a relay restart may publish twice);
 * - the scoreboard, score histories and prizes (the contest_scores read model) equal a fresh rebuild from the log;
 * - every chat message reached every client that stayed connected throughout.
 *
 * The contestants submit from client processes (contestant-client.ts), each with its share of the plan and
 * a bounded number in flight; the scoreboard readers and chat clients run in this process.
 */
import Fastify from 'fastify';
import fastifyJwt from '@fastify/jwt';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { io, type Socket } from 'socket.io-client';
import { z } from 'zod';
import { Writable } from 'node:stream';
import { runCli } from '@otog/api/cli/cli';
import { startCluster, type Cluster } from '@otog/api/cluster/cluster';
import { hashPassword } from '@otog/api/modules/auth/passwords';
import { openSession } from '@otog/api/modules/auth/session';
import { insertAccount } from '@otog/api/modules/users/accounts';
import { createNotificationListener } from '@otog/platform/db/listen';
import { migrate } from '@otog/platform/db/migrate';
import { createDbPool, sql, type DatabasePool } from '@otog/platform/db/pool';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { comparePositions } from '@otog/platform/eventstore/position';
import { relayPosition } from '@otog/api/ops/role-metrics';
import type { Logger } from '@otog/platform/log/logger';
import { HEADERS, OTOG_TOPICS } from '@otog/platform/relay/kafka-messages';
import { slotTableName } from '@otog/platform/runner/projection';
import { slotConsumer } from '@otog/platform/runner/projection-runner';
import { createKafkaTransport } from '@otog/platform/transport/kafka-transport';
import { listSlots } from '@otog/platform/runner/projection-slots';
import { allProjections, contestScoreFeed } from '@otog/projections';
import { REALTIME_EVENTS } from '@otog/schemas/common/chat';
import { otogEventRegistry } from '@otog/schemas/events';
import { mulberry32 } from '../../tests/support/mulberry32.ts';
import type { ClientOutcome, ClientShare } from './contestant-client.ts';

export type FaultTarget = 'api' | 'projector' | 'relay' | 'judge';

export interface SimulationOptions {
  readonly dir: string;
  readonly contestants: number;
  readonly submissionsPerContestant: number;
  readonly contestMs: number;
  readonly apiNodes: number;
  readonly judges: number;
  readonly judgeSlots: number;
  readonly chatClients: number;
  readonly chatMessages: number;
  readonly scoreboardReaders: number;
  /** Kills at these moments (ms after the contest starts), one process of the given kind each. */
  readonly faults: ReadonlyArray<{ readonly atMs: number; readonly target: FaultTarget }>;
  /** Submissions in flight at once, over all contestants. */
  readonly concurrency: number;
  readonly databaseUrl?: string;
  readonly logger: Logger;
  readonly seed?: number;
  /** How long after the last submission the checks wait for judging, folding and relaying to finish (default 120 s). */
  readonly settleMs?: number;
  /** Where the contest projections read events (the cluster's default: Kafka). */
  readonly projectionSource?: 'log' | 'kafka';
  /** Client processes the contestants submit from (default 4, at most `concurrency`). */
  readonly clientProcesses?: number;
  /**
   * The share of the contest (0..1) the submissions are planned in (default 0.98). The rest lets a backlog
   * of the last burst reach the API before the contest ends, when a POST takes seconds (a busy machine).
   */
  readonly submitWithin?: number;
}

export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface SimulationReport {
  readonly checks: readonly Check[];
  readonly submissions: { readonly intended: number; readonly accepted: number; readonly refused: number; readonly retries: number; readonly refusals: Readonly<Record<string, number>> };
  readonly postMs: { readonly p50: number; readonly p99: number; readonly perSecond: number };
  readonly scoreboardGetMs: { readonly p50: number; readonly p99: number; readonly reads: number };
  readonly judgedWithinMs: number;
  readonly faults: ReadonlyArray<{ readonly process: string; readonly recoveredMs: number | null }>;
  readonly kafka: { readonly logEvents: number; readonly messages: number; readonly missing: number; readonly duplicates: number };
  readonly chat: { readonly sent: number; readonly steadyClients: number; readonly missing: number; readonly fanOutP99Ms: number };
  /** From the API nodes' otog_judge_queue_wait_seconds (a node restarted mid-run lost its earlier counts): the bucket bound holding the 99th percentile. */
  readonly queueWaitP99Seconds: number | null;
  /** From a verdict recorded in the log to the changed score committed and fed to Kafka (verdictToBoard). */
  readonly verdictToBoardMs: { readonly p50: number; readonly p99: number; readonly changes: number };
}

const percentile = (values: readonly number[], p: number) => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * When in the contest (0..1) a submission arrives: a burst in the first tenth, another in the last
 * twelfth (the last 15 minutes of 3 hours), the rest spread evenly.
 */
export function arrivalMoment(next: () => number): number {
  const pick = next();
  if (pick < 0.3) return next() * 0.1;
  if (pick < 0.6) return 1 - next() * (1 / 12);
  return next();
}

const ContestIdRow = z.object({ id: z.number() });
const CreatedRow = z.object({ submissionId: z.number(), copies: z.number() });
const CountRow = z.object({ count: z.number() });
const EventIdRow = z.object({ eventId: z.string() });

interface Contestant {
  readonly id: number;
  readonly token: string;
}

/** Accounts and signed-in sessions straight into the database: argon2 for 10,000 sign-ups would take longer than the contest. */
async function seedContestants(pool: DatabasePool, jwtSecret: string, count: number, prefix: string): Promise<Contestant[]> {
  const store = createEventStore(pool, otogEventRegistry);
  const passwordHash = await hashPassword(`${prefix}-password`);
  const signer = Fastify();
  await signer.register(fastifyJwt, { secret: jwtSecret });
  await signer.ready();
  const contestants: Contestant[] = [];
  for (let index = 0; index < count; index += 1) {
    const username = `${prefix}${index + 1}`;
    const account = await pool.transaction((tx) => insertAccount({ store }, tx, { username, showName: `ผู้แข่งขัน ${index + 1}`, passwordHash, role: 'user' }));
    const user = { id: account.id, username, showName: account.showName, role: account.role, rating: account.rating };
    const session = await openSession(signer, pool, { accessTokenTtlSeconds: 24 * 3_600, refreshTokenTtlSeconds: 24 * 3_600 }, user);
    contestants.push({ id: account.id, token: session.accessToken });
  }
  await signer.close();
  return contestants;
}

async function api(base: string, method: string, path: string, init: { token?: string; json?: unknown; headers?: Record<string, string>; body?: FormData } = {}) {
  const response = await fetch(`${base}/api${path}`, {
    method,
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    ...(init.body ? { body: init.body } : {}),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

/** Waits until `name` answers ready on its ops port again; null when it does not within the limit. */
async function recoveryOf(cluster: Cluster, name: string, since: number, limitMs: number): Promise<number | null> {
  const opsUrl = cluster.processes.find((process) => process.name === name)?.opsUrl;
  if (!opsUrl) return null;
  while (Date.now() - since < limitMs) {
    const answer = await fetch(`${opsUrl}/ready`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
    if (answer?.status === 200 && cluster.supervisor.pid(name) !== undefined) return Date.now() - since;
    await sleep(50);
  }
  return null;
}

const SCORES = 'contest_scores';

/** A slot table's rows, each as sorted JSON: the same rows compare equal whatever order Postgres returns them in. */
async function rowsOf(pool: DatabasePool, generation: number, table: string): Promise<string[]> {
  const rows = await pool.any(sql.unsafe`SELECT * FROM ${sql.identifier([slotTableName(SCORES, generation, table)])}`);
  return rows.map((row) => JSON.stringify(row, (_, value: unknown) => (typeof value === 'bigint' ? String(value) : value))).sort();
}

/**
 * Builds contest_scores again from the whole log into a new slot (the operator's `projections rebuild
 * --no-cutover`), waits for the live slot to reach the same position, and names the tables that differ.
 * A live slot reading Kafka has reached it when the relay has published that far and its consumer lag is 0.
 */
async function compareWithReplay(
  pool: DatabasePool,
  cluster: Pick<Cluster, 'databaseUrl' | 'kafkaBrokers'>,
  logger: Logger,
  settleMs: number,
): Promise<{ tables: number; differing: string[]; behind: boolean; source: 'pglog' | 'kafka' }> {
  const listener = createNotificationListener(cluster.databaseUrl, logger);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const definition = allProjections.find((projection) => projection.name === SCORES)!;
  const kafka = createKafkaTransport({
    pool,
    kafka: new Kafka({ clientId: 'otog-national-check', brokers: cluster.kafkaBrokers.split(','), logLevel: logLevel.NOTHING }),
    registry: otogEventRegistry,
    listener,
  });
  try {
    const code = await runCli(['projections', 'rebuild', SCORES, '--no-cutover'], {
      pool,
      store: createEventStore(pool, otogEventRegistry),
      listener,
      projections: allProjections,
      logger,
      out: sink,
      progress: sink,
      migrate: () => migrate(cluster.databaseUrl),
    });
    if (code !== 0) throw new Error(`projections rebuild ${SCORES} exited with ${code}`);
    const slots = await listSlots(pool, SCORES);
    const live = slots.find((slot) => slot.state === 'live');
    const built = slots.filter((slot) => slot.state === 'building').sort((a, b) => b.generation - a.generation)[0];
    if (!live || !built) throw new Error(`no live and rebuilt ${SCORES} slots to compare`);
    const caughtUp = async () => {
      const now = (await listSlots(pool, SCORES)).find((slot) => slot.generation === live.generation)!;
      if (now.source === 'pglog') return comparePositions(now, built) >= 0;
      if (comparePositions(await relayPosition(pool), built) < 0) return false;
      return (await kafka.consumerLag(slotConsumer(definition, live.generation))).every((lag) => lag.messages === 0);
    };
    for (const deadline = Date.now() + settleMs; !(await caughtUp()) && Date.now() < deadline; ) await sleep(100);
    const source = (await listSlots(pool, SCORES)).find((slot) => slot.generation === live.generation)!.source;
    // A live slot still behind the rebuild differs by what it has not folded yet: a capacity finding, not a wrong fold.
    if (!(await caughtUp())) return { tables: 0, differing: [], behind: true, source };
    const differing: string[] = [];
    for (const table of definition.tables) {
      const [a, b] = [await rowsOf(pool, live.generation, table), await rowsOf(pool, built.generation, table)];
      if (JSON.stringify(a) !== JSON.stringify(b)) differing.push(`${table} (${a.length} live rows, ${b.length} rebuilt)`);
    }
    return { tables: definition.tables.length, differing, behind: false, source };
  } finally {
    await kafka.close();
    await listener.close();
  }
}
/** Waits (up to `limitMs`) until the relay has published the whole log, as far as it reached when called. */
async function relayCaughtUp(pool: DatabasePool, limitMs: number): Promise<boolean> {
  const head = await createEventStore(pool, otogEventRegistry).headPosition();
  for (const deadline = Date.now() + limitMs; Date.now() < deadline; await sleep(100)) {
    if (comparePositions(await relayPosition(pool), head) >= 0) return true;
  }
  return false;
}

/** The claim-wait histogram summed over the API nodes' /metrics: the smallest bucket bound holding 99 % of the claims. */
async function queueWaitP99(cluster: Cluster): Promise<number | null> {
  const buckets = new Map<number, number>();
  for (const process of cluster.processes.filter((each) => each.role === 'api')) {
    const text = await fetch(`${process.opsUrl!}/metrics`).then((answer) => answer.text(), () => '');
    for (const match of text.matchAll(/^otog_judge_queue_wait_seconds_bucket\{[^}]*le="([^"]+)"[^}]*\} (\d+)$/gm)) {
      const bound = match[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(match[1]);
      buckets.set(bound, (buckets.get(bound) ?? 0) + Number(match[2]));
    }
  }
  const total = buckets.get(Number.POSITIVE_INFINITY) ?? 0;
  if (total === 0) return null;
  for (const [bound, count] of [...buckets].sort((a, b) => a[0] - b[0])) if (count >= 0.99 * total) return bound;
  return null;
}

/** Every message on the event topics, by event id (a relay restart may have published some twice). */
async function readTopics(brokers: string, expected: number): Promise<Map<string, number>> {
  const kafka = new Kafka({ clientId: 'otog-national-check', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `otog-national-check-${randomBytes(4).toString('hex')}` });
  const seen = new Map<string, number>();
  await consumer.connect();
  await consumer.subscribe({ topics: [...OTOG_TOPICS], fromBeginning: true });
  let last = Date.now();
  await consumer.run({
    eachMessage: async ({ message }) => {
      const id = message.headers?.[HEADERS.eventId]?.toString();
      if (id) seen.set(id, (seen.get(id) ?? 0) + 1);
      last = Date.now();
    },
  });
  // Until every expected event arrived, or nothing new came for a while.
  while (seen.size < expected && Date.now() - last < 15_000) await sleep(100);
  await consumer.disconnect();
  return seen;
}

/**
 * Verdict → board: for every ContestScoreChanged the projectors fed to Kafka once their batch had committed,
 * the time from the log event behind it (a verdict, a rejudge) being recorded to the message being produced.
 * From then on a board GET shows the change.
 */
async function verdictToBoard(brokers: string, pool: DatabasePool): Promise<{ p50: number; p99: number; changes: number }> {
  const kafka = new Kafka({ clientId: 'otog-national-check', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(contestScoreFeed.kafkaTopic).catch(() => []);
  await admin.disconnect();
  const expected = offsets.reduce((sum, { high, low }) => sum + Number(high) - Number(low), 0);
  const produced: Array<{ position: string; at: number }> = [];
  if (expected > 0) {
    const consumer = kafka.consumer({ groupId: `otog-national-feed-${randomBytes(4).toString('hex')}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topics: [contestScoreFeed.kafkaTopic], fromBeginning: true });
    let last = Date.now();
    await consumer.run({
      eachMessage: async ({ message }) => {
        const value = JSON.parse(message.value?.toString() ?? '{}') as { position?: unknown };
        if (typeof value.position === 'string') produced.push({ position: value.position, at: Number(message.timestamp) });
        last = Date.now();
      },
    });
    while (produced.length < expected && Date.now() - last < 10_000) await sleep(100);
    await consumer.disconnect();
  }
  const recorded = new Map(
    (
      await pool.any(sql.type(z.object({ position: z.string(), at: z.number() }))`
        SELECT txid::text || '/' || gpos AS position, extract(epoch FROM recorded_at)::float8 * 1000 AS at FROM event_log
        WHERE txid::text || '/' || gpos = ANY(${sql.array([...new Set(produced.map((each) => each.position))], 'text')})`)
    ).map((row) => [row.position, row.at]),
  );
  const delays = produced.flatMap(({ position, at }) => (recorded.has(position) ? [Math.max(0, at - recorded.get(position)!)] : []));
  return { p50: Math.round(percentile(delays, 50)), p99: Math.round(percentile(delays, 99)), changes: delays.length };
}

/** Runs one contestant client process (contestant-client.ts) over its share and answers what happened. */
function runClientProcess(share: ClientShare): Promise<ClientOutcome> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./contestant-client.ts', import.meta.url).pathname, [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let outcome: ClientOutcome | undefined;
    child.once('message', (message) => (outcome = message as ClientOutcome));
    child.once('error', reject);
    // 'exit' may come before the last message is read; the channel closes only after it has been delivered.
    child.once('disconnect', () => (outcome ? resolve(outcome) : reject(new Error(`a contestant client (pid ${child.pid}) ended without answering`))));
    child.send(share);
  });
}

export async function runNationalSimulation(options: SimulationOptions): Promise<SimulationReport> {
  const next = mulberry32(options.seed ?? 20_261_127);
  const jwtSecret = randomBytes(32).toString('hex');
  const adminPassword = 'national-admin-password';
  const cluster = await startCluster({
    dir: options.dir,
    apiNodes: options.apiNodes,
    judges: options.judges,
    projectors: 2,
    judgeSlots: options.judgeSlots,
    judgeProgram: new URL('./sim-judge.ts', import.meta.url).pathname,
    host: '127.0.0.1',
    port: 0,
    databaseUrl: options.databaseUrl,
    adminPassword,
    env: { PATH: process.env.PATH ?? '', JWT_SECRET: jwtSecret, JUDGE_LEASE_SECONDS: '5', LOG_LEVEL: 'warn' },
    ...(options.projectionSource ? { projectionSource: options.projectionSource } : {}),
    logger: options.logger,
  });
  const pool = await createDbPool(cluster.databaseUrl, { maximumPoolSize: 4 });
  const sockets: Socket[] = [];
  try {
    const lb = cluster.url;
    const admin = String(((await api(lb, 'POST', '/auth/login', { json: { username: 'admin', password: adminPassword } })).body as { accessToken: string }).accessToken);
    const problems = ((await api(lb, 'GET', '/problem', { token: admin })).body as Array<{ id: number }>).slice(0, 5).map((problem) => problem.id);
    const start = Date.now() + 2_000;
    const created = await api(lb, 'POST', '/contest', {
      token: admin,
      json: {
        name: 'การแข่งขันระดับชาติ (จำลอง)',
        mode: 'unrated',
        gradingMode: 'classic',
        scoreboardPolicy: 'DURING_CONTEST',
        timeStart: new Date(start).toISOString(),
        timeEnd: new Date(start + options.contestMs).toISOString(),
      },
    });
    const contestId = ContestIdRow.parse(created.body).id;
    await api(lb, 'PUT', `/contest/${contestId}/problems`, { token: admin, json: problems.map((problemId) => ({ problemId })) });
    const contestants = await seedContestants(pool, jwtSecret, options.contestants, `nat${contestId}_`);

    const chatSentAt = new Map<string, number>();
    const fanOutMs: number[] = [];
    // Chat clients connected through the balancer for the whole contest; a client that ever disconnects is not "steady".
    const chat = await Promise.all(
      contestants.slice(0, options.chatClients).map(async (contestant) => {
        const socket = io(lb, { path: '/socket.io', transports: ['websocket'], auth: { token: contestant.token }, reconnection: true, reconnectionDelay: 200 });
        sockets.push(socket);
        const client = { socket, received: new Set<number>(), steady: true };
        socket.on('disconnect', () => (client.steady = false));
        socket.on(REALTIME_EVENTS.chat, (message: unknown) => {
          if (!Array.isArray(message) || typeof message[0] !== 'number') return;
          client.received.add(message[0]);
          const sentAt = chatSentAt.get(String(message[1]));
          if (sentAt !== undefined) fanOutMs.push(Date.now() - sentAt);
        });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        return client;
      }),
    );

    // The plan: every submission's moment, fixed before the contest starts.
    const plan = contestants.flatMap((contestant) =>
      Array.from({ length: options.submissionsPerContestant }, (_, index) => ({
        contestant,
        key: `national-${contestId}-${contestant.id}-${index}`,
        problemId: problems[Math.floor(next() * problems.length)]!,
        at: start + Math.floor(arrivalMoment(next) * options.contestMs * (options.submitWithin ?? 0.98)),
        verdict: next() < 0.5 ? 'SIM_ACCEPT' : `SIM_PARTIAL:${Math.floor(next() * 100)}`,
      })),
    ).sort((a, b) => a.at - b.at);
    // The contestants submit from client processes of their own, each with its share of the plan.
    const clients = Math.max(1, Math.min(options.clientProcesses ?? 4, options.concurrency));
    const submitting = Promise.all(
      Array.from({ length: clients }, (_, client) =>
        runClientProcess({
          url: lb,
          contestId,
          giveUpAt: start + options.contestMs + 30_000,
          concurrency: Math.ceil(options.concurrency / clients),
          entries: plan
            .filter((_, index) => index % clients === client)
            .map(({ contestant, key, problemId, at, verdict }) => ({ token: contestant.token, key, problemId, at, verdict })),
        }),
      ),
    );

    const boardMs: number[] = [];
    let readersDone = false;
    const readers = Array.from({ length: options.scoreboardReaders }, async (_, index) => {
      const reader = contestants[index % contestants.length]!;
      while (!readersDone) {
        const sent = Date.now();
        const answer = await api(lb, 'GET', `/contest/${contestId}/scoreboard`, { token: reader.token }).catch(() => null);
        if (answer?.status === 200) boardMs.push(Date.now() - sent);
        await sleep(500);
      }
    });

    const sentChats: number[] = [];
    const talker = (async () => {
      for (let index = 0; index < options.chatMessages && chat.length > 0; index += 1) {
        await sleep(options.contestMs / (options.chatMessages + 1));
        const speaker = chat[index % chat.length]!;
        const text = `ข้อความที่ ${index + 1}`;
        chatSentAt.set(text, Date.now());
        const ack = (await speaker.socket.timeout(5_000).emitWithAck(REALTIME_EVENTS.chatServer, text).catch(() => null)) as { ok?: boolean; id?: number } | null;
        if (ack?.ok && typeof ack.id === 'number') sentChats.push(ack.id);
      }
    })();

    const faults: Array<{ process: string; recoveredMs: number | null }> = [];
    const injector = (async () => {
      for (const fault of options.faults) {
        await sleep(start + fault.atMs - Date.now());
        const candidates = cluster.processes.filter((process) => process.role === fault.target && cluster.supervisor.pid(process.name) !== undefined);
        const victim = candidates[Math.floor(next() * candidates.length)];
        if (!victim) continue;
        const killedAt = Date.now();
        await cluster.supervisor.kill(victim.name);
        faults.push({ process: victim.name, recoveredMs: await recoveryOf(cluster, victim.name, killedAt, 60_000) });
      }
    })();

    const [outcomes] = await Promise.all([submitting, injector, talker]);
    const submittedAll = Date.now();
    const accepted = new Map(outcomes.flatMap((outcome) => outcome.accepted));
    const postMs = outcomes.flatMap((outcome) => outcome.postMs);
    const retries = outcomes.reduce((sum, outcome) => sum + outcome.retries, 0);
    const refusals: Record<string, number> = {};
    for (const outcome of outcomes) for (const [reason, count] of Object.entries(outcome.refusals)) refusals[reason] = (refusals[reason] ?? 0) + count;
    const refused = Object.values(refusals).reduce((sum, count) => sum + count, 0);
    // Every accepted submission judged: the simulated judges answer within a lease or two of a kill.
    const ids = [...accepted.values()];
    const judgedCount = async () =>
      (await pool.one(sql.type(CountRow)`
        SELECT count(DISTINCT (data->>'submissionId')::int)::int AS count FROM event_log
        WHERE type = 'SubmissionJudged' AND (data->>'submissionId')::int = ANY(${sql.array(ids, 'int4')})`)).count;
    let judged = await judgedCount();
    const settleMs = options.settleMs ?? 120_000;
    while (judged < ids.length && Date.now() - submittedAll < settleMs) {
      await sleep(250);
      judged = await judgedCount();
    }
    const judgedWithinMs = Date.now() - submittedAll;
    readersDone = true;
    await Promise.all(readers);
    await sleep(1_000);

    const createdRows = await pool.any(sql.type(CreatedRow)`
      SELECT (data->>'submissionId')::int AS "submissionId", count(*)::int AS copies FROM event_log
      WHERE type = 'SubmissionCreated' AND scope = ${`contest:${contestId}`} GROUP BY 1`);
    const createdIds = new Set(createdRows.map((row) => row.submissionId));
    const doubled = createdRows.filter((row) => row.copies > 1).length;
    const lost = ids.filter((id) => !createdIds.has(id)).length;
    const distinctAccepted = new Set(ids).size;

    const relayed = await relayCaughtUp(pool, settleMs);
    const logEvents = await pool.any(sql.type(EventIdRow)`SELECT event_id::text AS "eventId" FROM event_log`);
    const onTopics = await readTopics(cluster.kafkaBrokers, logEvents.length);
    const missing = logEvents.filter((row) => !onTopics.has(row.eventId)).length;
    const duplicates = [...onTopics.values()].reduce((sum, copies) => sum + copies - 1, 0);

    const queueWaitP99Seconds = await queueWaitP99(cluster);
    const verdictToBoardMs = await verdictToBoard(cluster.kafkaBrokers, pool);
    const replay = await compareWithReplay(pool, cluster, options.logger, settleMs);

    const steady = chat.filter((client) => client.steady);
    const chatMissing = steady.reduce((sum, client) => sum + sentChats.filter((id) => !client.received.has(id)).length, 0);

    const checks: Check[] = [
      { name: 'every 2xx submission is in the log exactly once', ok: lost === 0 && doubled === 0 && distinctAccepted === ids.length, detail: `${ids.length} answered 2xx, ${lost} missing, ${doubled} doubled` },
      { name: 'every accepted submission reached a final status', ok: judged === ids.length, detail: `${judged} of ${ids.length} judged` },
      {
        name: 'the scoreboard, histories and prizes equal a fresh replay of the log',
        ok: !replay.behind && replay.differing.length === 0,
        detail: `${replay.source === 'kafka' ? 'folded from Kafka' : 'folded from the log'}: ${
          replay.behind
            ? `the live slot had not reached the rebuild's position ${settleMs / 1000} s later`
            : replay.differing.length === 0
              ? `${replay.tables} tables equal`
              : `differ: ${replay.differing.join(', ')}`
        }`,
      },
      {
        name: 'every event of the log is on its Kafka topic',
        ok: relayed && missing === 0,
        detail: `${logEvents.length} events, ${missing} missing, ${duplicates} duplicate messages${relayed ? '' : `; the relay had not reached the head ${settleMs / 1000} s later`}`,
      },
      { name: 'every chat message reached every steady client', ok: chatMissing === 0, detail: `${sentChats.length} messages, ${steady.length} steady clients, ${chatMissing} misses` },
      { name: 'every killed process came back', ok: faults.every((fault) => fault.recoveredMs !== null), detail: faults.map((fault) => `${fault.process} ${fault.recoveredMs ?? 'never'} ms`).join(', ') },
    ];
    const span = Math.max(1, (submittedAll - start) / 1_000);
    return {
      checks,
      submissions: { intended: plan.length, accepted: ids.length, refused, retries, refusals },
      postMs: { p50: percentile(postMs, 50), p99: percentile(postMs, 99), perSecond: ids.length / span },
      scoreboardGetMs: { p50: percentile(boardMs, 50), p99: percentile(boardMs, 99), reads: boardMs.length },
      judgedWithinMs,
      faults,
      kafka: { logEvents: logEvents.length, messages: [...onTopics.values()].reduce((a, b) => a + b, 0), missing, duplicates },
      chat: { sent: sentChats.length, steadyClients: steady.length, missing: chatMissing, fanOutP99Ms: percentile(fanOutMs, 99) },
      queueWaitP99Seconds,
      verdictToBoardMs,
    };
  } finally {
    for (const socket of sockets) socket.disconnect();
    await pool.end();
    await cluster.stop();
  }
}
