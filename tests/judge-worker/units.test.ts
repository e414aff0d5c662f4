/**
 * The worker's parts without a sandbox: configuration (every bad variable named at once), the API client
 * (requests checked and responses parsed with the contract; 409 is a lost lease) and the test-case
 * reporter (one request at a time, bursts batched, retries, a lost lease stops it).
 */
import { describe, expect, it } from 'vitest';
import { JudgeConfigError, readLocalConfig, readWorkerConfig } from '@otog/judge/config';
import { clipFailMessage, createJudgeApiClient, createTestcaseReporter, JudgeApiRequestError, LeaseLostError, type JudgeApiClient, type TestcaseResult } from '@otog/judge/worker/index';

const TOKEN = `otogw_${'a'.repeat(43)}`;
const lease = { worker: 'w1', judging: 1, attempt: 1 };
const task = {
  submissionId: 5,
  judging: 1,
  attempt: 1,
  leaseUntil: '2030-01-01T00:00:00.000Z',
  language: 'cpp',
  sourceCode: 'int main(){}',
  fileName: null,
  contest: false,
  problem: { id: 1, score: 100, timeLimit: 1000, memoryLimit: 256, case: '3', testdataHash: 'a'.repeat(64) },
};

describe('configuration', () => {
  it('reads a complete worker environment with defaults', () => {
    expect(readWorkerConfig({ OTOG_API_URL: 'http://api:3000', OTOG_JUDGE_WORKER: 'w1', OTOG_JUDGE_TOKEN: TOKEN })).toEqual({
      apiUrl: 'http://api:3000',
      worker: 'w1',
      token: TOKEN,
      slots: 1,
      cacheDir: '/var/lib/otog-judge/cache',
      cacheKeep: 32,
      claimWaitMs: 20_000,
      checkerTimeLimitMs: 60_000,
      stopWithStdin: false,
      sandbox: { mode: 'bwrap', rootDir: '/var/lib/otog-judge/sandbox', firstUid: 60100, cgroupParent: 'otog-judge' },
    });
    expect(readWorkerConfig({ OTOG_API_URL: 'http://api:3000', OTOG_JUDGE_WORKER: 'w1', OTOG_JUDGE_TOKEN: TOKEN, OTOG_JUDGE_STOP_WITH_STDIN: '1' }).stopWithStdin).toBe(true);
    expect(() => readWorkerConfig({ OTOG_API_URL: 'http://api:3000', OTOG_JUDGE_WORKER: 'w1', OTOG_JUDGE_TOKEN: TOKEN, OTOG_JUDGE_STOP_WITH_STDIN: 'yes' })).toThrow(
      /OTOG_JUDGE_STOP_WITH_STDIN: must be 0 or 1/,
    );
  });

  it('names every bad or missing variable at once', () => {
    let error: unknown;
    try {
      readWorkerConfig({
        OTOG_API_URL: 'ftp://nope',
        OTOG_JUDGE_SLOTS: 'many',
        OTOG_SANDBOX: 'docker',
        OTOG_JUDGE_CHECKER_TIME_LIMIT_MS: '120000',
        OTOG_JUDGE_CACHE_DIR: 'relative/dir',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(JudgeConfigError);
    const problems = (error as JudgeConfigError).problems.join('\n');
    for (const name of ['OTOG_API_URL', 'OTOG_JUDGE_WORKER', 'OTOG_JUDGE_TOKEN', 'OTOG_JUDGE_SLOTS', 'OTOG_SANDBOX', 'OTOG_JUDGE_CHECKER_TIME_LIMIT_MS', 'OTOG_JUDGE_CACHE_DIR']) {
      expect(problems).toContain(name);
    }
    expect(problems).toContain('OTOG_JUDGE_WORKER: is required but not set');
    expect(problems).toMatch(/OTOG_JUDGE_CHECKER_TIME_LIMIT_MS: must be at most 60000/);
  });

  it('the local command: its own uid range by default', () => {
    expect(readLocalConfig({})).toEqual({ sandboxMode: 'bwrap', firstUid: 60500, checkerTimeLimitMs: 60_000 });
    expect(() => readLocalConfig({ OTOG_SANDBOX: 'none' })).toThrow(/OTOG_SANDBOX: must be "bwrap" or "unsafe"/);
  });
});

type Call = { url: string; method: string; headers: Record<string, string>; body: unknown };

function fakeFetch(answer: (call: Call) => { status: number; body?: unknown; raw?: Uint8Array; headers?: Record<string, string> }) {
  const calls: Call[] = [];
  const fetcher = (async (input: URL | string | Request, init?: RequestInit) => {
    const call: Call = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const { status, body, raw, headers } = answer(call);
    if (raw) return new Response(raw, { status, headers });
    return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  }) as typeof fetch;
  return { fetcher, calls };
}

describe('the API client', () => {
  it('claims with the bearer token and parses the tasks with the contract', async () => {
    const { fetcher, calls } = fakeFetch(() => ({ status: 200, body: { tasks: [task] } }));
    const client = createJudgeApiClient({ baseUrl: 'http://api:3000/', token: TOKEN, fetch: fetcher });
    const tasks = await client.claim({ worker: 'w1', languages: ['cpp'], capacity: 2, waitMs: 100 });
    expect(tasks).toEqual([task]);
    expect(calls[0]).toMatchObject({
      url: 'http://api:3000/api/internal/judge/claim',
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: { worker: 'w1', languages: ['cpp'], capacity: 2, waitMs: 100 },
    });
  });

  it('refuses an answer that does not match the contract', async () => {
    const { fetcher } = fakeFetch(() => ({ status: 200, body: { tasks: [{ ...task, language: 'java' }] } }));
    const client = createJudgeApiClient({ baseUrl: 'http://api:3000', token: TOKEN, fetch: fetcher });
    await expect(client.claim({ worker: 'w1', languages: ['cpp'], capacity: 1, waitMs: 0 })).rejects.toThrow(/does not match the contract/);
  });

  it('never sends a request the contract refuses', async () => {
    const { fetcher, calls } = fakeFetch(() => ({ status: 200, body: { ok: true } }));
    const client = createJudgeApiClient({ baseUrl: 'http://api:3000', token: TOKEN, fetch: fetcher });
    await expect(client.reportTestcases(5, lease, [{ testNumber: 1, outcome: { status: 'PARTIAL', timeUsed: 1, memUsed: 1 } }])).rejects.toThrow(/percent/);
    expect(calls).toEqual([]);
  });

  it('409 is a lost lease; 5xx and network errors are transient; the API message is kept', async () => {
    const answers = [
      { status: 409, body: { message: 'stale lease: submission 5' } },
      { status: 503, body: { message: 'database down' } },
      { status: 400, body: { message: 'bad report' } },
    ];
    const { fetcher } = fakeFetch(() => answers.shift()!);
    const client = createJudgeApiClient({ baseUrl: 'http://api:3000', token: TOKEN, fetch: fetcher });
    const lost = await client.heartbeat(5, lease).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(LeaseLostError);
    expect((lost as Error).message).toBe('stale lease: submission 5');
    const down = await client.heartbeat(5, lease).catch((error: unknown) => error);
    expect(down).toMatchObject({ status: 503, transient: true });
    expect((down as Error).message).toContain('database down');
    expect(await client.heartbeat(5, lease).catch((error: unknown) => error)).toMatchObject({ status: 400, transient: false });
    const offline = createJudgeApiClient({ baseUrl: 'http://api:3000', token: TOKEN, fetch: (async () => Promise.reject(new TypeError('fetch failed'))) as typeof fetch });
    expect(await offline.heartbeat(5, lease).catch((error: unknown) => error)).toMatchObject({ status: 0, transient: true });
  });

  it('fail messages are clipped to the contract maximum', async () => {
    const { fetcher, calls } = fakeFetch(() => ({ status: 200, body: { ok: true } }));
    const client = createJudgeApiClient({ baseUrl: 'http://api:3000', token: TOKEN, fetch: fetcher });
    await client.fail(5, lease, 'x'.repeat(10_000));
    expect((calls[0]!.body as { message: string }).message.length).toBe(4_000);
    expect(clipFailMessage('  ')).toBe('unknown error');
  });

  it('downloads test data, refusing more than the maximum', async () => {
    const zip = new Uint8Array(1000).fill(7);
    const { fetcher, calls } = fakeFetch(() => ({ status: 200, raw: zip, headers: { 'content-type': 'application/zip' } }));
    const client = createJudgeApiClient({ baseUrl: 'http://api:3000', token: TOKEN, fetch: fetcher });
    expect(Buffer.from(await client.downloadTestdata('b'.repeat(64), 1000)).equals(Buffer.from(zip))).toBe(true);
    expect(calls[0]).toMatchObject({ url: `http://api:3000/api/internal/judge/testdata/${'b'.repeat(64)}`, method: 'GET' });
    await expect(client.downloadTestdata('b'.repeat(64), 999)).rejects.toMatchObject({ status: 413 });
  });
});

describe('the test-case reporter', () => {
  const result = (testNumber: number): TestcaseResult => ({ testNumber, outcome: { status: 'ACCEPTED', timeUsed: 1, memUsed: 100 } });

  function slowClient(behaviour: (batch: readonly TestcaseResult[], call: number) => Promise<void>) {
    const batches: number[][] = [];
    const client = {
      async reportTestcases(_id: number, _lease: unknown, results: readonly TestcaseResult[]) {
        batches.push(results.map((entry) => entry.testNumber));
        await behaviour(results, batches.length);
      },
    } as unknown as JudgeApiClient;
    return { client, batches };
  }

  it('sends the first result at once and batches what finishes meanwhile', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { client, batches } = slowClient((_batch, call) => (call === 1 ? gate : Promise.resolve()));
    const reporter = createTestcaseReporter({ client, submissionId: 5, lease, onLeaseLost: () => {} });
    reporter.push(result(1));
    reporter.push(result(2));
    reporter.push(result(3));
    release();
    await reporter.flush();
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it('retries transient failures, then succeeds', async () => {
    const { client, batches } = slowClient(async (_batch, call) => {
      if (call < 3) throw new JudgeApiRequestError(503, 'busy');
    });
    const reporter = createTestcaseReporter({ client, submissionId: 5, lease, onLeaseLost: () => {}, backoffMs: 1 });
    reporter.push(result(1));
    await reporter.flush();
    expect(batches).toEqual([[1], [1], [1]]);
  });

  it('a 409 stops reporting and tells the task its lease is gone', async () => {
    const { client, batches } = slowClient(async () => {
      throw new LeaseLostError('stale lease');
    });
    const lost: Error[] = [];
    const reporter = createTestcaseReporter({ client, submissionId: 5, lease, onLeaseLost: (error) => void lost.push(error) });
    reporter.push(result(1));
    await expect(reporter.flush()).rejects.toBeInstanceOf(LeaseLostError);
    reporter.push(result(2));
    await expect(reporter.flush()).rejects.toBeInstanceOf(LeaseLostError);
    expect(batches).toEqual([[1]]);
    expect(lost).toHaveLength(1);
  });
});
