/**
 * The HTTP client side of the API bench, run in a child process (`runLoad`, `runProbe`, `startBackgroundLoad`)
 * so the load generator does not share an event loop with the server it measures (the API runs in the
 * bench's own process). Load is autocannon (closed loop: each connection sends its next request when the
 * previous answer arrived); latencies are taken from every response at full precision (autocannon's own
 * histogram rounds to whole milliseconds). Background load at a rate is paced here with fetch (autocannon's
 * rate sends each connection's quota in a burst at every second). The probe is a sequential loop of
 * POST + GETs with fetch, for the POST→visible time.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './services.ts';
import { summarize } from './stats.ts';

export interface ConnectionRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface LoadSpec {
  /** http://127.0.0.1:port */
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** Connection i sends requests[i % length] over and over (its own user, problem, ...). */
  readonly requests: readonly ConnectionRequest[];
  /** Same for every request (a multipart body is ASCII here). */
  readonly body?: string;
  readonly connections: number;
  /** Discarded run before the measured one (JIT, caches, connection set-up). */
  readonly warmupMs: number;
  readonly durationMs: number;
}

/** Open-loop load: requests sent at evenly spaced times, whatever the answers' latency (submissions arriving at a rate). */
export interface PacedSpec {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  /** Request i is requests[i % length]. */
  readonly requests: readonly ConnectionRequest[];
  readonly body?: string;
  readonly perSecond: number;
}

export interface LoadResult {
  readonly requests: number;
  /** 2xx answers. */
  readonly ok: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  /** Connection errors and timeouts. */
  readonly errors: number;
  readonly durationMs: number;
  /** 2xx answers per second. */
  readonly okPerSecond: number;
  /** Over every answer (any status), ms. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly bytesPerResponse: number;
  /** CPU time the load generator itself used while measuring, ms. */
  readonly clientCpuMs: number;
}

export interface ProbeSpec {
  readonly url: string;
  readonly postPath: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The list page polled until the new id is on it. */
  readonly listPath: string;
  readonly count: number;
  /** A submission not visible after this long fails the probe. */
  readonly giveUpMs: number;
}

export interface ProbeResult {
  /** POST round trip, ms. */
  readonly post: readonly number[];
  /** From sending the POST to the end of the first GET whose page holds the new id, ms. */
  readonly visible: readonly number[];
  /** GETs needed per submission (1: visible on the first GET after the POST answered). */
  readonly gets: readonly number[];
}

type Job = { kind: 'load'; spec: LoadSpec } | { kind: 'paced'; spec: PacedSpec } | { kind: 'probe'; spec: ProbeSpec };
type Reply = { kind: 'started' } | { kind: 'done'; result: LoadResult | ProbeResult } | { kind: 'failed'; error: string };

const CHILD = fileURLToPath(import.meta.url);

/** One job in a fresh child process; `control` can stop an open-ended load early. */
function runInChild<T>(job: Job): { started: Promise<void>; result: Promise<T>; stop(): void } {
  const child: ChildProcess = fork(CHILD, ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const kill = onCleanup(`load generator ${child.pid}`, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const result = new Promise<T>((resolve, reject) => {
    child.on('message', (message: Reply) => {
      if (message.kind === 'started') markStarted();
      else if (message.kind === 'done') resolve(message.result as T);
      else reject(new Error(`load generator: ${message.error}`));
    });
    child.on('exit', (code, signal) => reject(new Error(`load generator exited (${code ?? signal}) without a result`)));
    child.on('error', reject);
  }).finally(() => {
    markStarted();
    void kill();
  });
  child.send(job);
  return { started, result, stop: () => child.connected && child.send({ kind: 'stop' }) };
}

/** `onStarted` runs when the warm-up is over and the measured part begins. */
export function runLoad(spec: LoadSpec, onStarted?: () => void): Promise<LoadResult> {
  const run = runInChild<LoadResult>({ kind: 'load', spec });
  if (onStarted) void run.started.then(onStarted);
  return run.result;
}

/** Paced load until `stop()`; `started` resolves when the first request is due. */
export function startBackgroundLoad(spec: PacedSpec): { started: Promise<void>; stop(): Promise<LoadResult> } {
  const run = runInChild<LoadResult>({ kind: 'paced', spec });
  return {
    started: run.started,
    stop() {
      run.stop();
      return run.result;
    },
  };
}

export function runProbe(spec: ProbeSpec): Promise<ProbeResult> {
  return runInChild<ProbeResult>({ kind: 'probe', spec }).result;
}

// ---- child side ----

interface AutocannonClient {
  setRequests(requests: Array<{ path: string; method: string; headers: Record<string, string>; body?: string }>): void;
}
interface AutocannonInstance {
  on(event: 'response', listener: (client: AutocannonClient, statusCode: number, resBytes: number, responseTime: number) => void): void;
}
interface AutocannonSummary {
  errors: number;
  timeouts: number;
}
type Autocannon = (
  options: Record<string, unknown>,
  done: (error: Error | null, result: AutocannonSummary) => void,
) => AutocannonInstance;

/** What a run collects, turned into a LoadResult at its end. */
function recorder() {
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  let ok = 0;
  let bytes = 0;
  let errors = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  return {
    response(statusCode: number, resBytes: number, responseTime: number) {
      latencies.push(responseTime);
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) ok += 1;
      bytes += resBytes;
    },
    error() {
      errors += 1;
    },
    result(extraErrors = 0): LoadResult {
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(cpu);
      const s = summarize(latencies);
      return {
        requests: latencies.length,
        ok,
        statusCounts,
        errors: errors + extraErrors,
        durationMs: elapsed,
        okPerSecond: (ok / elapsed) * 1000,
        p50: s.p50,
        p99: s.p99,
        max: s.max,
        bytesPerResponse: latencies.length ? bytes / latencies.length : 0,
        clientCpuMs: (used.user + used.system) / 1000,
      };
    },
  };
}

async function childLoad(spec: LoadSpec, send: (reply: Reply) => void): Promise<LoadResult> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const run = (durationMs: number, measure: boolean) =>
    new Promise<LoadResult>((resolve, reject) => {
      let next = 0;
      const record = recorder();
      const instance = autocannon(
        {
          url: spec.url,
          method: spec.method,
          connections: spec.connections,
          duration: durationMs / 1000,
          ...(spec.body === undefined ? {} : { body: spec.body }),
          timeout: 30,
          setupClient(client: AutocannonClient) {
            const request = spec.requests[next % spec.requests.length]!;
            next += 1;
            // Its own request list: setRequest would only change the first request, and the default list
            // is shared by every connection.
            client.setRequests([{ path: request.path, method: spec.method, headers: { ...request.headers }, ...(spec.body === undefined ? {} : { body: spec.body }) }]);
          },
        },
        (error, summary) => (error ? reject(error) : resolve(record.result(summary.errors + summary.timeouts))),
      );
      if (measure) instance.on('response', (_client, statusCode, resBytes, responseTime) => record.response(statusCode, resBytes, responseTime));
    });
  if (spec.warmupMs > 0) await run(spec.warmupMs, false);
  send({ kind: 'started' });
  return run(spec.durationMs, true);
}

async function childPaced(spec: PacedSpec, send: (reply: Reply) => void): Promise<LoadResult> {
  let stopped = false;
  process.on('message', (message: { kind?: string }) => {
    if (message.kind === 'stop') stopped = true;
  });
  const record = recorder();
  const inflight = new Set<Promise<void>>();
  const interval = 1000 / spec.perSecond;
  const start = performance.now();
  send({ kind: 'started' });
  for (let i = 0; !stopped; i += 1) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const request = spec.requests[i % spec.requests.length]!;
    const t0 = performance.now();
    const sent = fetch(`${spec.url}${request.path}`, { method: spec.method, headers: { ...request.headers }, ...(spec.body === undefined ? {} : { body: spec.body }) })
      .then(async (response) => {
        const bytes = (await response.arrayBuffer()).byteLength;
        record.response(response.status, bytes, performance.now() - t0);
      })
      .catch(() => record.error());
    inflight.add(sent);
    void sent.finally(() => inflight.delete(sent));
  }
  await Promise.all(inflight);
  return record.result();
}

function idsOnPage(body: unknown): number[] {
  const rows = Array.isArray(body) ? body : Array.isArray((body as { data?: unknown } | null)?.data) ? (body as { data: unknown[] }).data : [];
  return rows.map((row) => Number((row as { id?: unknown }).id));
}

async function childProbe(spec: ProbeSpec): Promise<ProbeResult> {
  const post: number[] = [];
  const visible: number[] = [];
  const gets: number[] = [];
  const auth = { authorization: spec.headers.authorization ?? '' };
  for (let i = 0; i < spec.count; i += 1) {
    const t0 = performance.now();
    const response = await fetch(`${spec.url}${spec.postPath}`, { method: 'POST', headers: { ...spec.headers }, body: spec.body });
    const text = await response.text();
    const t1 = performance.now();
    if (!response.ok) throw new Error(`POST ${spec.postPath} answered ${response.status}: ${text.slice(0, 300)}`);
    const created = JSON.parse(text) as { id?: unknown; submission?: { id?: unknown } };
    const id = Number(created.id ?? created.submission?.id);
    if (!Number.isInteger(id)) throw new Error(`POST ${spec.postPath} answered without an id: ${text.slice(0, 300)}`);
    for (let n = 1; ; n += 1) {
      const page = await fetch(`${spec.url}${spec.listPath}`, { headers: auth });
      const body: unknown = await page.json();
      const t2 = performance.now();
      if (!page.ok) throw new Error(`GET ${spec.listPath} answered ${page.status}`);
      if (idsOnPage(body).includes(id)) {
        post.push(t1 - t0);
        visible.push(t2 - t0);
        gets.push(n);
        break;
      }
      if (t2 - t0 > spec.giveUpMs) throw new Error(`submission ${id} not on ${spec.listPath} after ${spec.giveUpMs} ms`);
    }
  }
  return { post, visible, gets };
}

if (process.argv[2] === '--child' && process.send) {
  const send = (reply: Reply) => process.send!(reply);
  process.once('message', (job: Job) => {
    const work = job.kind === 'load' ? childLoad(job.spec, send) : job.kind === 'paced' ? childPaced(job.spec, send) : childProbe(job.spec);
    work.then(
      (result) => send({ kind: 'done', result }),
      (error: unknown) => send({ kind: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    ).finally(() => process.disconnect());
  });
}
