/**
 * The judge host's ops port (OTOG_JUDGE_OPS_PORT): GET /health (liveness), GET /ready (200 while the worker
 * claims; 503 while its sandbox starts or it drains) and GET /metrics (Prometheus: slots, busy slots, tasks
 * ended by status, judging time, and Node's own figures).
 */
import { createServer } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface JudgeOps {
  /** Pass to the worker as its onTaskEnded. */
  taskEnded(outcome: { readonly status: string; readonly seconds: number }): void;
  /** The running worker's figures, read on each scrape; until set the host is not ready. */
  attach(worker: { readonly slots: number; readonly active: number }): void;
  markDraining(): void;
  close(): Promise<void>;
}

export async function startJudgeOps(options: { host: string; port: number; worker: string }): Promise<JudgeOps> {
  const registry = new Registry();
  registry.setDefaultLabels({ worker: options.worker });
  collectDefaultMetrics({ register: registry });
  let worker: { readonly slots: number; readonly active: number } | undefined;
  let draining = false;
  new Gauge({ name: 'otog_judge_slots', help: 'Sandbox slots of this judge host', registers: [registry], collect() { this.set(worker?.slots ?? 0); } });
  new Gauge({ name: 'otog_judge_slots_busy', help: 'Slots judging a submission now', registers: [registry], collect() { this.set(worker?.active ?? 0); } });
  const ended = new Counter({ name: 'otog_judge_judged_total', help: 'Tasks ended on this host: the verdict status, or gaveBack / leaseLost', labelNames: ['status'], registers: [registry] });
  const duration = new Histogram({
    name: 'otog_judge_duration_seconds',
    help: 'Time from claim to the end of a task on this host',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });

  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(body);
    };
    const json = 'application/json; charset=utf-8';
    if (path === '/health') return send(200, json, JSON.stringify({ status: 'ok' }));
    if (path === '/ready') {
      const status = draining ? 'stopping' : worker ? 'ready' : 'starting';
      return send(status === 'ready' ? 200 : 503, json, JSON.stringify({ status }));
    }
    if (path === '/metrics') {
      void registry.metrics().then(
        (text) => send(200, registry.contentType, text),
        () => send(500, json, JSON.stringify({ message: 'collecting the metrics failed' })),
      );
      return;
    }
    send(404, json, JSON.stringify({ message: `Not found: ${path}; try /health, /ready or /metrics` }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    taskEnded: ({ status, seconds }) => {
      ended.inc({ status });
      duration.observe(seconds);
    },
    attach: (running) => void (worker = running),
    markDraining: () => void (draining = true),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
