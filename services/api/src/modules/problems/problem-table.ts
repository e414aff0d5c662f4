/**
 * GET /problem's answer, built once per read-model version instead of once per request: 10,000 problems
 * are 2.3 MB of JSON, and problems and passed counts change far less often than the table is read.
 *
 * - The shared part is kept per audience: `public` (anonymous callers and users: shown problems) and
 *   `admin` (every problem), under the version of the read models it was read at. Every request asks for
 *   the current version first (one statement, which also reads a signed-in caller's latest submissions),
 *   so a problem an admin hides is gone from the very next answer (the hide itself waits until the
 *   problems projection has folded it). While a deploy rebuilds
 *   the read models, an older code's slots stay live without the kept counts: the table is then read per
 *   request, as before the counts were kept, and not cached.
 * - The per-caller part is `latestSubmission`. The shared JSON has `null` there on every row and records
 *   where each row's `null` is; a signed-in caller's answer splices their latest submissions in.
 * - The shared JSON is compressed at most once per version and encoding. A spliced one is compressed with
 *   fast settings (it is a different body for every caller) and the result kept under its ETag, in a
 *   byte-bounded cache of the callers' bodies used last: a caller who reloads the table while nothing in it
 *   changed gets the same compressed bytes without compressing 2.3 MB again.
 */
import { createHash } from 'node:crypto';
import type { ProblemQueries, SharedTableRow } from '@otog/projections';
import { ProblemTableRowSchema, type SubmissionSummary } from '@otog/schemas/api/problem';
import { answerOf, createBodyCache, weakEtag, type BodyCache, type CachedAnswer } from '../../http/cached-answer.ts';

type Audience = 'public' | 'admin';

interface SharedTable {
  /** What it was read at (the cache key), or `uncached:<hash of the rows>` when not kept. */
  readonly version: string;
  /** Every row with `latestSubmission: null`. */
  readonly answer: CachedAnswer;
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

/** The shared table with the caller's latest submissions in place of their rows' `null`. */
function personalised(table: SharedTable, latest: ReadonlyMap<number, SubmissionSummary>, bodies: BodyCache): CachedAnswer {
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
  if (splices.length === 0) return table.answer;
  const pieces: Buffer[] = [];
  let from = 0;
  for (const { at, json } of splices) {
    pieces.push(table.answer.json.subarray(from, at), Buffer.from(json));
    from = at + NULL.length;
  }
  pieces.push(table.answer.json.subarray(from));
  const etag = weakEtag(table.answer.etag, ...splices.map(({ at, json }) => `${at}:${json}`));
  return answerOf(etag, Buffer.concat(pieces), 'per-request', bodies);
}

export type ProblemTableCache = ReturnType<typeof createProblemTableCache>;

/** Room for the personal compressed bodies: ~90 KB each (brotli) for 10,000 problems, so some 700 callers. */
const PERSONAL_BODY_BYTES = 64 * 1024 * 1024;

export function createProblemTableCache(queries: ProblemQueries) {
  // At most one table per audience: the newest version asked for. Concurrent requests share its build.
  const current = new Map<Audience, { version: string; table: Promise<SharedTable> }>();
  const personalBodies = createBodyCache(PERSONAL_BODY_BYTES);

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

  return {
    /** The answer for a caller: admins see every problem; a signed-in caller gets their latest submissions. */
    async answer(caller: { admin: boolean; userId: number | null }): Promise<CachedAnswer> {
      // One statement per request while the table is cached: its version and the caller's latest submissions.
      const state = await queries.tableState(caller.userId);
      const table = await shared(caller.admin ? 'admin' : 'public', state.version);
      return state.latest ? personalised(table, state.latest, personalBodies) : table.answer;
    },
  };
}
