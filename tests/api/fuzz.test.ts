/**
 * Bad input never gives a 500 (DESIGN.md §8): every route of allRoutes, called by an anonymous visitor, a
 * user and an admin, with malformed JSON, wrong types, huge strings, hostile ids and pagination values,
 * unknown query keys, multipart garbage, oversized and path-traversing uploads, missing bodies and wrong
 * content types. Every answer must be < 500, a 4xx must carry `{message: string}`, and a refused request
 * must leave the event log and the accounts as they were.
 *
 * Requests are generated from the contracts (their zod schemas, as JSON Schema), so the suite covers each
 * route as it lands. Random choices come from a seeded generator: FUZZ_SEED=<n> reproduces a run, and
 * every failure prints its request (FUZZ_VERBOSE=1 prints every answer). A 500's stack trace comes from
 * the app's error log.
 */
import { Writable } from 'node:stream';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildApp, type App } from '@otog/api/app';
import { sql } from '@otog/platform/db/pool';
import { createLogger } from '@otog/platform/log/logger';
import { allRoutes, type RouteContract } from '@otog/schemas/api';
import { announcementContract } from '@otog/schemas/api/announcement';
import { multipartBody, startStack, type Stack, type TestUser } from './support/stack.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 4_2024);
/** Small upload limit, so "oversized" files stay cheap to build. */
const FILE_LIMIT = 256 * 1024;

/** mulberry32: a tiny deterministic generator (same seed, same run). */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (max: number) => Math.floor(next() * max),
    bytes(length: number): Buffer {
      const out = Buffer.alloc(length);
      for (let i = 0; i < length; i += 1) out[i] = Math.floor(next() * 256);
      return out;
    },
  };
}
type Random = ReturnType<typeof generator>;

// ---------------------------------------------------------------------------------------------------------
// Example values from a contract's schema (as JSON Schema), the base the mutations start from.

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
}

function jsonSchemaOf(schema: z.ZodType | undefined): JsonSchema {
  if (!schema) return {};
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    return {};
  }
}

/**
 * Field values the generic example would get wrong (a language the judge knows, an empty problem `case` =
 * counted from the zip), so the mutations start from valid input and reach the handlers' own checks.
 */
const HINTS: Record<string, unknown> = { language: 'cpp', case: '', username: 'fuzz_user', showName: 'Fuzz User', password: 'fuzz-password' };

function exampleOf(schema: JsonSchema, name = ''): unknown {
  if (name in HINTS) return HINTS[name];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return exampleOf(options.find((option) => option.type !== 'null') ?? options[0]!, name);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, value]) => [key, exampleOf(value, key)]));
    case 'array':
      return schema.items ? [exampleOf(schema.items)] : [];
    case 'integer':
    case 'number':
      if (schema.minimum !== undefined) return Math.max(schema.minimum, 1);
      if (schema.exclusiveMinimum !== undefined) return Math.max(schema.exclusiveMinimum + 1, 1);
      return 1;
    case 'boolean':
      return true;
    case 'string': {
      if (schema.format === 'date-time') return new Date(0).toISOString();
      const candidates = ['fuzz', '1', '1.5', 'a', 'fuzz_1'];
      const pattern = schema.pattern ? new RegExp(schema.pattern) : null;
      const found = candidates.find((c) => (!pattern || pattern.test(c)) && c.length >= (schema.minLength ?? 0));
      return found ?? 'x'.repeat(Math.max(schema.minLength ?? 1, 1));
    }
    default:
      return 'fuzz';
  }
}

function objectKeys(schema: JsonSchema): string[] {
  const options = schema.anyOf ?? schema.oneOf;
  const object = options ? options.find((option) => option.properties) : schema;
  return Object.keys(object?.properties ?? {});
}

// ---------------------------------------------------------------------------------------------------------
// Requests

interface FuzzRequest {
  readonly label: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly payload?: string | Buffer;
  /** Sends these credentials instead of the caller's. */
  readonly ownAuth?: boolean;
}

interface Ids {
  readonly byParam: Record<string, string>;
  readonly adminToken: string;
}

const preview = (value: string | Buffer | undefined, max = 240): string => {
  if (value === undefined) return '(none)';
  const text = Buffer.isBuffer(value) ? value.subarray(0, max).toString('latin1') : value.slice(0, max);
  const length = Buffer.isBuffer(value) ? value.length : value.length;
  return `${JSON.stringify(text)}${length > max ? ` …(${length} bytes)` : ''}`;
};

function describeRequest(request: FuzzRequest, caller: string): string {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, k === 'authorization' || k === 'cookie' ? `${v.slice(0, 24)}…` : v]));
  return `[${caller}] ${request.label}: ${request.method} ${request.url.length > 300 ? `${request.url.slice(0, 300)}…(${request.url.length})` : request.url} headers=${JSON.stringify(headers)} payload=${preview(request.payload)}`;
}

const paramNames = (route: RouteContract) => [...route.path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1]!);

/** The route's path with real ids (deletes aim at ids that do not exist), some replaced by raw segments. */
function pathOf(route: RouteContract, ids: Ids, overrides: Record<string, string> = {}): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    if (name in overrides) return overrides[name]!;
    if (route.method === 'DELETE') return '2147483647';
    return ids.byParam[name] ?? '1';
  });
}

const queryString = (pairs: ReadonlyArray<readonly [string, string]>): string =>
  pairs.length ? `?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')}` : '';

const HOSTILE_IDS = [
  '-1',
  '0',
  '-0',
  'abc',
  '1.5',
  '1e3',
  '2147483648',
  '4294967297',
  '1e309',
  'NaN',
  'Infinity',
  '0x10',
  '%201',
  '1%00',
  '..',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f',
  '9'.repeat(400),
  '%EF%BC%91',
  '%ZZ',
  '1;select',
  '%27%20OR%201%3D1',
];
const HOSTILE_QUERY_VALUES = ['-1', '0', 'abc', '1.5', '1e12', '1e309', '2147483648', '', ' ', 'true', 'null', '[]', '{"$gt":""}', '\u0000', 'x'.repeat(100_000)];
const MALFORMED_JSON = [
  '{',
  '{"a":',
  '[1,',
  '{"a":1,}',
  "{'a':1}",
  'undefined',
  'NaN',
  '{"a":1}{"b":2}',
  '{} trailing',
  '\u0000',
  `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
  'null',
  '[]',
  '"a string"',
  '123',
  'true',
  '1e309',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
];
/** Wrong-typed values for one body field; `1e309` is spliced in as raw JSON text (it parses to Infinity). */
const WRONG_VALUES: unknown[] = [
  '1',
  '-1',
  12_345,
  -1,
  0,
  1.5,
  2_147_483_648,
  'RAW_1E309',
  [],
  [1, 'a', null],
  {},
  { nested: { deeper: {} } },
  null,
  true,
  false,
  '',
  '\u0000',
  '../../etc/passwd',
  "' OR 1=1 --",
  'x'.repeat(200_000),
];

function jsonWith(base: unknown, key: string | null, value: unknown): string {
  const body = key === null ? value : { ...(typeof base === 'object' && base !== null && !Array.isArray(base) ? base : {}), [key]: value };
  return JSON.stringify(body).replaceAll('"RAW_1E309"', '1e309');
}

function zipOf(entries: Record<string, string>): Buffer {
  return Buffer.from(zipSync(Object.fromEntries(Object.entries(entries).map(([name, text]) => [name, strToU8(text)]))));
}

const FILE_EXAMPLES: Record<string, { filename: string; content: Buffer; contentType: string }> = {
  zip: { filename: 'tests.zip', content: zipOf({ '1.in': '1 2\n', '1.sol': '3\n' }), contentType: 'application/zip' },
  pdf: { filename: 'doc.pdf', content: Buffer.from('%PDF-1.4\n%%EOF\n'), contentType: 'application/pdf' },
  sourceCode: { filename: 'main.cpp', content: Buffer.from('int main(){}\n'), contentType: 'text/plain' },
};
const fileExample = (field: string) => FILE_EXAMPLES[field] ?? { filename: `${field}.bin`, content: Buffer.from('fuzz'), contentType: 'application/octet-stream' };

/** A multipart body by hand (so parts can repeat and break). */
function rawMultipart(parts: Array<{ name: string; filename?: string; contentType?: string; content: string | Buffer }>, boundary = 'fuzzBoundary7MA4YWxk'): { payload: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.contentType ? `Content-Type: ${part.contentType}\r\n` : ''}\r\n`),
      Buffer.from(part.content),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Every bad request for one route (without the caller's credentials). */
function badRequestsFor(route: RouteContract, ids: Ids, random: Random): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const base = `/api${pathOf(route, ids)}`;
  const add = (label: string, request: Omit<FuzzRequest, 'label' | 'method'> & { method?: string }) =>
    out.push({ label, method: request.method ?? route.method, ...request });
  const json = { 'content-type': 'application/json' };
  const takesBody = route.method !== 'GET';

  // Path parameters: hostile ids, one parameter at a time, and a literal ../ in the path.
  for (const name of paramNames(route)) {
    for (const value of HOSTILE_IDS) add(`param ${name}=${value.slice(0, 20)}`, { url: `/api${pathOf(route, ids, { [name]: value })}`, headers: {} });
    add(`param ${name} with ../`, { url: `/api${pathOf(route, ids, { [name]: `../${ids.byParam[name] ?? '1'}` })}`, headers: {} });
  }

  // Query values: hostile values per declared key, repeated keys, and unknown keys (pagination included).
  const querySchema = jsonSchemaOf(route.query);
  const queryKeys = objectKeys(querySchema);
  const baseQuery = Object.entries((exampleOf(querySchema) ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)] as const);
  for (const key of queryKeys) {
    const others = baseQuery.filter(([k]) => k !== key);
    for (const value of HOSTILE_QUERY_VALUES) add(`query ${key}=${value.slice(0, 20)}`, { url: `${base}${queryString([...others, [key, value]])}`, headers: {} });
    add(`query ${key} repeated`, { url: `${base}${queryString([...others, [key, '1'], [key, '2']])}`, headers: {} });
    add(`query ${key}[] bracket form`, { url: `${base}?${encodeURIComponent(`${key}[]`)}=1&${encodeURIComponent(`${key}[a]`)}=2`, headers: {} });
    add(`query ${key} raw %00 / bad escape`, { url: `${base}?${key}=%00&x=%ZZ`, headers: {} });
  }
  const pagination: Array<readonly [string, string]> = [['limit', '-1'], ['limit', '1e12'], ['limit', 'abc'], ['skip', '-1'], ['offset', '-5'], ['offset', 'abc']];
  for (const pair of pagination) add(`pagination ${pair.join('=')}`, { url: `${base}${queryString([...baseQuery.filter(([k]) => k !== pair[0]), pair])}`, headers: {} });
  add('unknown query keys', {
    url: `${base}${queryString([...baseQuery, ['zzz', '1'], ['__proto__', 'x'], ['constructor', 'y'], ['prototype[polluted]', '1']])}`,
    headers: {},
  });

  // Credentials that are not a valid access token.
  const [header, payload, signature = ''] = ids.adminToken.split('.');
  // A changed character inside the signature (the last one may only carry padding bits).
  const forged = `${header}.${payload}.${signature.slice(0, 5)}${signature[5] === 'A' ? 'B' : 'A'}${signature.slice(6)}`;
  const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
  for (const [label, headers] of [
    ['garbage bearer token', { authorization: 'Bearer garbage' }],
    ['tampered admin token', { authorization: `Bearer ${forged}` }],
    ['alg none token', { authorization: `Bearer ${unsigned}` }],
    ['token without payload', { authorization: `Bearer ${header}..` }],
    ['basic auth', { authorization: 'Basic Zm9vOmJhcg==' }],
    ['garbage cookie token', { cookie: 'accessToken=garbage' }],
  ] as const) {
    add(label, { url: base, headers: { ...headers }, ownAuth: true });
  }

  // Other methods on the route's path.
  if (route.method === 'GET') add('HEAD', { method: 'HEAD', url: base, headers: {} });
  add('OPTIONS', { method: 'OPTIONS', url: base, headers: {} });

  // Bodies: malformed JSON, wrong top-level types, wrong field types, missing fields, huge ones.
  if (route.body) {
    const bodySchema = jsonSchemaOf(route.body);
    const baseBody = exampleOf(bodySchema);
    for (const text of MALFORMED_JSON) add(`malformed JSON ${text.slice(0, 20)}`, { url: base, headers: json, payload: text });
    const keys = objectKeys(bodySchema);
    for (const key of keys) {
      for (const value of WRONG_VALUES) {
        add(`body ${key}=${JSON.stringify(value)?.slice(0, 20)}`, { url: base, headers: json, payload: jsonWith(baseBody, key, value) });
      }
      const without = { ...(baseBody as Record<string, unknown>) };
      delete without[key];
      add(`body without ${key}`, { url: base, headers: json, payload: JSON.stringify(without) });
    }
    if (Array.isArray(baseBody)) {
      const item = (baseBody[0] ?? {}) as Record<string, unknown>;
      for (const key of Object.keys(item)) {
        for (const value of WRONG_VALUES.slice(0, 14)) {
          add(`body[0].${key}=${JSON.stringify(value)?.slice(0, 20)}`, { url: base, headers: json, payload: jsonWith(null, null, [{ ...item, [key]: value }]) });
        }
      }
      add('body array of 10 000 items', { url: base, headers: json, payload: JSON.stringify(Array.from({ length: 10_000 }, () => item)) });
    }
    add('body with unknown keys', { url: base, headers: json, payload: jsonWith(baseBody, 'zzzUnknown', { a: 1 }) });
    add('body over 1 MB', { url: base, headers: json, payload: jsonWith(baseBody, keys[0] ?? 'value', 'x'.repeat(1_100_000)) });
  }
  if (takesBody && !route.multipart) {
    add('empty body with JSON content type', { url: base, headers: json, payload: '' });
    add('no body, JSON content type', { url: base, headers: json });
    add('JSON body without content type', { url: base, headers: {}, payload: '{}' });
    for (const [type, payload] of [
      ['text/plain', '{}'],
      ['application/xml', '<a/>'],
      ['application/x-www-form-urlencoded', 'a=1&b=2'],
      ['multipart/form-data', 'garbage'],
      ['application/json; charset=utf-16', '{}'],
      ['application/vnd.api+json', '{}'],
      ['APPLICATION/JSON', 'nope'],
      [';;;', '{}'],
    ] as const) {
      add(`content type ${type}`, { url: base, headers: { 'content-type': type }, payload });
    }
    add('JSON body that is not UTF-8', { url: base, headers: json, payload: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) });
  }

  // Multipart routes: garbage, truncated, wrong parts, too many fields, oversized files and hostile zips.
  if (route.multipart) {
    const fieldsSchema = jsonSchemaOf(route.multipart.fields);
    const fields = Object.fromEntries(Object.entries((exampleOf(fieldsSchema) ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
    const fileNames = Object.keys(route.multipart.files);
    const files = Object.fromEntries(fileNames.map((name) => [name, fileExample(name)]));
    const form = (overrides: { fields?: Record<string, string>; files?: Record<string, { filename: string; content: Buffer; contentType: string }> } = {}) =>
      multipartBody({ fields: overrides.fields ?? fields, files: overrides.files ?? files });
    const send = (label: string, body: { payload: Buffer | string; contentType: string }) => add(label, { url: base, headers: { 'content-type': body.contentType }, payload: body.payload });

    send('multipart without boundary', { payload: 'garbage', contentType: 'multipart/form-data' });
    send('multipart random bytes', { payload: random.bytes(2_048), contentType: 'multipart/form-data; boundary=fuzzBoundary' });
    const whole = form();
    send('multipart truncated', { payload: whole.payload.subarray(0, Math.floor(whole.payload.length / 2)), contentType: whole.contentType });
    send('multipart without closing boundary', { payload: whole.payload.subarray(0, whole.payload.length - 8), contentType: whole.contentType });
    send('multipart empty', multipartBody({}));
    send('multipart only text fields', multipartBody({ fields }));
    send('multipart files sent as text fields', multipartBody({ fields: { ...fields, ...Object.fromEntries(fileNames.map((n) => [n, 'not a file'])) } }));
    send('multipart text fields sent as files', multipartBody({ files: Object.fromEntries(Object.keys(fields).map((n) => [n, { filename: `${n}.txt`, content: Buffer.from('1') }])) }));
    send('multipart unknown file field', form({ files: { ...files, evil: { filename: 'evil.sh', content: Buffer.from('rm -rf /'), contentType: 'text/x-sh' } } }));
    send('multipart 60 text fields', multipartBody({ fields: { ...fields, ...Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, 'x'])) } }));
    for (const key of Object.keys(fields)) {
      for (const value of ['', '-1', 'abc', '1e309', '1.5', '\u0000', 'x'.repeat(1_100_000)]) {
        send(`multipart field ${key}=${value.slice(0, 12)}`, form({ fields: { ...fields, [key]: value } }));
      }
    }
    for (const name of fileNames) {
      const file = files[name]!;
      send(`multipart oversized ${name}`, form({ files: { ...files, [name]: { ...file, content: Buffer.alloc(FILE_LIMIT + 1, 0x61) } } }));
      send(`multipart empty ${name}`, form({ files: { ...files, [name]: { ...file, content: Buffer.alloc(0) } } }));
      send(`multipart random ${name}`, form({ files: { ...files, [name]: { ...file, content: random.bytes(4_096) } } }));
      for (const filename of ['../../etc/passwd', '', '\u0000.cpp', 'a'.repeat(5_000), 'noextension', 'x.exe']) {
        send(`multipart ${name} named ${filename.slice(0, 16)}`, form({ files: { ...files, [name]: { ...file, filename } } }));
      }
      send(`multipart ${name} twice`, rawMultipart([
        ...Object.entries(fields).map(([key, value]) => ({ name: key, content: value })),
        { name, filename: file.filename, contentType: file.contentType, content: file.content },
        { name, filename: file.filename, contentType: file.contentType, content: file.content },
      ]));
    }
    if (fileNames.includes('zip')) {
      const zip = files.zip!;
      const zips: Record<string, Buffer> = {
        'zip with ../evil': zipOf({ '../evil': 'pwned', '1.in': '1', '1.sol': '1' }),
        'zip with an absolute path': zipOf({ '/tmp/evil': 'pwned', '1.in': '1', '1.sol': '1' }),
        'zip with a/../../evil': zipOf({ 'a/../../evil': 'pwned', '1.in': '1', '1.sol': '1' }),
        'zip with backslash traversal': zipOf({ '..\\..\\evil': 'pwned', '1.in': '1', '1.sol': '1' }),
        'zip corrupt after the magic': Buffer.concat([Buffer.from('PK\u0003\u0004'), random.bytes(512)]),
        'zip empty': Buffer.from(zipSync({})),
        'zip without .sol files': zipOf({ '1.in': '1', '2.in': '2' }),
      };
      for (const [label, content] of Object.entries(zips)) send(label, form({ files: { ...files, zip: { ...zip, content } } }));
    }
    add('JSON body on a multipart route', { url: base, headers: json, payload: JSON.stringify(fields) });
    add('no body on a multipart route', { url: base, headers: {} });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------

interface Snapshot {
  readonly events: string;
  readonly head: string;
  readonly accounts: string;
}

let stack: Stack;
let app: App;
let user: TestUser;
let admin: TestUser;
let ids: Ids;
const errorLog: Array<{ msg?: string; err?: { type?: string; message?: string; stack?: string } }> = [];

async function snapshot(): Promise<Snapshot> {
  const row = (await stack.deps.pool.one(sql.unsafe`
    SELECT (SELECT count(*) FROM event_log)::text AS events, (SELECT coalesce(max(gpos), 0) FROM event_log)::text AS head,
      (SELECT count(*) FROM accounts)::text AS accounts`)) as unknown as Snapshot;
  return row;
}

beforeAll(async () => {
  stack = await startStack({ settings: { problemFileMaxBytes: FILE_LIMIT } });
  user = await stack.createUser();
  admin = await stack.createUser({ role: 'admin' });

  // Some data for the ids in paths: a shown problem, a submission of the user, an announcement.
  const { store, pool, projections } = stack.deps;
  const problemId = Number(await pool.oneFirst(sql.unsafe`SELECT nextval('problem_ids')`));
  const problemScope = `problem:${problemId}`;
  const problem = await store.append(`problem-${problemId}`, [
    { type: 'ProblemDetailsSet', scope: problemScope, data: { problemId, name: 'Fuzz A+B', sname: 'fuzz', case: '1' } },
    { type: 'ProblemJudgingConfigured', scope: problemScope, data: { problemId, score: 100, timeLimit: 1_000, memoryLimit: 256 } },
    { type: 'ProblemVisibilityChanged', scope: problemScope, data: { problemId, show: true } },
  ]);
  const submissionId = Number(await pool.oneFirst(sql.unsafe`SELECT nextval('submission_ids')`));
  const submissionScope = `user:${user.id}`;
  const submission = await store.append(`submission-${submissionId}`, [
    {
      type: 'SubmissionCreated',
      scope: submissionScope,
      data: { submissionId, userId: user.id, problemId, contestId: null, language: 'cpp', sourceCode: 'int main(){}', fileName: 'a.cpp' },
    },
  ]);
  await projections.waitFor('problems', { ...problem.lastPosition, scope: problemScope }, 10_000);
  await projections.waitFor('submissions', { ...submission.lastPosition, scope: submissionScope }, 10_000);
  const announcement = await stack.expectCall(announcementContract.createAnnouncement, 201, { as: admin, body: { value: 'fuzz' } });
  ids = {
    byParam: { problemId: String(problemId), submissionId: String(submissionId), userId: String(user.id), announcementId: String(announcement.id), contestId: '1' },
    adminToken: admin.token,
  };

  // A second app on the same stack whose error log is kept: a 500's stack trace goes into the failure.
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        try {
          errorLog.push(JSON.parse(line) as (typeof errorLog)[number]);
        } catch {
          errorLog.push({ msg: line });
        }
      }
      done();
    },
  });
  app = buildApp({ logger: createLogger({ name: 'fuzz', level: 'error', destination }), api: stack.deps });
  await app.ready();
}, 60_000);

afterAll(async () => {
  await app?.close();
  await stack?.stop();
});

/** JSON `{message: string}`, or why not. */
function messageProblem(contentType: string, body: string): string | null {
  if (!contentType.includes('application/json')) return `content type ${contentType || '(none)'} is not JSON`;
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    return typeof parsed?.message === 'string' ? null : 'body has no string message';
  } catch {
    return 'body is not JSON';
  }
}

describe('bad input never gives a 500', () => {
  it(`answers every bad request with a 4xx {message} and changes nothing (seed ${SEED})`, async () => {
    const random = generator(SEED);
    const failures: string[] = [];
    const callers: Array<[string, string | null]> = [
      ['anonymous', null],
      ['user', user.token],
      ['admin', admin.token],
    ];
    let sent = 0;
    const statuses = new Map<number, number>();
    let before = await snapshot();
    for (const route of allRoutes) {
      const requests = badRequestsFor(route, ids, random);
      for (const [callerName, token] of callers) {
        for (const request of requests) {
          // Forged credentials replace the caller's: sent once, as "anonymous".
          if (request.ownAuth && token !== null) continue;
          const headers = { ...request.headers, ...(token && !request.ownAuth ? { authorization: `Bearer ${token}` } : {}) };
          const logged = errorLog.length;
          const response = await app.inject({
            method: request.method as 'GET',
            url: request.url,
            headers,
            ...(request.payload === undefined ? {} : { payload: request.payload }),
          });
          sent += 1;
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          const where = `${route.method} ${route.path} — ${describeRequest(request, callerName)}`;
          const status = response.statusCode;
          if (process.env.FUZZ_VERBOSE) console.log(`${status} ${response.body.slice(0, 100)} ← ${where}`);
          if (status >= 500) {
            const errors = errorLog.slice(logged).map((entry) => entry.err?.stack ?? entry.err?.message ?? entry.msg);
            failures.push(`${status} ${response.body.slice(0, 200)} for ${where}\n    ${errors.join('\n    ') || '(no error logged)'}`);
          } else if (status >= 400 && request.method !== 'HEAD') {
            // (a HEAD answer has no body by definition)
            const problem = messageProblem(String(response.headers['content-type'] ?? ''), response.body);
            if (problem) failures.push(`${status} with ${problem} (${response.body.slice(0, 120)}) for ${where}`);
          }
          const after = await snapshot();
          if (status >= 400 && status < 500 && JSON.stringify(after) !== JSON.stringify(before)) {
            failures.push(`${status} but the state changed (${JSON.stringify(before)} → ${JSON.stringify(after)}) for ${where}`);
          }
          before = after;
        }
      }
    }
    console.log(`fuzz: ${sent} requests over ${allRoutes.length} routes (seed ${SEED}); statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    // 500s first: they matter most and carry their stack traces.
    const ordered = [...failures.filter((f) => f.startsWith('5')), ...failures.filter((f) => !f.startsWith('5'))];
    expect(failures.length, `${failures.length} bad answers (FUZZ_SEED=${SEED}):\n${ordered.slice(0, 40).join('\n')}`).toBe(0);
  }, 300_000);
});
