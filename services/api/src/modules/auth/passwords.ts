/**
 * Password hashing: argon2id from node:crypto (no native addon), stored as a PHC string so the parameters
 * can be raised later without breaking old hashes. Parameters: OWASP's 19 MiB, 2 passes, 1 lane.
 */
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const argon2Async = promisify(argon2);
const PARAMS = { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 } as const;
const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

async function derive(password: string, nonce: Buffer, params: { memory: number; passes: number; parallelism: number; tagLength: number }) {
  return argon2Async('argon2id', { message: Buffer.from(password, 'utf8'), nonce, ...params });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const tag = await derive(password, salt, PARAMS);
  return `$argon2id$v=19$m=${PARAMS.memory},t=${PARAMS.passes},p=${PARAMS.parallelism}$${b64(salt)}$${b64(tag)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match) return false;
  const expected = Buffer.from(match[5]!, 'base64');
  const tag = await derive(password, Buffer.from(match[4]!, 'base64'), {
    memory: Number(match[1]),
    passes: Number(match[2]),
    parallelism: Number(match[3]),
    tagLength: expected.length,
  });
  return tag.length === expected.length && timingSafeEqual(tag, expected);
}

/** A hash of a random password: verifying against it costs what a real one does (login answers in equal time). */
export const DUMMY_HASH_PROMISE: Promise<string> = hashPassword(randomBytes(16).toString('hex'));
