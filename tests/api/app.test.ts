import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '@otog/api/app';

const app = buildApp();
app.get('/api/test-only/boom', async () => {
  throw new Error('secret detail: password=hunter2');
});
app.post('/api/test-only/echo', async (request) => request.body);
afterAll(() => app.close());

describe('the HTTP app', () => {
  it('answers /api/ping with the text "pong"', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/ping' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toBe('pong');
  });

  it('answers /api/time with the server date as a JSON string', async () => {
    const before = Date.now();
    const response = await app.inject({ method: 'GET', url: '/api/time' });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const date = response.json<string>();
    expect(date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(new Date(date).getTime()).toBeGreaterThanOrEqual(before);
    expect(new Date(date).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('answers unknown routes with a JSON 404 { message }', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/nope?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ message: 'Not found: GET /api/nope' });
  });

  it('hides the internals of a failure', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/test-only/boom' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ message: 'Internal server error' });
  });

  it('answers malformed JSON with a 400 { message }', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/test-only/echo', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ message: expect.any(String) });
  });
});
