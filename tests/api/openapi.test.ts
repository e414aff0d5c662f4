/**
 * The OpenAPI document at /api/doc/json is generated from the route contracts: every route of allRoutes
 * must appear in it (so the web client and third-party clients can rely on it), and /api/doc serves the
 * HTML viewer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '@otog/schemas/api';
import { startStack, type Stack } from './support/stack.ts';

interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
}

let stack: Stack;
let doc: OpenApiDocument;
beforeAll(async () => {
  stack = await startStack();
  const answer = await stack.app.inject({ method: 'GET', url: '/api/doc/json' });
  expect(answer.statusCode).toBe(200);
  expect(String(answer.headers['content-type'])).toContain('application/json');
  doc = answer.json<OpenApiDocument>();
});
afterAll(() => stack?.stop());

/** `/problem/:problemId` → `/problem/{problemId}` (OpenAPI's template form). */
const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');
const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]!);

describe('GET /api/doc/json', () => {
  it('is an OpenAPI 3 document for the API base /api', () => {
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
    expect(doc.servers?.map((server) => server.url)).toEqual(['/api']);
    expect(typeof doc.paths).toBe('object');
  });

  it('lists every route of allRoutes with its method, summary, tags, parameters and responses', () => {
    expect(allRoutes.length).toBeGreaterThan(0);
    // Every mismatch at once, so one run shows all the routes to fix.
    const mismatches: string[] = [];
    for (const route of allRoutes) {
      const where = `${route.method} ${route.path}`;
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      if (!operation) {
        mismatches.push(`${where}: missing (is the route served?)`);
        continue;
      }
      if (operation.summary !== route.summary) mismatches.push(`${where}: summary ${operation.summary}`);
      if (JSON.stringify(operation.tags) !== JSON.stringify(route.tags)) mismatches.push(`${where}: tags ${JSON.stringify(operation.tags)}`);
      const inPath = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      if (inPath.sort().join() !== pathParams(route.path).sort().join()) mismatches.push(`${where}: path parameters ${inPath.join()}`);
      const statuses = Object.keys(operation.responses ?? {}).sort().join();
      if (statuses !== Object.keys(route.responses).sort().join()) mismatches.push(`${where}: responses ${statuses}`);
      if (route.body && !operation.requestBody?.content?.['application/json']) mismatches.push(`${where}: no JSON request body`);
      if (route.multipart) {
        const form = operation.requestBody?.content?.['multipart/form-data'] as { schema?: { properties?: Record<string, unknown> } } | undefined;
        const documented = Object.keys(form?.schema?.properties ?? {});
        const missing = Object.keys(route.multipart.files).filter((file) => !documented.includes(file));
        if (!form || missing.length) mismatches.push(`${where}: multipart body not documented (missing: ${missing.join(', ') || 'the form'})`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('declares the {message} body of every error response', () => {
    for (const route of allRoutes) {
      // A missing route is reported by the test above.
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      for (const status of Object.keys(route.responses).filter((s) => Number(s) >= 400 && operation)) {
        const schema = operation?.responses?.[status]?.content?.['application/json']?.schema;
        expect(schema, `${route.method} ${route.path} ${status}`).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
      }
    }
  });

  it('lists nothing but the public routes (no internal judge API, no doc routes)', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    const declared = new Set(allRoutes.map((route) => `${route.method} ${openApiPath(route.path)}`));
    expect(documented.filter((operation) => !declared.has(operation))).toEqual([]);
  });
});

describe('GET /api/doc', () => {
  it('serves the HTML documentation page', async () => {
    const answer = await stack.app.inject({ method: 'GET', url: '/api/doc' });
    expect(answer.statusCode).toBe(200);
    expect(String(answer.headers['content-type'])).toContain('text/html');
    expect(answer.body).toMatch(/<html/i);
  });
});
