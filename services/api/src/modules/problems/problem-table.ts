/**
 * GET /problem's answer, built once per read-model version instead of once per request: 10,000 problems
 * are 2.3 MB of JSON, and problems and passed counts change far less often than the table is read.
 *
 * - The shared part is kept per audience: `public` (anonymous callers and users: shown problems) and
 *   `admin` (every problem), under the version of the read models it was read at. Every request asks for
 *   the current version first (one statement, which also reads the version of a signed-in caller's
 *   submissions), so a problem an admin hides is gone from the very next answer (the hide itself waits
 *   until the problems projection has folded it). While a deploy rebuilds the read models, an older code's
 *   slots stay live without the kept counts: the table is then read per request, as before the counts were
 *   kept, and not cached.
 * - The per-caller part is `latestSubmission`. The shared JSON has `null` there on every row and records
 *   where each row's `null` is; a signed-in caller's answer splices their latest submissions in.
 * - A signed-in caller's answer is named by the shared table's ETag (audience and version) and the version
 *   of their submissions (the submissions projection's `user_version`: the log position of the last change
 *   to any of them), so it is known without reading their latest submissions: a 304, or a compressed body
 *   kept under that ETag, costs the version statement and nothing else. Their latest submissions are read,
 *   and spliced in, only when a body is needed that is not kept; the JSON made is kept per caller (one per
 *   caller, the ones used last, bounded by bytes), so a caller who takes it uncompressed gets the same
 *   bytes again. It is read after the version, so an answer is never older than its ETag says (newer at
 *   most, which costs a client one needless download).
 * - The shared JSON is compressed at most once per version and encoding. A spliced one is compressed with
 *   fast settings (it is a different body for every caller) and the result kept under its ETag, in a
 *   byte-bounded cache of the callers' bodies used last: a caller who reloads the table while nothing in it
 *   changed gets the same compressed bytes without compressing 2.3 MB again.
 */
import { createHash } from 'node:crypto';
import type { ProblemQueries, SharedTableRow } from '@otog/projections';
import { ProblemTableRowSchema, type SubmissionSummary } from '@otog/schemas/api/problem';
import {
  answerOf,
  createBodyCache,
  createByteCache,
  lazyAnswerOf,
  weakEtag,
  type CachedAnswer,
  type ReadyAnswer,
} from '../../http/cached-answer.ts';

type Audience = 'public' | 'admin';

interface SharedTable {
  /** What it was read at (the cache key), or `uncached:<hash of the rows>` when not kept. */
  readonly version: string;
  /** Every row with `latestSubmission: null`. */
  readonly answer: ReadyAnswer;
  /** Problem id → byte offset of the `null` of its row's latestSubmission. */
  readonly nullAt: ReadonlyMap<number, number>;
}

const NULL = 'null';
const ROW_END = `"latestSubmission":${NULL}}`;

/** The rows as the route's contract serializes them (z.encode, then JSON), joined into one array. */
function sharedTable(version: string, audience: Audience, rows: readonly SharedTableRow[]): SharedTable {
  const parts = ['['];
  let bytes = 1;
  const nullAt = new Map<number, number>();
  rows.forEach((row, index) => {
    const part = (index ? ',' : '') + JSON.stringify(ProblemTableRowSchema.encode({ ...row, latestSubmission: null }));
    // The splice relies on latestSubmission being each row's last field.
    if (!part.endsWith(ROW_END)) throw new Error(`GET /problem: a row's JSON does not end with ${ROW_END}`);
    const size = Buffer.byteLength(part);
    nullAt.set(row.id, bytes + size - (NULL.length + 1));
    bytes += size;
    parts.push(part);
  });
  parts.push(']');
  return { version, answer: answerOf(weakEtag(audience, version), Buffer.from(parts.join('')), 'once'), nullAt };
}

/** The shared table's JSON with the caller's latest submissions in place of their rows' `null`, and what was spliced in. */
function personalised(table: SharedTable, latest: ReadonlyMap<number, SubmissionSummary>): { json: Buffer; spliced: string[] } {
  const splices = [...latest]
    .flatMap(([problemId, summary]) => {
      const at = table.nullAt.get(problemId);
      // The rows were parsed with the contract's shape by the query; a zod encode per entry would cost more than
      // the rest of the answer (a user may have a latest submission on thousands of problems). Fields in the
      // contract's order, as its serializer writes them.
      const { id, status, userId } = summary;
      return at === undefined ? [] : [{ at, json: JSON.stringify({ id, status, userId, public: summary.public }) }];
    })
    .sort((a, b) => a.at - b.at);
  if (splices.length === 0) return { json: table.answer.json, spliced: [] };
  const pieces: Buffer[] = [];
  let from = 0;
  for (const { at, json } of splices) {
    pieces.push(table.answer.json.subarray(from, at), Buffer.from(json));
    from = at + NULL.length;
  }
  pieces.push(table.answer.json.subarray(from));
  return { json: Buffer.concat(pieces), spliced: splices.map(({ at, json }) => `${at}:${json}`) };
}

export type ProblemTableCache = ReturnType<typeof createProblemTableCache>;

/**
 * `personalBytes` is shared by the personal answers (PROBLEM_TABLE_CACHE_MB, 192 MiB by default). A third
 * holds their compressed bodies: ~90 KB each (brotli) for 10,000 problems, so some 700 callers at the
 * default. Two thirds hold their JSON, one per caller: 2.3 MB each, so some 55 callers. The JSON is asked
 * for by callers that take it uncompressed, and to compress an encoding not kept yet; making it again is a
 * read of the caller's latest submissions and a copy of 2.3 MB.
 */
export function createProblemTableCache(queries: ProblemQueries, options: { personalBytes: number }) {
  const bodyBytes = Math.floor(options.personalBytes / 3);
  // At most one table per audience: the newest version asked for. Concurrent requests share its build.
  const current = new Map<Audience, { version: string; table: Promise<SharedTable> }>();
  const personalBodies = createBodyCache(bodyBytes);
  // By user id: the JSON last made for them, and its ETag.
  const personalJson = createByteCache<{ etag: string; json: Buffer }>(options.personalBytes - bodyBytes, (kept) => kept.json.length);
  // ETag → the JSON being made, so that concurrent requests of one caller make it once.
  const making = new Map<string, Promise<Buffer>>();

  async function shared(audience: Audience, version: string | null): Promise<SharedTable> {
    if (version === null) return uncached(audience);
    let entry = current.get(audience);
    if (entry?.version !== version) {
      const table = queries.table({ includeHidden: audience === 'admin' }).then((read) =>
        // The version went null between the two reads (a cutover back to older code, forced): not kept.
        read.version === null ? sharedOf(audience, read.rows) : sharedTable(read.version, audience, read.rows),
      );
      const built = { version, table };
      current.set(audience, built);
      entry = built;
      // A failed build is not kept: the next request tries again.
      void table.catch(() => current.get(audience) === built && current.delete(audience));
    }
    return entry.table;
  }

  /**
   * While an older code's slot is live (a deploy's rebuild), the counts are made per request and nothing is
   * kept: the answer's ETag is its content's hash, so 304s still work.
   */
  async function uncached(audience: Audience): Promise<SharedTable> {
    current.delete(audience);
    return sharedOf(audience, (await queries.table({ includeHidden: audience === 'admin' })).rows);
  }

  function sharedOf(audience: Audience, rows: readonly SharedTableRow[]): SharedTable {
    const json = JSON.stringify(rows);
    return sharedTable(`uncached:${createHash('sha256').update(json).digest('base64url')}`, audience, rows);
  }

  /** The caller's JSON under `etag` (which names the table and the version of their submissions): kept, or made. */
  function personalJsonOf(userId: number, etag: string, table: SharedTable): Promise<Buffer> {
    const kept = personalJson.get(String(userId));
    if (kept?.etag === etag) return Promise.resolve(kept.json);
    let made = making.get(etag);
    if (!made) {
      made = queries.latestSubmissions(userId).then((latest) => {
        const { json } = personalised(table, latest);
        personalJson.set(String(userId), { etag, json });
        return json;
      });
      making.set(etag, made);
      void made.catch(() => undefined).finally(() => making.delete(etag));
    }
    return made;
  }

  /** While an older code's slot is live: the caller's latest submissions read per request, the ETag made of them. */
  async function uncachedPersonal(table: SharedTable, userId: number): Promise<CachedAnswer> {
    const { json, spliced } = personalised(table, await queries.latestSubmissions(userId));
    return spliced.length === 0 ? table.answer : answerOf(weakEtag(table.answer.etag, ...spliced), json, 'per-request', personalBodies);
  }

  return {
    /** The answer for a caller: admins see every problem; a signed-in caller gets their latest submissions. */
    async answer(caller: { admin: boolean; userId: number | null }): Promise<CachedAnswer> {
      // One statement per request while the table is cached: its version and the version of the caller's submissions.
      const state = await queries.tableState(caller.userId);
      const table = await shared(caller.admin ? 'admin' : 'public', state.version);
      const { userId } = caller;
      if (userId === null) return table.answer;
      if (state.mine === null) return uncachedPersonal(table, userId);
      // Never submitted: the shared answer as it is.
      if (state.mine === 0n) return table.answer;
      const etag = weakEtag(table.answer.etag, `user ${userId}@${state.mine}`);
      return lazyAnswerOf(etag, () => personalJsonOf(userId, etag, table), personalBodies);
    },
  };
}
