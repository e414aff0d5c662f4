/**
 * Attacks that worked against a fresh `npm start`, each kept as the test that would have caught it.
 * Requests go over real sockets where the point is what the server does before the body arrives.
 */
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '@otog/api/app';
import { createLogger } from '@otog/platform/log/logger';
import { findNulCharacter } from '@otog/api/http/errors';
import { jsonNestsDeeperThan } from '@otog/api/http/request-bodies';
import { problemContract as routes, type Problem } from '@otog/schemas/api/problem';
import { startStack, type Stack, type TestUser } from './support/stack.ts';

const MAX_FILE_BYTES = 4 * 1024 * 1024;

let stack: Stack;
let admin: TestUser;
let port: number;

beforeAll(async () => {
  stack = await startStack({ settings: { problemFileMaxBytes: MAX_FILE_BYTES } });
  admin = await stack.createUser({ role: 'admin' });
  await stack.app.listen({ port: 0, host: '127.0.0.1' });
  port = (stack.app.server.address() as AddressInfo).port;
}, 120_000);
afterAll(async () => {
  stack?.app.server.closeAllConnections();
  await stack?.stop();
});

/**
 * Sends only the request head, announcing `contentLength` bytes that never come, and resolves with the
 * status the server answers. A server that waits for (or buffers) the body never answers: the test fails.
 */
function statusBeforeBody(method: string, path: string, contentLength: number, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${method} ${path}: no answer before the body was sent`));
    }, 10_000);
    let head = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      head += chunk;
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (!match) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(Number(match[1]));
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    const lines = Object.entries({ host: 'localhost', 'content-type': 'application/octet-stream', ...headers, 'content-length': String(contentLength) });
    socket.write(`${method} ${path} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n`);
  });
}

async function newProblem(): Promise<Problem> {
  return stack.expectCall(routes.createProblem, 201, {
    as: admin,
    form: { fields: { name: 'Attachment target', sname: 'target', score: '100', timeLimit: '1', memoryLimit: '256' } },
  });
}

async function signedUploadPath(problemId: number): Promise<string> {
  const metadata = { size: 1, name: 'data.zip', lastModified: 1_700_000_000_000, type: 'application/zip' };
  const { url } = await stack.expectCall(routes.uploadAttachment, 200, { as: admin, params: { problemId }, body: { metadata } });
  const { pathname, search } = new URL(url);
  return pathname + search;
}

describe('request bodies are refused before they are read, and never walked byte by byte', () => {
  it('an unsigned attachment upload is refused from its head alone', async () => {
    const problem = await newProblem();
    // Within the size limit: only the missing signature can refuse it (it used to be buffered, then walked).
    expect(await statusBeforeBody('PUT', `/api/problem/${problem.id}/attachment`, MAX_FILE_BYTES - 1)).toBe(403);
    expect(await statusBeforeBody('PUT', `/api/problem/${problem.id}/attachment?expires=1&signature=x`, MAX_FILE_BYTES - 1)).toBe(403);
    // The server is still there.
    expect((await fetch(`http://127.0.0.1:${port}/api/ping`)).status).toBe(200);
  });

  it('a signed upload declaring more than the limit is a 413 before its body', async () => {
    const problem = await newProblem();
    expect(await statusBeforeBody('PUT', await signedUploadPath(problem.id), MAX_FILE_BYTES + 1)).toBe(413);
  });

  it('a route that takes no body refuses a large one from its head', async () => {
    expect(await statusBeforeBody('POST', '/api/auth/logout', 900_000, { 'content-type': 'application/json' })).toBe(413);
  });

  it('deeply nested JSON is a 400 naming the depth, not a stalled server', async () => {
    const nested = '['.repeat(500_000) + ']'.repeat(500_000);
    const response = await stack.app.inject({ method: 'POST', url: '/api/auth/login', payload: nested, headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ message: 'The JSON body nests deeper than 32 levels' });
    expect(jsonNestsDeeperThan('{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"["}', 2)).toBe(false);
    expect(jsonNestsDeeperThan('[[[]]]', 2)).toBe(true);
  });

  it('a legitimate upload full of NUL bytes streams to the store; one over the limit mid-stream is a 413 and stores nothing', async () => {
    const problem = await newProblem();
    const path = await signedUploadPath(problem.id);
    const zeros = Buffer.alloc(MAX_FILE_BYTES);
    const put = (body: NonNullable<RequestInit['body']>, init: RequestInit = {}) =>
      fetch(`http://127.0.0.1:${port}${path}`, { method: 'PUT', body, headers: { 'content-type': 'application/zip' }, ...init });
    const accepted = await put(zeros);
    expect(accepted.status, await accepted.text()).toBe(200);
    const hash = createHash('sha256').update(zeros).digest('hex');
    expect(await stack.objects.has(hash)).toBe(true);

    // Chunked, with no Content-Length: only counting the bytes as they arrive can refuse it.
    const oversized = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let sent = 0; sent <= MAX_FILE_BYTES; sent += 1 << 20) controller.enqueue(new Uint8Array(1 << 20).fill(1));
        controller.close();
      },
    });
    const refused = await put(oversized, { duplex: 'half' } as RequestInit);
    expect(refused.status).toBe(413);
    expect(await stack.objects.has(createHash('sha256').update(Buffer.alloc(MAX_FILE_BYTES + (1 << 20), 1)).digest('hex'))).toBe(false);
  });

  it('the NUL scan walks JSON values only: binary bodies are bytes, and paths still name the field', () => {
    expect(findNulCharacter({ body: Buffer.from([0x61, 0x00]) })).toBeNull();
    expect(findNulCharacter({ body: { examples: [{ input: 'ok' }, { input: 'a\u0000b' }] } })).toBe('body.examples.1.input');
    expect(findNulCharacter({ querystring: { ['k\u0000']: 'v' } })).toBe('querystring.k\\u0000');
  });
});

describe('ids are plain decimal numbers', () => {
  it('refuses 01, +1, 0x10, 1e0, spaces and the like (one id, one spelling) and takes the plain one', async () => {
    const problem = await stack.expectCall(routes.createProblem, 201, {
      as: admin,
      form: { fields: { name: 'Plain', sname: 'plain', score: '100', timeLimit: '1', memoryLimit: '64' } },
    });
    for (const problemId of ['0' + problem.id, '+' + problem.id, '0x' + problem.id.toString(16), `${problem.id}e0`, ` ${problem.id}`, `${problem.id}.0`]) {
      const answer = await stack.expectCall(routes.getProblem, 400, { as: admin, params: { problemId } });
      expect(answer.message, problemId).toMatch(/problemId/);
    }
    expect((await stack.expectCall(routes.getProblem, 200, { as: admin, params: { problemId: String(problem.id) } })).id).toBe(problem.id);
  });
});

describe('logs', () => {
  it('a signed link’s signature never reaches a log line, even at debug level', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = buildApp({ logger: createLogger({ name: 'log-test', level: 'debug', destination }) });
    await app.inject({ method: 'GET', url: '/api/problem/1/attachment?expires=9999999999&signature=SeCrEt-signature-value' });
    await app.close();
    expect(lines.join('')).toContain('signature=[redacted]');
    expect(lines.join('')).not.toContain('SeCrEt-signature-value');
  });
});
