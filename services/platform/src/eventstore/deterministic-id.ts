import { createHash } from 'node:crypto';

/**
 * OTOG's UUID namespace. Fixed forever: every deterministic event id in the log was derived from it, and
 * a replayed or retried command must derive the same ids again.
 */
export const OTOG_NAMESPACE = 'f63c657e-92dd-48b1-9051-816a5e9df6d8';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 4122 (RFC 9562) version 5 UUID: SHA-1 of the namespace's 16 bytes followed by the name's UTF-8. */
export function uuidv5(name: string, namespace: string = OTOG_NAMESPACE): string {
  if (!UUID.test(namespace)) throw new Error(`namespace "${namespace}" is not a UUID`);
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The event id of a natural key (e.g. `42:1:3` for test 3 of judging 1 of submission 42) in OTOG's namespace. */
export function deterministicEventId(key: string): string {
  return uuidv5(key, OTOG_NAMESPACE);
}
