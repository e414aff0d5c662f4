/**
 * The operator's port (OTOG_OPS_PORT), on every process whatever its roles: `GET /health` (liveness),
 * `GET /ready` (readiness, 503 unless ready), `GET /metrics` (Prometheus). A plain node:http server, up before the roles start, so that
 * an orchestrator sees a starting node as alive but not ready.
 */
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Readiness } from './readiness.ts';

export interface OpsServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startOpsServer(options: { host: string; port: number; readiness: Readiness; metrics?: Registry }): Promise<OpsServer> {
  const server: Server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      response.end(JSON.stringify(body));
    };
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, { message: 'Only GET' });
    if (path === '/health') return send(200, { status: 'ok' });
    if (path === '/ready') {
      void options.readiness.report().then(
        (report) => send(report.status === 'ready' ? 200 : 503, report),
        () => send(503, { status: 'failing' }),
      );
      return;
    }
    if (path === '/metrics' && options.metrics) {
      const registry = options.metrics;
      void registry.metrics().then(
        (text) => {
          response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
          response.end(text);
        },
        () => send(500, { message: 'collecting the metrics failed' }),
      );
      return;
    }
    send(404, { message: `Not found: ${path}; try /health, /ready or /metrics` });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
