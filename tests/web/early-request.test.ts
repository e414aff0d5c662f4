/**
 * The answer index.html's head asked for early (web/src/lib/early-request.ts) goes to the app's first read
 * of the same GET with the same access token, once, and only while fresh; anything else asks again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeEarlyRequest, type EarlyRequest } from '../../web/src/lib/early-request.ts';

const URL_ = '/api/contest/7/scoreboard/columns';
const answer = Promise.resolve(new Response('{}'));
const page = globalThis as unknown as { window?: { otogEarlyRequest?: EarlyRequest } };

function sent(overrides: Partial<EarlyRequest> = {}): void {
  page.window = { otogEarlyRequest: { url: URL_, token: 'token-a', at: performance.now(), response: answer, ...overrides } };
}

beforeEach(() => sent());
afterEach(() => delete page.window);

describe('takeEarlyRequest', () => {
  it('gives the answer to the first read of the same GET with the same token, and to no later read', () => {
    expect(takeEarlyRequest('GET', URL_, 'token-a')).toBe(answer);
    expect(takeEarlyRequest('GET', URL_, 'token-a')).toBeNull();
  });

  it('leaves it for its own read when another route or method asks first', () => {
    expect(takeEarlyRequest('GET', '/api/contest/7', 'token-a')).toBeNull();
    expect(takeEarlyRequest('POST', URL_, 'token-a')).toBeNull();
    expect(takeEarlyRequest('GET', URL_, 'token-a')).toBe(answer);
  });

  const refused: Array<[string, Partial<EarlyRequest>, string | null]> = [
    ['signed in since it was sent', { token: null }, 'token-a'],
    ['signed out since', {}, null],
    ['a new access token since', {}, 'token-b'],
    ['older than 10 s', { at: performance.now() - 10_001 }, 'token-a'],
  ];
  it.each(refused)('asks again when %s, and drops the early answer', (_, overrides, token) => {
    sent(overrides);
    expect(takeEarlyRequest('GET', URL_, token)).toBeNull();
    expect(page.window?.otogEarlyRequest).toBeUndefined();
  });

  it('without a page (no window) there is nothing to take', () => {
    delete page.window;
    expect(takeEarlyRequest('GET', URL_, 'token-a')).toBeNull();
  });
});
