import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appContract, ReadinessSchema } from '@otog/schemas/api/app';
import { buildApp } from '../../services/api/src/app.ts';
import { startOpsServer } from '../../services/api/src/ops/ops-server.ts';
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
      expect((await ready()).body.status).toBe('stopping');
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
