/**
 * Sends a large JSON answer that the route keeps ready: ETag / If-None-Match (304), and gzip or brotli when
 * the client accepts them; and the answers themselves (answerOf): a shared answer compresses once per
 * version and hands out the same bytes. An answer's ETag is known before its bodies (lazyAnswerOf): a 304,
 * or a compressed body kept under its ETag, needs no JSON made.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type Encoding = 'br' | 'gzip';

export interface CachedAnswer {
  /** A weak ETag (`W/"…"`): the same for every encoding of the same JSON. */
  readonly etag: string;
  /** The JSON, uncompressed (made on first demand by a lazy answer). */
  plain(): Promise<Buffer>;
  /** The JSON compressed with the encoding. */
  encoded(encoding: Encoding): Promise<Buffer>;
}

/** An answer whose JSON is made already. */
export interface ReadyAnswer extends CachedAnswer {
  readonly json: Buffer;
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Shared bodies are compressed once per version: worth a better ratio. Per-caller ones: worth speed. */
function compress(json: Buffer, encoding: Encoding, effort: 'once' | 'per-request'): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(json, { level: effort === 'once' ? 6 : 1 });
  return brotliAsync(json, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: effort === 'once' ? 5 : 1,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
}

/** A weak ETag naming its parts (what the answer was made of), short and opaque. */
export const weakEtag = (...parts: string[]) => `W/"${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 27)}"`;

/** Values by key, the ones used last kept up to `maxBytes` (as `bytesOf` counts them). */
export function createByteCache<V>(maxBytes: number, bytesOf: (value: V) => number) {
  const values = new Map<string, V>();
  let bytes = 0;
  const remove = (key: string) => {
    const old = values.get(key);
    if (old === undefined) return;
    values.delete(key);
    bytes -= bytesOf(old);
  };
  return {
    get(key: string): V | undefined {
      const value = values.get(key);
      if (value !== undefined) {
        // Most recently used last.
        values.delete(key);
        values.set(key, value);
      }
      return value;
    },
    /** Keeps `value` under `key` (in place of what was there), dropping the values used longest ago while over. */
    set(key: string, value: V): void {
      remove(key);
      const size = bytesOf(value);
      if (size > maxBytes) return;
      values.set(key, value);
      bytes += size;
      for (const [oldest] of values) {
        if (bytes <= maxBytes) break;
        remove(oldest);
      }
    },
  };
}

/** Compressed bodies by ETag and encoding, the ones used last kept up to `maxBytes`. */
export const createBodyCache = (maxBytes: number) => createByteCache<Buffer>(maxBytes, (body) => body.length);
export type BodyCache = ReturnType<typeof createBodyCache>;

/** The compressed forms, each made on first demand from `plain` then kept: by the answer, and in `shared` if given. */
function encodings(etag: string, plain: () => Promise<Buffer>, effort: 'once' | 'per-request', shared?: BodyCache) {
  const encoded = new Map<Encoding, Promise<Buffer>>();
  return (encoding: Encoding): Promise<Buffer> => {
    let body = encoded.get(encoding);
    if (!body) {
      const key = `${etag} ${encoding}`;
      const kept = shared?.get(key);
      body = kept ? Promise.resolve(kept) : plain().then((json) => compress(json, encoding, effort));
      if (shared && !kept) void body.then((made) => shared.set(key, made), () => {});
      encoded.set(encoding, body);
    }
    return body;
  };
}

/**
 * An answer whose JSON is ready and whose compressed forms are made on first demand, then kept: by the
 * answer itself, or in `shared` when answers with the same ETag are made again (one per request).
 */
export function answerOf(etag: string, json: Buffer, effort: 'once' | 'per-request', shared?: BodyCache): ReadyAnswer {
  const plain = () => Promise.resolve(json);
  return { etag, json, plain, encoded: encodings(etag, plain, effort, shared) };
}

/**
 * A per-caller answer known by its ETag alone: its JSON is made (`make`, at most once) only when a body is
 * needed and `shared` does not already keep the compressed one asked for under that ETag.
 */
export function lazyAnswerOf(etag: string, make: () => Promise<Buffer>, shared: BodyCache): CachedAnswer {
  let json: Promise<Buffer> | undefined;
  const plain = () => (json ??= make());
  return { etag, plain, encoded: encodings(etag, plain, 'per-request', shared) };
}

/** Brotli first (smaller), then gzip; an encoding is refused with `;q=0`. `*` accepts both. */
export function pickEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    accepted.set(name.trim(), q ? Number(q[1]) : 1);
  }
  const weight = (encoding: Encoding) => accepted.get(encoding) ?? accepted.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return null;
}

/** If-None-Match holds the ETag (weak comparison, as RFC 9110 asks of GET), or `*`. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

export async function sendCachedAnswer(request: FastifyRequest, reply: FastifyReply, answer: CachedAnswer): Promise<FastifyReply> {
  // Who asks (Authorization or the accessToken cookie) changes the answer; caches must revalidate every time.
  void reply.header('etag', answer.etag).header('vary', 'Accept-Encoding, Authorization, Cookie').header('cache-control', 'private, no-cache');
  if (etagMatches(request.headers['if-none-match'], answer.etag)) return reply.code(304).send();
  void reply.type('application/json; charset=utf-8');
  const encoding = pickEncoding(request.headers['accept-encoding']);
  if (!encoding) return reply.send(await answer.plain());
  return reply.header('content-encoding', encoding).send(await answer.encoded(encoding));
}
