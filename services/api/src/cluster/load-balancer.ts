/**
 * The front door of `npm run cluster`: plain HTTP and WebSocket upgrades spread round-robin over the API
 * nodes whose readiness probe (GET /api/health/ready) answered 200 last. In production a real balancer
 * (nginx, an ingress, a cloud one) does this; here it makes one machine behave like the deployed topology.
 *
 * - A node that refuses the connection is marked down and the request goes to the next one: nothing was
 *   sent yet, so even a POST is safe to retry. A node that fails after the request went out is not retried
 *   (it may have acted on it): the client gets a 502 and its own retry decides.
 * - socket.io: the web client opens a WebSocket first, and any node serves it (the Redis adapter joins the
 *   rooms across nodes). Its long-polling fallback needs every request of one session on the node that made
 *   the session, so `/socket.io/` requests are pinned to a node by the cookie `otog-node`.
 * - Callers' addresses go on in X-Forwarded-For; the nodes trust it from loopback (TRUST_PROXY).
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface Backend {
  readonly name: string;
  /** http://host:port of the node, without a path. */
  readonly url: string;
}

export interface LoadBalancer {
  readonly url: string;
  /** Names of the nodes the last probes found ready. */
  ready(): string[];
  close(): Promise<void>;
}

const STICKY_COOKIE = 'otog-node';
const SOCKET_IO_PATH = '/socket.io/';
const PROBE_PATH = '/api/health/ready';
// Hop-by-hop headers are the proxy's own business on each side (RFC 9110 section 7.6.1).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

interface Node extends Backend {
  readonly host: string;
  readonly port: number;
  readonly agent: Agent;
  ready: boolean;
}

function stickyNodeOf(request: IncomingMessage): string | undefined {
  const cookies = request.headers.cookie ?? '';
  return /(?:^|;\s*)otog-node=([\w-]+)/.exec(cookies)?.[1];
}

function forwardedHeaders(request: IncomingMessage): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
  const caller = request.socket.remoteAddress ?? '';
  headers['x-forwarded-for'] = request.headers['x-forwarded-for'] ? `${String(request.headers['x-forwarded-for'])}, ${caller}` : caller;
  headers['x-forwarded-proto'] = 'http';
  if (request.headers.host) headers['x-forwarded-host'] = request.headers.host;
  return headers;
}

export async function startLoadBalancer(options: {
  host: string;
  port: number;
  backends: readonly Backend[];
  probeIntervalMs?: number;
  onChange?: (name: string, ready: boolean) => void;
}): Promise<LoadBalancer> {
  const nodes: Node[] = options.backends.map((backend) => {
    const url = new URL(backend.url);
    return { ...backend, host: url.hostname, port: Number(url.port), agent: new Agent({ keepAlive: true, maxSockets: 512 }), ready: false };
  });
  let turn = 0;

  const setReady = (node: Node, ready: boolean) => {
    if (node.ready === ready) return;
    node.ready = ready;
    options.onChange?.(node.name, ready);
  };

  /** Candidates in the order to try them: the pinned node first, then ready nodes round-robin, then the rest. */
  const candidatesFor = (request: IncomingMessage): Node[] => {
    const start = turn++ % nodes.length;
    const rotated = [...nodes.slice(start), ...nodes.slice(0, start)];
    const ordered = [...rotated.filter((node) => node.ready), ...rotated.filter((node) => !node.ready)];
    const pinned = request.url?.startsWith(SOCKET_IO_PATH) ? nodes.find((node) => node.name === stickyNodeOf(request) && node.ready) : undefined;
    return pinned ? [pinned, ...ordered.filter((node) => node !== pinned)] : ordered;
  };

  const refused = (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET' || error.code === 'EHOSTUNREACH';

  const proxy = (request: IncomingMessage, response: ServerResponse, candidates: Node[]) => {
    const node = candidates.shift();
    if (!node) {
      response.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' });
      response.end(JSON.stringify({ message: 'No API node is available; try again in a moment' }));
      return;
    }
    const upstream = httpRequest({ host: node.host, port: node.port, method: request.method, path: request.url, headers: forwardedHeaders(request), agent: node.agent });
    let sent = false;
    const send = () => {
      sent = true;
      request.pipe(upstream);
    };
    // The body goes out only once the connection stands, so a refused connection leaves it unread for the next node.
    upstream.once('socket', (socket: Socket) => (socket.connecting ? socket.once('connect', send) : send()));
    upstream.once('response', (answer) => {
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
      if (request.url?.startsWith(SOCKET_IO_PATH) && stickyNodeOf(request) !== node.name) {
        const cookie = `${STICKY_COOKIE}=${node.name}; Path=${SOCKET_IO_PATH}; HttpOnly; SameSite=Lax`;
        const existing = headers['set-cookie'];
        headers['set-cookie'] = existing === undefined ? [cookie] : [...(Array.isArray(existing) ? existing : [String(existing)]), cookie];
      }
      response.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(response);
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (!sent && refused(error)) {
        setReady(node, false);
        proxy(request, response, candidates);
      } else if (!response.headersSent) {
        response.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify({ message: `The API node ${node.name} failed while answering` }));
      } else {
        response.destroy();
      }
    });
    response.once('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
  };

  const tunnels = new Set<Socket>();
  const tunnel = (request: IncomingMessage, client: Duplex, head: Buffer, candidates: Node[]) => {
    const node = candidates.shift();
    if (!node) return client.destroy();
    const upstream = connect(node.port, node.host);
    tunnels.add(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      const headers = forwardedHeaders(request);
      const lines = [`${request.method} ${request.url} HTTP/1.1`, 'connection: upgrade', `upgrade: ${String(request.headers.upgrade)}`];
      for (const [name, value] of Object.entries(headers)) for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(one)}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (!connected && refused(error)) {
        setReady(node, false);
        tunnel(request, client, head, candidates);
      } else client.destroy();
    });
    client.once('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => {
      tunnels.delete(upstream);
      if (connected) client.destroy();
    });
  };

  const server = createServer((request, response) => proxy(request, response, candidatesFor(request)));
  server.on('upgrade', (request: IncomingMessage, client: Duplex, head: Buffer) => tunnel(request, client, head, candidatesFor(request)));
  server.on('clientError', (_error, socket) => socket.destroy());

  let closed = false;
  const probe = async (node: Node) => {
    try {
      const answer = await fetch(`http://${node.host}:${node.port}${PROBE_PATH}`, { signal: AbortSignal.timeout(2_000) });
      await answer.arrayBuffer();
      setReady(node, answer.status === 200);
    } catch {
      setReady(node, false);
    }
  };
  const probes = async () => {
    while (!closed) {
      await Promise.all(nodes.map(probe));
      await new Promise((resolve) => setTimeout(resolve, options.probeIntervalMs ?? 500));
    }
  };
  await Promise.all(nodes.map(probe));
  void probes();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    ready: () => nodes.filter((node) => node.ready).map((node) => node.name),
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        server.close(() => resolve());
        server.closeAllConnections();
        for (const node of nodes) node.agent.destroy();
        for (const socket of tunnels) socket.destroy();
      }),
  };
}
