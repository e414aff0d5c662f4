import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appContract, ReadinessSchema } from '@otog/schemas/api/app';
import { buildApp } from '../../services/api/src/app.ts';
import { createProcessMetrics } from '../../services/api/src/ops/metrics.ts';
import { startOpsServer } from '../../services/api/src/ops/ops-server.ts';
import { addRoleGauges } from '../../services/api/src/ops/role-metrics.ts';
import { createReadiness } from '../../services/api/src/ops/readiness.ts';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());

describe('health probes', () => {
  it('answers liveness without checks, and readiness from the database', async () => {
    expect(await stack.expectCall(appContract.health, 200)).toEqual({ status: 'ok' });
    const ready = ReadinessSchema.parse(await stack.expectCall(appContract.ready, 200));
    expect(ready).toMatchObject({ status: 'ready', checks: { database: 'ok' } });
  });

  it('reports starting, a failing or hanging dependency, and stopping as 503 with the check named', async () => {
    const readiness = createReadiness({ roles: ['api'] });
    const app = buildApp({ readiness });
    const ready = async () => {
      const response = await app.inject({ method: 'GET', url: '/api/health/ready' });
      return { status: response.statusCode, body: ReadinessSchema.parse(response.json()) };
    };
    try {
      expect(await ready()).toEqual({ status: 503, body: { status: 'starting', roles: ['api'], checks: {} } });
      readiness.markStarted();
      expect(await ready()).toEqual({ status: 200, body: { status: 'ready', roles: ['api'], checks: {} } });

      let redisUp = false;
      readiness.addCheck('redis', async () => {
        if (!redisUp) throw new Error('connect ECONNREFUSED 10.0.0.7:6379');
      });
      const failing = await ready();
      expect(failing).toEqual({ status: 503, body: { status: 'failing', roles: ['api'], checks: { redis: 'failing' } } });
      // The error's text (addresses inside the network) stays in the logs.
      expect(JSON.stringify(failing.body)).not.toContain('10.0.0.7');
      redisUp = true;
      expect((await ready()).status).toBe(200);

      readiness.addCheck('database', () => new Promise(() => {}));
      const started = Date.now();
      expect(await ready()).toMatchObject({ status: 503, body: { status: 'failing', checks: { database: 'timeout', redis: 'ok' } } });
      expect(Date.now() - started).toBeLessThan(5_000);

      readiness.markStopping();
      readiness.markStarted();
      // The hanging check is not run any more: the answer comes at once, naming no check.
      const stoppingAt = Date.now();
      expect(await ready()).toEqual({ status: 503, body: { status: 'stopping', roles: ['api'], checks: {} } });
      expect(Date.now() - stoppingAt).toBeLessThan(1_000);
    } finally {
      await app.close();
    }
  });

  it('serves /health and /ready on the ops port of a process without the api role', async () => {
    const readiness = createReadiness({ roles: ['projector'] });
    const ops = await startOpsServer({ host: '127.0.0.1', port: 0, readiness });
    const get = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${ops.port}${path}`);
      return { status: response.status, body: (await response.json()) as unknown };
    };
    try {
      expect(await get('/health')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await get('/ready')).toEqual({ status: 503, body: { status: 'starting', roles: ['projector'], checks: {} } });
      readiness.markStarted();
      expect((await get('/ready')).status).toBe(200);
      expect((await get('/metrics?x')).status).toBe(404);
    } finally {
      await ops.close();
    }
  });
});

/** The value of one series in Prometheus text, its labels in any order; undefined when absent. */
function sampleOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (JSON.stringify(Object.entries(found).sort()) === JSON.stringify(Object.entries(labels).sort())) return Number(match[3]);
  }
  return undefined;
}

describe('metrics', () => {
  it('serves HTTP latency by route pattern and the roles’ gauges on the ops port', async () => {
    const metrics = createProcessMetrics({ roles: ['api', 'projector', 'relay', 'judge-queue'] });
    const app = buildApp({ httpDuration: metrics.httpDuration });
    addRoleGauges(metrics, { pool: stack.deps.pool, store: stack.deps.store, roles: ['projector', 'relay', 'judge-queue'] });
    metrics.judgeQueueWait.observe(0.3);
    const ops = await startOpsServer({ host: '127.0.0.1', port: 0, readiness: createReadiness({ roles: [] }), metrics: metrics.registry });
    try {
      await app.inject({ method: 'GET', url: '/api/time' });
      await app.inject({ method: 'GET', url: '/api/problem/12345/no-such-thing' });
      const response = await fetch(`http://127.0.0.1:${ops.port}/metrics`);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const text = await response.text();
      const roles = 'api,projector,relay,judge-queue';
      expect(sampleOf(text, 'otog_http_request_duration_seconds_count', { roles, method: 'GET', route: '/api/time', status: '200' })).toBe(1);
      // An unmatched URL is one series, whatever the URL.
      expect(sampleOf(text, 'otog_http_request_duration_seconds_count', { roles, method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
      expect(text).not.toContain('12345');
      expect(sampleOf(text, 'otog_judge_queue_wait_seconds_count', { roles })).toBe(1);
      expect(sampleOf(text, 'otog_judge_queue_tasks', { roles, state: 'queued' })).toEqual(expect.any(Number));
      expect(sampleOf(text, 'otog_relay_lag_events', { roles })).toEqual(expect.any(Number));
      for (const projection of ['submissions', 'contest_scores']) {
        expect(sampleOf(text, 'otog_projection_lag_events', { roles, projection, generation: '1', state: 'live' })).toBe(0);
      }
      expect(text).toContain('process_cpu_seconds_total');
    } finally {
      await ops.close();
      await app.close();
    }
  });
});
