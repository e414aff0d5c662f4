/**
 * A place in the global log. Events are totally ordered by (txid, gpos): gpos alone is handed out before
 * commit and would let a reader skip an event whose transaction commits late.
 */
export interface Position {
  readonly txid: bigint;
  readonly gpos: bigint;
}

export const LOG_START: Position = Object.freeze({ txid: 0n, gpos: 0n });

export function comparePositions(a: Position, b: Position): -1 | 0 | 1 {
  if (a.txid !== b.txid) return a.txid < b.txid ? -1 : 1;
  if (a.gpos !== b.gpos) return a.gpos < b.gpos ? -1 : 1;
  return 0;
}

export function isAfter(a: Position, b: Position): boolean {
  return comparePositions(a, b) > 0;
}

/** `txid/gpos`: the form used in Kafka headers, CLI output and API responses. */
export function encodePosition(position: Position): string {
  return `${position.txid}/${position.gpos}`;
}

export function decodePosition(text: string): Position {
  const match = /^(\d{1,20})\/(\d{1,20})$/.exec(text);
  if (!match) throw new Error(`not a log position: "${text}" (expected txid/gpos)`);
  return { txid: BigInt(match[1]!), gpos: BigInt(match[2]!) };
}
