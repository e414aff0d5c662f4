/**
 * The cluster's load balancer against small real HTTP servers standing in for API nodes: only ready nodes
 * get requests, a refused connection goes to the next node with its body intact, socket.io long-polling
 * is pinned to a node by cookie, and WebSocket upgrades are tunnelled.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoadBalancer, type LoadBalancer } from '../../services/api/src/cluster/load-balancer.ts';
import { freePort } from '../../services/api/src/local/free-port.ts';
import { until } from '../support/until.ts';

interface FakeNode {
  readonly name: string;
  readonly url: string;
  ready: boolean;
  readonly seen: string[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  return body;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeNode(name: string, port?: number): Promise<FakeNode> {
  const node = { name, ready: true, seen: [] as string[] };
  const server: Server = createServer((request, response) => {
    if (request.url === '/api/health/ready') {
      response.writeHead(node.ready ? 200 : 503).end();
      return;
    }
    void readBody(request).then((body) => {
      node.seen.push(`${request.method} ${request.url} ${body}`);
      response.writeHead(200, { 'content-type': 'application/json', 'x-forwarded-for-seen': String(request.headers['x-forwarded-for']) });
      response.end(JSON.stringify({ node: name, body }));
    });
  });
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (_request, socket: Duplex) => {
    upgraded.add(socket);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: websocket\r\nx-node: ${name}\r\n\r\n`);
    // Echoes with the node's name: what went through the tunnel, both ways.
    socket.on('data', (data: Buffer) => socket.write(`${name}:${data.toString()}`));
  });
  const listenPort = port ?? (await freePort());
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      for (const socket of upgraded) socket.destroy();
    });
  cleanups.push(close);
  return Object.assign(node, { url: `http://127.0.0.1:${listenPort}`, close });
}

async function balancerFor(nodes: readonly FakeNode[]): Promise<LoadBalancer> {
  const balancer = await startLoadBalancer({ host: '127.0.0.1', port: 0, backends: nodes, probeIntervalMs: 50 });
  cleanups.push(() => balancer.close());
  return balancer;
}

const nodeOf = async (response: Response) => ((await response.json()) as { node: string }).node;

describe('load balancer', () => {
  it('spreads requests over the ready nodes only, and forwards the caller address', async () => {
    const [a, b, c] = [await fakeNode('api-1'), await fakeNode('api-2'), await fakeNode('api-3')];
    c.ready = false;
    const balancer = await balancerFor([a, b, c]);
    expect(balancer.ready().sort()).toEqual(['api-1', 'api-2']);
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${balancer.url}/api/problem`).then(nodeOf)));
    expect(new Set(answers)).toEqual(new Set(['api-1', 'api-2']));
    const forwarded = await fetch(`${balancer.url}/api/time`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(forwarded.headers.get('x-forwarded-for-seen')).toBe('203.0.113.9, 127.0.0.1');

    b.ready = false;
    await until('api-2 leaves the rotation', () => balancer.ready().length === 1);
    const after = await Promise.all(Array.from({ length: 6 }, () => fetch(`${balancer.url}/api/problem`).then(nodeOf)));
    expect(new Set(after)).toEqual(new Set(['api-1']));
  });

  it('sends a POST refused by a dead node to the next one, body intact; with no node left it answers 503', async () => {
    const a = await fakeNode('api-1');
    const deadPort = await freePort();
    const dead = await fakeNode('api-2', deadPort);
    const balancer = await balancerFor([a, dead]);
    await dead.close();
    // The balancer still thinks api-2 is ready until its next probe: requests meet the refused connection.
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) => fetch(`${balancer.url}/api/submission`, { method: 'POST', body: `source ${index}` }).then(async (response) => ({ status: response.status, ...((await response.json()) as object) }))),
    );
    for (const [index, answer] of answers.entries()) expect(answer).toEqual({ status: 200, node: 'api-1', body: `source ${index}` });
    expect(a.seen.filter((line) => line.startsWith('POST'))).toHaveLength(8);

    await a.close();
    const none = await fetch(`${balancer.url}/api/problem`);
    expect(none.status).toBe(503);
    expect(await none.json()).toEqual({ message: expect.stringContaining('No API node') });
  });

  it('pins socket.io long-polling to one node by cookie, and tunnels WebSocket upgrades', async () => {
    const [a, b] = [await fakeNode('api-1'), await fakeNode('api-2')];
    const balancer = await balancerFor([a, b]);
    const first = await fetch(`${balancer.url}/socket.io/?EIO=4&transport=polling`);
    const pinned = await nodeOf(first);
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(new RegExp(`^otog-node=${pinned}; Path=/socket.io/; HttpOnly`));
    const next = await Promise.all(
      Array.from({ length: 6 }, () => fetch(`${balancer.url}/socket.io/?EIO=4&transport=polling&sid=x`, { headers: { cookie: cookie.split(';')[0]! } }).then(nodeOf)),
    );
    expect(new Set(next)).toEqual(new Set([pinned]));

    const port = Number(new URL(balancer.url).port);
    const echoed = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nhost: x\r\nconnection: upgrade\r\nupgrade: websocket\r\n\r\n');
      });
      let received = '';
      socket.on('data', (data: Buffer) => {
        received += data.toString();
        if (received.includes('\r\n\r\n') && !received.includes('hello')) socket.write('hello');
        if (/api-\d:hello/.test(received)) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', reject);
    });
    expect(echoed).toMatch(/^HTTP\/1.1 101/);
    expect(echoed).toMatch(/x-node: (api-\d)[\s\S]*\1:hello$/);
  });
});
