/**
 * Cheap checks on request bodies, run before the expensive work (JSON.parse, validation, storage): a
 * request that no route could accept is refused before its bytes are held or walked.
 */
import { HttpError } from './errors.ts';

/** Deepest nesting a JSON body may have: no contract nests beyond a few levels. */
export const MAX_JSON_DEPTH = 32;

/** Largest body a route that declares none accepts (an empty JSON object from a client that always sends one). */
export const NO_BODY_LIMIT_BYTES = 1024;

/**
 * True when the JSON text nests arrays or objects deeper than `max`. One pass over the characters that
 * stops at the first excess, so 500,000 nested brackets cost microseconds instead of a parse and a walk.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index += 1;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth -= 1;
    }
  }
  return false;
}

export const payloadTooLarge = (maxBytes: number) => new HttpError(413, `The request body is too large (at most ${maxBytes} bytes)`);

/**
 * The chunks of a request stream, failing with a 413 as soon as more than `maxBytes` arrived, so an upload
 * is stored as it comes and never held whole. (A declared Content-Length over the limit is refused before.)
 */
export async function* limitedBody(stream: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  let received = 0;
  for await (const chunk of stream) {
    received += chunk.length;
    if (received > maxBytes) throw payloadTooLarge(maxBytes);
    yield chunk;
  }
}
