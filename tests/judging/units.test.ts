import { describe, expect, it } from 'vitest';
import { deterministicEventId, OTOG_NAMESPACE, uuidv5 } from '@otog/platform/eventstore/deterministic-id';

describe('uuid v5', () => {
  it('matches known vectors (RFC 4122 namespaces)', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
    expect(uuidv5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    // Non-ASCII names are hashed as UTF-8.
    expect(uuidv5('https://example.com/ทดสอบ', '6ba7b811-9dad-11d1-80b4-00c04fd430c8')).toBe('a4075470-1f62-5381-a289-0d1ce805102d');
  });

  it("derives OTOG's event ids from natural keys, stably forever", () => {
    expect(OTOG_NAMESPACE).toBe('f63c657e-92dd-48b1-9051-816a5e9df6d8');
    expect(deterministicEventId('42:1:3')).toBe('c20b00f6-d268-57f0-93c9-2b0de1904b5c');
    expect(deterministicEventId('42:1:judged')).toBe('f43903d6-e3ea-59e3-b3a7-c69157312128');
    expect(deterministicEventId('42:1:3')).not.toBe(deterministicEventId('42:1:4'));
    expect(deterministicEventId('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('refuses a namespace that is not a UUID', () => {
    expect(() => uuidv5('x', 'not-a-uuid')).toThrow(/not a UUID/);
  });
});
