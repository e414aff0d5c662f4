/**
 * Sends a large JSON answer that the route keeps ready: ETag / If-None-Match (304), and gzip or brotli when
 * the client accepts them. Compression is the answer's own business (a shared answer compresses once per
 * version and hands out the same bytes), so this module only negotiates.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export type Encoding = 'br' | 'gzip';

export interface CachedAnswer {
  /** A weak ETag (`W/"…"`): the same for every encoding of the same JSON. */
  readonly etag: string;
  /** The JSON, uncompressed. */
  readonly json: Buffer;
  /** The JSON compressed with the encoding. */
  encoded(encoding: Encoding): Promise<Buffer>;
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
  if (!encoding) return reply.send(answer.json);
  return reply.header('content-encoding', encoding).send(await answer.encoded(encoding));
}
