import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEventRegistry, defineEvent, EventSchemaError, otogEvents, SCOPE_KINDS } from '@otog/schemas/events';
import { defaultTopicForScope, UnroutableScopeError } from '@otog/platform/relay/kafka-messages';
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
    scopes: ['user'],
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
    expect(() => defineEvent({ type: 'X', scopes: ['user'], version: 2, schema: z.object({}) })).toThrow(/missing upcaster from v1 to v2/);
    expect(() => createEventRegistry([V3, V3])).toThrow(/defined twice/);
  });
  it('refuses an append whose scope is not of a kind the event declares, before anything is written', () => {
    expect(registry.validateForAppend('Renamed', { title: 'a', by: 'b' }, 'user:1').version).toBe(3);
    for (const scope of ['chat:global', 'unknown:1', 'nokind']) {
      expect(() => registry.validateForAppend('Renamed', { title: 'a', by: 'b' }, scope)).toThrow(/is not of a kind this event declares \(user\)/);
    }
  });
  it('routes every product event type to a Kafka topic through each scope kind it declares', () => {
    expect(otogEvents.length).toBeGreaterThan(20);
    for (const definition of otogEvents) {
      expect(definition.scopes.length, definition.type).toBeGreaterThan(0);
      for (const kind of definition.scopes) expect(defaultTopicForScope(`${kind}:1`), definition.type).toBe(SCOPE_KINDS[kind].topic);
    }
    expect(() => defaultTopicForScope('unknown:1')).toThrow(UnroutableScopeError);
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
