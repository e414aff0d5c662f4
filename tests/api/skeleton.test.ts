import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appContract } from '@otog/schemas/api/app';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());

describe('public API stack', () => {
  it('serves the App routes and the OpenAPI document', async () => {
    expect(await stack.expectCall(appContract.time, 200)).toMatch(/^\d{4}-/);
    const user = await stack.createUser();
    expect((await stack.call(appContract.ping, { as: user })).body).toBe('pong');
    expect((await stack.call(appContract.ping, { as: 'garbage' })).statusCode).toBe(401);
    const doc = await stack.app.inject({ method: 'GET', url: '/api/doc/json' });
    expect(doc.statusCode).toBe(200);
    expect(Object.keys(doc.json<{ paths: object }>().paths)).toContain('/time');
  });
});
