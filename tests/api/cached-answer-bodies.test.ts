/** The cache of compressed bodies (the problem table's personal answers): bounded by bytes, the ones used last kept. */
import { describe, expect, it } from 'vitest';
import { createBodyCache } from '@otog/api/http/cached-answer';

const body = (bytes: number, fill = 1) => Buffer.alloc(bytes, fill);

describe('the personal body cache', () => {
  it('hands back what it was given', () => {
    const cache = createBodyCache(100);
    cache.set('a br', body(10, 7));
    expect(cache.get('a br')).toEqual(body(10, 7));
    expect(cache.get('a gzip')).toBeUndefined();
  });

  it('drops the bodies used longest ago once over its bytes', () => {
    const cache = createBodyCache(100);
    cache.set('a', body(40));
    cache.set('b', body(40));
    cache.get('a'); // a is now the newest
    cache.set('c', body(40));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('keeps nothing larger than its whole room, and a key once', () => {
    const cache = createBodyCache(100);
    cache.set('huge', body(101));
    expect(cache.get('huge')).toBeUndefined();
    cache.set('a', body(60));
    cache.set('a', body(60));
    cache.set('b', body(40));
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('b')).toBeDefined();
  });
});
