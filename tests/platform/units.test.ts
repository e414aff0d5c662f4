import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEventRegistry, defineEvent, EventSchemaError } from '@otog/schemas/events';
import { comparePositions, decodePosition, encodePosition } from '@otog/platform/eventstore/position';
import { createLogger, describeUrl } from '@otog/platform/log/logger';

describe('log positions', () => {
  it('order by txid first, then gpos (a late-committing low gpos sorts after)', () => {
    expect(comparePositions({ txid: 5n, gpos: 100n }, { txid: 6n, gpos: 1n })).toBe(-1);
    expect(comparePositions({ txid: 6n, gpos: 2n }, { txid: 6n, gpos: 1n })).toBe(1);
    expect(comparePositions({ txid: 6n, gpos: 1n }, { txid: 6n, gpos: 1n })).toBe(0);
  });
  it('round-trip through their text form and refuse garbage', () => {
    const position = { txid: 18446744073709551615n, gpos: 9007199254740993n };
    expect(decodePosition(encodePosition(position))).toEqual(position);
    for (const bad of ['', '1', '1/', '/2', 'a/b', '1/2/3', '-1/2']) expect(() => decodePosition(bad)).toThrow(/not a log position/);
  });
});

describe('event registry', () => {
  const V3 = defineEvent({
    type: 'Renamed',
    version: 3,
    schema: z.object({ title: z.string(), by: z.string() }),
    upcasters: { 1: (d) => ({ ...(d as object), title: (d as { name: string }).name }), 2: (d) => ({ by: 'unknown', ...(d as object) }) },
  });
  const registry = createEventRegistry([V3]);

  it('upcasts step by step from any older version', () => {
    expect(registry.decode('Renamed', 1, { name: 'a' })).toEqual({ title: 'a', by: 'unknown' });
    expect(registry.decode('Renamed', 2, { title: 'b' })).toEqual({ title: 'b', by: 'unknown' });
    expect(registry.decode('Renamed', 3, { title: 'c', by: 'x' })).toEqual({ title: 'c', by: 'x' });
  });
  it('refuses data from a future version and invalid upcast results', () => {
    expect(() => registry.decode('Renamed', 4, {})).toThrow(/newer than this code knows/);
    expect(() => registry.decode('Renamed', 2, { nope: 1 })).toThrow(EventSchemaError);
  });
  it('refuses a definition without a complete upcaster chain, and duplicate types', () => {
    expect(() => defineEvent({ type: 'X', version: 2, schema: z.object({}) })).toThrow(/missing upcaster from v1 to v2/);
    expect(() => createEventRegistry([V3, V3])).toThrow(/defined twice/);
  });
});

describe('logger', () => {
  it('never writes secrets', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) });
    const logger = createLogger({ name: 't', destination: sink });
    logger.info({ password: 'hunter2', user: { token: 'abc', name: 'somchai' }, req: { headers: { authorization: 'Bearer xyz', cookie: 'a=b' } } }, 'login');
    const text = lines.join('');
    for (const secret of ['hunter2', 'abc', 'Bearer xyz', 'a=b']) expect(text).not.toContain(secret);
    expect(text).toContain('somchai');
    expect(describeUrl('postgres://otog:s3cret@db:5432/otog')).toBe('postgres://otog:***@db:5432/otog');
  });
});
