import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedAttachmentUrl } from '@otog/api/modules/problems/files';
import { checkTestdataZip } from '@otog/api/modules/problems/testdata-validation';
import { createProblemTableCache } from '@otog/api/modules/problems/problem-table';
import { withForgedCrc, withForgedSize } from '../support/forged-zip.ts';
import { seedSampleProblems } from '@otog/api/seed/seed-problems';
import { z } from 'zod';
import { sql } from '@otog/platform/db/pool';
import { readModel } from '@otog/platform/runner/read-model';
import { createProblemQueries, problemsProjection, submissionsProjection } from '@otog/projections';
import { problemContract as routes, type Problem } from '@otog/schemas/api/problem';
import { submissionContract } from '@otog/schemas/api/submission';
import { userContract } from '@otog/schemas/api/user';
import { contestContract } from '@otog/schemas/api/contest';
import { until } from '../support/until.ts';
import { contestKit } from './support/contest-kit.ts';
import { startStack, type Stack, type TestUser } from './support/stack.ts';

const samplesDir = fileURLToPath(new URL('../../judge/samples', import.meta.url));
const PDF = '%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n';
const UNKNOWN_ID = 2_000_000_000;

let stack: Stack;
let admin: TestUser;
let user: TestUser;
let otherUser: TestUser;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.createUser({ role: 'admin' });
  user = await stack.createUser();
  otherUser = await stack.createUser();
}, 120_000);
afterAll(() => stack?.stop());

/** A test-data zip with tests 1..n (a+b), plus extra entries. */
function testdataZip(n: number, extra: Zippable = {}): Uint8Array {
  const files: Zippable = {};
  for (let i = 1; i <= n; i += 1) {
    files[`${i}.in`] = new TextEncoder().encode(`${i} ${i}\n`);
    files[`${i}.sol`] = new TextEncoder().encode(`${2 * i}\n`);
  }
  return zipSync({ ...files, ...extra });
}

const text = (value: string) => new TextEncoder().encode(value);

function form(fields: Record<string, string> = {}, files: { zip?: Uint8Array; pdf?: Uint8Array | string } = {}) {
  return {
    fields: { name: 'A plus B', sname: 'aplusb', score: '100', timeLimit: '1', memoryLimit: '256', ...fields },
    files: {
      ...(files.zip ? { zip: { filename: 'tests.zip', content: files.zip, contentType: 'application/zip' } } : {}),
      ...(files.pdf ? { pdf: { filename: 'statement.pdf', content: files.pdf, contentType: 'application/pdf' } } : {}),
    },
  };
}

async function createProblem(fields: Record<string, string> = {}, files: { zip?: Uint8Array; pdf?: Uint8Array | string } = {}): Promise<Problem> {
  return stack.expectCall(routes.createProblem, 201, { as: admin, form: form(fields, files) });
}

async function show(problemId: number, value = true): Promise<Problem> {
  return stack.expectCall(routes.showProblem, 200, { as: admin, params: { problemId }, body: { show: value } });
}

async function badForm(fields: Record<string, string>, files: { zip?: Uint8Array; pdf?: Uint8Array | string } = {}): Promise<string> {
  return (await stack.expectCall(routes.createProblem, 400, { as: admin, form: form(fields, files) })).message;
}

/** The stored row's file references (not part of the API). */
const liveProblems = readModel({ p: problemsProjection });
const Hashes = z.object({ testdata_hash: z.string().nullable(), statement_hash: z.string().nullable() });
async function hashesOf(problemId: number): Promise<z.infer<typeof Hashes>> {
  const { p } = await liveProblems(stack.deps.pool);
  return stack.deps.pool.one(sql.type(Hashes)`SELECT testdata_hash, statement_hash FROM ${p.problems} WHERE id = ${problemId}`);
}

let submissionCounter = 0;
/** A judged submission, appended as the judge would (SubmissionCreated then SubmissionJudged). */
async function judgedSubmission(by: TestUser, problemId: number, status: 'accept' | 'reject'): Promise<number> {
  const submissionId = Number(await stack.deps.pool.oneFirst(sql.unsafe`SELECT nextval('submission_ids')::int`));
  submissionCounter += 1;
  const scope = `user:${by.id}`;
  const data = { submissionId, userId: by.id, problemId, contestId: null, language: 'cpp', sourceCode: `// ${submissionCounter}`, fileName: null };
  await stack.deps.store.append(`submission-${submissionId}`, [{ type: 'SubmissionCreated', scope, data }], { expectedVersion: 'none' });
  await judge(by, submissionId, 1, status);
  return submissionId;
}

/** The judge's verdict on the given judging of a submission (1 = the first; a rejudge's is its stream position). */
async function judge(by: TestUser, submissionId: number, judging: number, status: 'accept' | 'reject'): Promise<void> {
  const scope = `user:${by.id}`;
  const judged = await stack.deps.store.append(`submission-${submissionId}`, [
    {
      type: 'SubmissionJudged',
      scope,
      data: {
        submissionId,
        judging,
        status,
        result: status === 'accept' ? 'PP' : 'P-',
        score: status === 'accept' ? 100 : 50,
        timeUsed: 1,
        memUsed: 100,
        errmsg: null,
        subtaskResults: [],
        judgedBy: null,
        attempts: 1,
      },
    },
  ]);
  await stack.deps.projections.waitFor('submissions', { ...judged.lastPosition, scope }, 10_000);
}

describe('sample problems', () => {
  // First in the file: the seed runs only while no problem was ever created.
  it('seeds the judge samples once, shown and validated like POST /problem', async () => {
    expect(await seedSampleProblems(stack.deps, admin.id, samplesDir)).toBe(7);
    expect(await seedSampleProblems(stack.deps, admin.id, samplesDir)).toBe(0);
    const table = await stack.expectCall(routes.getProblems, 200, { as: null });
    const byName = new Map(table.map((row) => [row.sname, row]));
    expect([...byName.keys()].sort()).toEqual(['aplusb', 'checker-check-cpp', 'checker-interactive', 'checker-thaco', 'five-subtask', 'library', 'partial-options']);
    expect(byName.get('aplusb')).toMatchObject({ show: true, case: '10', timeLimit: 1000, memoryLimit: 256, score: 100 });
    expect(byName.get('five-subtask')).toMatchObject({ case: '16', timeLimit: 200 });
    const hashes = await hashesOf(byName.get('library')!.id);
    const zip = unzipSync((await stack.objects.get(hashes.testdata_hash!))!);
    expect(Object.keys(zip).sort()).toEqual(['1.in', '1.sol', '2.in', '2.sol', '3.in', '3.sol', 'add.h', 'grader.cpp']);
    // Each sample has a statement: a real PDF, served like any problem's.
    for (const row of table) {
      const pdf = await stack.call(routes.getProblemDoc, { as: null, params: { problemId: row.id } });
      expect(pdf.statusCode, row.sname ?? '').toBe(200);
      expect(pdf.headers['content-type']).toMatch(/^application\/pdf/);
      expect(pdf.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
    expect((await stack.call(routes.getProblemDoc, { as: null, params: { problemId: byName.get('aplusb')!.id } })).rawPayload.toString('latin1')).toContain('Print a + b.');
  });
});

describe('POST /problem', () => {
  it('creates a hidden problem: timeLimit seconds x1000, case from the zip, files stored', async () => {
    const created = await createProblem({ timeLimit: '1.5', memoryLimit: '64', score: '200' }, { zip: testdataZip(3), pdf: PDF });
    expect(created).toMatchObject({ name: 'A plus B', sname: 'aplusb', score: 200, timeLimit: 1500, memoryLimit: 64, show: false, case: '3' });
    expect(created).toMatchObject({ recentShowTime: null, rating: null, examples: null, attachmentMetadata: null });
    expect(await stack.expectCall(routes.getProblem, 200, { as: admin, params: { problemId: created.id } })).toEqual(created);
    const hashes = await hashesOf(created.id);
    expect(Buffer.from((await stack.objects.get(hashes.statement_hash!))!).toString()).toBe(PDF);
    expect(Object.keys(unzipSync((await stack.objects.get(hashes.testdata_hash!))!)).sort()).toEqual(['1.in', '1.sol', '2.in', '2.sol', '3.in', '3.sol']);
  });

  it('keeps the admin case without a zip, and accepts a matching one with a zip', async () => {
    expect((await createProblem({ case: '7' })).case).toBe('7');
    expect((await createProblem({})).case).toBeNull();
    expect((await createProblem({ case: '2' }, { zip: testdataZip(2) })).case).toBe('2');
  });

  it('re-packs a zip whose files sit in one top folder', async () => {
    const files: Zippable = {};
    for (let i = 1; i <= 2; i += 1) Object.assign(files, { [`pkg/${i}.in`]: text('1\n'), [`pkg/${i}.sol`]: text('1\n') });
    const created = await createProblem({}, { zip: zipSync(files) });
    expect(created.case).toBe('2');
    const stored = unzipSync((await stack.objects.get((await hashesOf(created.id)).testdata_hash!))!);
    expect(Object.keys(stored).sort()).toEqual(['1.in', '1.sol', '2.in', '2.sol']);
    const dotted = await createProblem({}, { zip: zipSync({ './1.in': text('1\n'), './1.sol': text('1\n'), '__MACOSX/._1.in': text('x') }) });
    expect(dotted.case).toBe('1');
    expect(Object.keys(unzipSync((await stack.objects.get((await hashesOf(dotted.id)).testdata_hash!))!)).sort()).toEqual(['1.in', '1.sol']);
  });

  it('names every missing or invalid field (400)', async () => {
    const missing = await stack.expectCall(routes.createProblem, 400, { as: admin, form: { fields: { sname: 'x', score: '1', timeLimit: '1' } } });
    expect(missing.message).toContain('name: Required');
    expect(missing.message).toContain('memoryLimit: Required');
    expect(await badForm({ name: '  ' })).toContain('name: Required');
    expect(await badForm({ score: 'abc' })).toMatch(/score: Expected a whole number/);
    expect(await badForm({ score: '0' })).toMatch(/score: must be at least 1/);
    expect(await badForm({ score: '10001' })).toMatch(/score: must be at most 10000/);
    expect(await badForm({ timeLimit: '0.0001' })).toMatch(/timeLimit: must be at least 0.001 seconds/);
    expect(await badForm({ timeLimit: '61' })).toMatch(/timeLimit: must be at most 60 seconds/);
    expect(await badForm({ timeLimit: '1s' })).toMatch(/timeLimit: Expected a number/);
    expect(await badForm({ memoryLimit: '5000' })).toMatch(/memoryLimit: must be at most 4096 MB/);
    expect(await badForm({ name: 'x'.repeat(256) })).toMatch(/name: must be at most 255/);
    const json = await stack.expectCall(routes.createProblem, 400, { as: admin, body: { name: 'x' } });
    expect(json.message).toMatch(/multipart/);
  });

  it('refuses a PDF that is not a PDF and an unexpected file field', async () => {
    expect(await badForm({}, { pdf: 'hello' })).toMatch(/pdf: the file is not a PDF/);
    const odd = await stack.expectCall(routes.createProblem, 400, {
      as: admin,
      form: { ...form(), files: { image: { filename: 'a.png', content: 'x' } } },
    });
    expect(odd.message).toMatch(/image/);
  });

  it('validates the zip at upload and reports every problem', async () => {
    expect(await badForm({}, { zip: testdataZip(2, { '../evil.sh': text('rm -rf /') }) })).toMatch(/"\.\.\/evil\.sh" is refused: a "\.\." path segment/);
    expect(await badForm({}, { zip: testdataZip(2, { '/etc/passwd': text('x') }) })).toMatch(/an absolute path/);
    const noSol2 = testdataZip(3);
    const entries = unzipSync(noSol2);
    delete entries['2.sol'];
    expect(await badForm({}, { zip: zipSync(entries) })).toMatch(/solution missing: 2\.sol/);
    delete entries['1.in'];
    const both = await badForm({}, { zip: zipSync(entries) }, );
    expect(both).toMatch(/input missing: 1\.in/);
    expect(both).toMatch(/solution missing: 2\.sol/);
    expect(await badForm({}, { zip: zipSync({ 'readme.txt': text('hi') }) })).toMatch(/no test files/);
    expect(await badForm({}, { zip: text('not a zip') })).toMatch(/not a valid zip file/);
    expect(await badForm({}, { zip: testdataZip(2, { 'sub/3.in': text('x') }) })).toMatch(/inside a folder/);
    expect(await badForm({}, { zip: testdataZip(1, { 'main.cpp': text('int main(){}') }) })).toMatch(/main\.cpp: the submission itself/);
    const symlink = zipSync({ ...unzipSync(testdataZip(1)), 'link.in': [text('/etc/passwd'), { os: 3, attrs: 0o120777 << 16 }] });
    expect(await badForm({}, { zip: symlink })).toMatch(/"link\.in" is a symbolic link/);
    expect(await badForm({ case: '5' }, { zip: testdataZip(3) })).toMatch(/case is "5" but the zip has 3 tests/);
    // Both files' problems in one answer.
    const twoFiles = await badForm({}, { zip: testdataZip(2, { '../x': text('') }), pdf: 'nope' });
    expect(twoFiles).toMatch(/pdf: .*zip: /);
  });

  it('checks subtask.json', async () => {
    const subtask = (json: string) => testdataZip(4, { 'subtask.json': text(json) });
    expect(await badForm({}, { zip: subtask('{ not json') })).toMatch(/subtask\.json is not valid JSON/);
    expect(await badForm({}, { zip: subtask('{"data": {"subtask 1": {"case": "1-9"}}}') })).toMatch(/test 9 is outside 1\.\.4/);
    expect(
      await badForm({}, { zip: subtask('{"data": {"s1": {"case": "1-2", "require": 2}, "s2": {"case": "3-4", "require": 1}}}') }),
    ).toMatch(/require has a cycle: subtask 1 requires 2 requires 1/);
    expect(await badForm({}, { zip: subtask('{"data": {"s1": {"case": "1-4", "require": 7}}}') })).toMatch(/requires subtask 7, which does not exist/);
    expect(await badForm({}, { zip: subtask('{"data": {"s1": {"case": 3}}}') })).toMatch(/case must be a string/);
    const good = await createProblem({}, { zip: subtask('{"version": 1.0, "data": {"subtask 1": {"case": "1-2", "group": false}, "subtask 2": {"case": "3,4", "require": 1}}}') });
    expect(good.case).toBe('4');
  });

  it('is for admins only', async () => {
    expect((await stack.expectCall(routes.createProblem, 401, { as: null, form: form() })).message).toBeTruthy();
    await stack.expectCall(routes.createProblem, 403, { as: user, form: form() });
  });
});

describe('test-data limits', () => {
  it('refuses zips over the entry and size limits (zip bombs)', async () => {
    const zip = testdataZip(3);
    const tooBig = await checkTestdataZip(zip, null, { maxEntries: 100, maxTotalBytes: 10, maxTests: 100 });
    expect(tooBig.ok || tooBig.problems.join()).toMatch(/unpacks to \d+ bytes; the limit is 10/);
    const tooMany = await checkTestdataZip(zip, null, { maxEntries: 4, maxTotalBytes: 1_000_000, maxTests: 100 });
    expect(tooMany.ok || tooMany.problems.join()).toMatch(/more than 4 entries/);
  });

  it('refuses entries whose bytes differ from their recorded size or checksum', async () => {
    const zip = testdataZip(3);
    expect((await checkTestdataZip(zip, null)).ok).toBe(true);
    for (const forged of [withForgedCrc(zip), withForgedSize(zip, 1), withForgedSize(zip, 100_000)]) {
      const result = await checkTestdataZip(forged, null);
      expect(result.ok || result.problems.join()).toMatch(/1\.in (does not match its zip entry's checksum|unpacks to \d+ bytes, not the \d+)|cannot unpack the zip/);
    }
  });
});

describe('reading problems', () => {
  let hidden: Problem;
  let shown: Problem;
  beforeAll(async () => {
    hidden = await createProblem({ name: 'Hidden one', sname: 'hid' }, { zip: testdataZip(2), pdf: PDF });
    shown = await createProblem({ name: 'Shown one', sname: 'sho' }, { zip: testdataZip(2), pdf: PDF });
    shown = await show(shown.id);
  });

  it('GET /problem/:id: hidden problems only for admins (403 for users and anonymous)', async () => {
    expect((await stack.expectCall(routes.getProblem, 403, { as: user, params: { problemId: hidden.id } })).message).toBe('This problem is hidden');
    await stack.expectCall(routes.getProblem, 403, { as: null, params: { problemId: hidden.id } });
    expect(await stack.expectCall(routes.getProblem, 200, { as: admin, params: { problemId: hidden.id } })).toMatchObject({ id: hidden.id, show: false });
    expect(await stack.expectCall(routes.getProblem, 200, { as: null, params: { problemId: shown.id } })).toEqual(shown);
    await stack.expectCall(routes.getProblem, 404, { as: admin, params: { problemId: UNKNOWN_ID } });
    await stack.expectCall(routes.getProblem, 400, { as: admin, params: { problemId: 'abc' } });
    await stack.expectCall(routes.getProblem, 401, { as: 'not-a-token', params: { problemId: shown.id } });
  });

  it('PATCH /problem/:id shows and hides, setting recentShowTime', async () => {
    const before = Date.now();
    expect(shown.show).toBe(true);
    expect(Date.parse(shown.recentShowTime!)).toBeGreaterThan(before - 60_000);
    const toggled = await createProblem({ name: 'Toggled' });
    const on = await show(toggled.id, true);
    await stack.expectCall(routes.getProblem, 200, { as: user, params: { problemId: toggled.id } });
    const off = await show(toggled.id, false);
    expect(off.show).toBe(false);
    expect(Date.parse(off.recentShowTime!)).toBeGreaterThanOrEqual(Date.parse(on.recentShowTime!));
    await stack.expectCall(routes.getProblem, 403, { as: user, params: { problemId: toggled.id } });
    await stack.expectCall(routes.showProblem, 403, { as: user, params: { problemId: toggled.id }, body: { show: true } });
    await stack.expectCall(routes.showProblem, 401, { as: null, params: { problemId: toggled.id }, body: { show: true } });
    await stack.expectCall(routes.showProblem, 400, { as: admin, params: { problemId: toggled.id }, body: { show: 'yes' } });
    await stack.expectCall(routes.showProblem, 404, { as: admin, params: { problemId: UNKNOWN_ID }, body: { show: true } });
  });

  it('GET /problem: shown problems for anonymous and users, all for admins, newest first', async () => {
    const anonymous = await stack.expectCall(routes.getProblems, 200, { as: null });
    expect(anonymous.map((row) => row.id)).toContain(shown.id);
    expect(anonymous.map((row) => row.id)).not.toContain(hidden.id);
    expect(anonymous.every((row) => row.show && row.latestSubmission === null)).toBe(true);
    const ids = anonymous.map((row) => row.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const forUser = await stack.expectCall(routes.getProblems, 200, { as: user });
    expect(forUser.map((row) => row.id)).not.toContain(hidden.id);
    const forAdmin = await stack.expectCall(routes.getProblems, 200, { as: admin });
    expect(forAdmin.find((row) => row.id === hidden.id)).toMatchObject({ name: 'Hidden one', show: false, passedCount: 0, latestSubmission: null });
  });

  it('GET /problem/doc/:id streams the PDF; hidden ones only for admins (cookie or bearer)', async () => {
    const response = await stack.call(routes.getProblemDoc, { as: null, params: { problemId: shown.id } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toMatch(/^inline; filename="\d+\.pdf"/);
    expect(response.body).toBe(PDF);
    await stack.expectCall(routes.getProblemDoc, 403, { as: null, params: { problemId: hidden.id } });
    await stack.expectCall(routes.getProblemDoc, 403, { as: null, cookies: { accessToken: user.token }, params: { problemId: hidden.id } });
    const asAdmin = await stack.call(routes.getProblemDoc, { as: null, cookies: { accessToken: admin.token }, params: { problemId: hidden.id } });
    expect(asAdmin.statusCode).toBe(200);
    expect(asAdmin.body).toBe(PDF);
    // An expired or broken cookie must not break a shown problem's PDF.
    expect((await stack.call(routes.getProblemDoc, { cookies: { accessToken: 'garbage' }, params: { problemId: shown.id } })).statusCode).toBe(200);
    const noPdf = await createProblem();
    expect((await stack.expectCall(routes.getProblemDoc, 404, { as: admin, params: { problemId: noPdf.id } })).message).toBe('Statement not found');
    await stack.expectCall(routes.getProblemDoc, 404, { as: admin, params: { problemId: UNKNOWN_ID } });
  });

  it('admin search and list: exact id or name/sname contains, any case; paginated', async () => {
    const a = await createProblem({ name: 'Zebra_Crossing%', sname: 'zc' });
    const b = await createProblem({ name: 'Other', sname: 'ZEBRA-ish' });
    const found = await stack.expectCall(routes.searchProblems, 200, { as: admin, query: { search: 'zebra' } });
    expect(found.map((row) => row.id)).toEqual([b.id, a.id]);
    expect(found[0]).toEqual({ id: b.id, name: 'Other', sname: 'ZEBRA-ish' });
    expect((await stack.expectCall(routes.searchProblems, 200, { as: admin, query: { search: String(a.id) } })).map((row) => row.id)).toContain(a.id);
    // LIKE wildcards are literal.
    expect((await stack.expectCall(routes.searchProblems, 200, { as: admin, query: { search: 'g%' } })).map((row) => row.id)).toEqual([a.id]);
    expect(await stack.expectCall(routes.searchProblems, 200, { as: admin, query: { search: 'zebra', limit: 1, skip: 1 } })).toHaveLength(1);
    expect(await stack.expectCall(routes.searchProblems, 200, { as: admin })).toHaveLength(10);

    const list = await stack.expectCall(routes.adminList, 200, { as: admin, query: { search: 'zebra', limit: 1 } });
    expect(list.total).toBe(2);
    expect(list.data).toEqual([
      { id: b.id, name: 'Other', sname: 'ZEBRA-ish', show: false, case: null, memoryLimit: 256, timeLimit: 1000, recentShowTime: null, score: 100, attachmentMetadata: null },
    ]);
    const all = await stack.expectCall(routes.adminList, 200, { as: admin, query: { limit: 1000 } });
    expect(all.total).toBe(all.data.length);

    for (const route of [routes.searchProblems, routes.adminList]) {
      await stack.expectCall(route, 401, { as: null });
      await stack.expectCall(route, 403, { as: user });
      await stack.expectCall(route, 400, { as: admin, query: { limit: -1 } });
    }
  });
});

describe('passed counts and latest submissions', () => {
  it('counts distinct role-user solvers with one grouped query, and shows the caller\'s latest submission', async () => {
    const problem = await show((await createProblem({ name: 'Counted' }, { zip: testdataZip(2) })).id);
    const other = await show((await createProblem({ name: 'Uncounted' }, { zip: testdataZip(2) })).id);
    const firstAccept = await judgedSubmission(user, problem.id, 'accept');
    const secondAccept = await judgedSubmission(user, problem.id, 'accept');
    const latestReject = await judgedSubmission(user, problem.id, 'reject');
    const otherAccept = await judgedSubmission(otherUser, problem.id, 'accept');
    await judgedSubmission(admin, problem.id, 'accept');
    const third = await stack.createUser();
    await judgedSubmission(third, problem.id, 'reject');
    await judgedSubmission(third, other.id, 'reject');

    const forUser = await stack.expectCall(routes.getProblems, 200, { as: user });
    expect(forUser.find((row) => row.id === problem.id)).toMatchObject({
      passedCount: 2,
      latestSubmission: { id: latestReject, status: 'reject', userId: user.id, public: false },
    });
    expect(forUser.find((row) => row.id === other.id)).toMatchObject({ passedCount: 0, latestSubmission: null });
    const anonymous = await stack.expectCall(routes.getProblems, 200, { as: null });
    expect(anonymous.find((row) => row.id === problem.id)).toMatchObject({ passedCount: 2, latestSubmission: null });
    const forOther = await stack.expectCall(routes.getProblems, 200, { as: otherUser });
    expect(forOther.find((row) => row.id === problem.id)?.latestSubmission).toEqual({ id: otherAccept, status: 'accept', userId: otherUser.id, public: false });

    // GET /problem/:id/user: the same solvers, newest user first, each with their latest accepted submission.
    const passed = await stack.expectCall(routes.passedUsers, 200, { as: null, params: { problemId: problem.id } });
    expect(passed).toEqual([
      { id: otherUser.id, role: 'user', username: otherUser.username, showName: otherUser.showName, rating: null, passedSubmission: { id: otherAccept, status: 'accept', userId: otherUser.id, public: false } },
      { id: user.id, role: 'user', username: user.username, showName: user.showName, rating: null, passedSubmission: { id: secondAccept, status: 'accept', userId: user.id, public: false } },
    ]);
    expect(secondAccept).toBeGreaterThan(firstAccept);
    expect(await stack.expectCall(routes.passedUsers, 200, { as: null, params: { problemId: other.id } })).toEqual([]);
    await stack.expectCall(routes.passedUsers, 404, { as: null, params: { problemId: UNKNOWN_ID } });
    const hidden = await createProblem({ name: 'Hidden solvers' });
    await stack.expectCall(routes.passedUsers, 403, { as: user, params: { problemId: hidden.id } });
    expect(await stack.expectCall(routes.passedUsers, 200, { as: admin, params: { problemId: hidden.id } })).toEqual([]);
  });
});

describe('passed counts kept in the read model', () => {
  const liveSubmissions = readModel({ s: submissionsProjection });
  const Counts = z.object({ problemId: z.number().int(), count: z.number().int() });

  /** The passed counts as GET /problem computed them per request before they were kept: the oracle. */
  async function countedFromSubmissions(): Promise<Map<number, number>> {
    const { s } = await liveSubmissions(stack.deps.pool);
    const rows = await stack.deps.pool.any(sql.type(Counts)`
      SELECT accepted.problem_id AS "problemId", count(*)::int AS count
      FROM (SELECT DISTINCT problem_id, user_id FROM ${s.submissions} WHERE status = 'accept') accepted
      JOIN accounts a ON a.id = accepted.user_id AND a.role = 'user'
      GROUP BY accepted.problem_id`);
    return new Map(rows.map((row) => [row.problemId, row.count]));
  }

  async function kept(): Promise<Map<number, number>> {
    const { s } = await liveSubmissions(stack.deps.pool);
    const rows = await stack.deps.pool.any(sql.type(Counts)`
      SELECT v.problem_id AS "problemId", count(*)::int AS count
      FROM ${s.solvers} v JOIN ${s.roles} r ON r.user_id = v.user_id AND r.role = 'user'
      GROUP BY v.problem_id`);
    return new Map(rows.map((row) => [row.problemId, row.count]));
  }

  const passedCount = async (problemId: number, as: TestUser | null = null) =>
    (await stack.expectCall(routes.getProblems, 200, { as })).find((row) => row.id === problemId)?.passedCount;

  it('counts an accept once per user, drops it when a rejudge turns it into a reject, and matches the old per-request count', async () => {
    const problem = await show((await createProblem({ name: 'Rejudged' })).id);
    const solver = await stack.createUser();
    const accepted = await judgedSubmission(solver, problem.id, 'accept');
    expect(await passedCount(problem.id)).toBe(1);
    await judgedSubmission(solver, problem.id, 'accept');
    await judgedSubmission(otherUser, problem.id, 'accept');
    expect(await passedCount(problem.id)).toBe(2);
    expect((await kept()).get(problem.id)).toBe(2);

    // The rejudge sends it back to waiting (stream position 3: created 1, judged 2): the other accept still counts.
    await stack.expectCall(submissionContract.rejudgeSubmission, 200, { as: admin, params: { submissionId: accepted } });
    expect(await passedCount(problem.id)).toBe(2);
    const solverOnly = await show((await createProblem({ name: 'Rejudged, one solver' })).id);
    const only = await judgedSubmission(solver, solverOnly.id, 'accept');
    expect(await passedCount(solverOnly.id, solver)).toBe(1);
    await stack.expectCall(submissionContract.rejudgeSubmission, 200, { as: admin, params: { submissionId: only } });
    expect(await passedCount(solverOnly.id, solver)).toBe(0);
    await judge(solver, only, 3, 'reject');
    expect(await passedCount(solverOnly.id)).toBe(0);
    await judge(solver, accepted, 3, 'reject');
    expect(await passedCount(problem.id)).toBe(2);

    expect(await kept()).toEqual(await countedFromSubmissions());
  });

  it('an admin\'s accepts do not count, and a change of role recounts the user\'s problems', async () => {
    const problem = await show((await createProblem({ name: 'Role change' })).id);
    const solver = await stack.createUser();
    await judgedSubmission(solver, problem.id, 'accept');
    await judgedSubmission(admin, problem.id, 'accept');
    expect(await passedCount(problem.id)).toBe(1);

    const edit = (role: 'user' | 'admin') =>
      stack.expectCall(userContract.update, 200, { as: admin, params: { userId: solver.id }, body: { username: solver.username, showName: solver.showName, role } });
    await edit('admin');
    await until('the promoted solver no longer counts', async () => (await passedCount(problem.id)) === 0);
    await edit('user');
    await until('the demoted solver counts again', async () => (await passedCount(problem.id)) === 1);
    expect(await kept()).toEqual(await countedFromSubmissions());
  });
});

describe('GET /problem: cached per read-model version, ETags, compression', () => {
  const table = (response: { rawPayload: Buffer }) => z.array(z.object({ id: z.number(), latestSubmission: z.unknown() })).parse(JSON.parse(response.rawPayload.toString()));

  it('answers 304 to a matching If-None-Match, and a new ETag once the table changed', async () => {
    const first = await stack.call(routes.getProblems, { as: null });
    expect(first.statusCode).toBe(200);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers.vary).toMatch(/Accept-Encoding/);

    const again = await stack.call(routes.getProblems, { as: null, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    // Another ETag (or a list without it) gets the table.
    expect((await stack.call(routes.getProblems, { as: null, headers: { 'if-none-match': 'W/"other", "more"' } })).statusCode).toBe(200);

    const added = await show((await createProblem({ name: 'Fresh in the table' })).id);
    const changed = await stack.call(routes.getProblems, { as: null, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(table(changed).map((row) => row.id)).toContain(added.id);
  });

  it('a problem an admin hides is gone from the cached anonymous and user tables at once, and back when shown', async () => {
    const problem = await show((await createProblem({ name: 'Soon hidden' })).id);
    const ids = async (as: TestUser | null) => table(await stack.call(routes.getProblems, { as })).map((row) => row.id);
    expect(await ids(null)).toContain(problem.id);
    expect(await ids(user)).toContain(problem.id);
    const before = String((await stack.call(routes.getProblems, { as: null })).headers.etag);

    await show(problem.id, false);
    expect(await ids(null)).not.toContain(problem.id);
    expect(await ids(user)).not.toContain(problem.id);
    expect(await ids(admin)).toContain(problem.id);
    expect((await stack.call(routes.getProblems, { as: null, headers: { 'if-none-match': before } })).statusCode).toBe(200);

    await show(problem.id, true);
    expect(await ids(null)).toContain(problem.id);
  });

  it('compresses with brotli or gzip when asked, once per version for the shared table; the JSON is the same', async () => {
    const plain = await stack.call(routes.getProblems, { as: null });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await stack.call(routes.getProblems, { as: null, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
    const gz = await stack.call(routes.getProblems, { as: null, headers: { 'accept-encoding': 'gzip;q=1.0, br;q=0' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
    expect(gz.headers.etag).toBe(plain.headers.etag);
    expect((await stack.call(routes.getProblems, { as: null, headers: { 'accept-encoding': 'identity' } })).headers['content-encoding']).toBeUndefined();
    // The same bytes again: compressed once for this version.
    expect((await stack.call(routes.getProblems, { as: null, headers: { 'accept-encoding': 'br' } })).rawPayload.equals(br.rawPayload)).toBe(true);
  });

  it('a signed-in caller gets their own latest submissions spliced into the shared table, compressed too, with an ETag of their own', async () => {
    const problem = await show((await createProblem({ name: 'Spliced' })).id);
    const submitter = await stack.createUser();
    const anonymousEtag = String((await stack.call(routes.getProblems, { as: null })).headers.etag);
    // No submissions yet: the shared answer as it is.
    expect((await stack.call(routes.getProblems, { as: submitter })).headers.etag).toBe(anonymousEtag);

    const submissionId = await judgedSubmission(submitter, problem.id, 'reject');
    const plain = await stack.call(routes.getProblems, { as: submitter });
    const rows = table(plain);
    expect(rows.find((row) => row.id === problem.id)?.latestSubmission).toEqual({ id: submissionId, status: 'reject', userId: submitter.id, public: false });
    expect(rows.filter((row) => row.latestSubmission !== null)).toHaveLength(1);
    // Byte for byte what the route's serializer (zod encode, then JSON) would have written.
    expect(plain.body).toBe(JSON.stringify(routes.getProblems.responses[200].encode(JSON.parse(plain.body))));
    const etag = String(plain.headers.etag);
    expect(etag).not.toBe(anonymousEtag);
    expect((await stack.call(routes.getProblems, { as: submitter, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    expect((await stack.call(routes.getProblems, { as: null, headers: { 'if-none-match': etag } })).statusCode).toBe(200);

    const gz = await stack.call(routes.getProblems, { as: submitter, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);

    // A new verdict on their own submission: a new answer, though the shared table did not change.
    await judge(submitter, submissionId, 1, 'accept');
    const after = await stack.call(routes.getProblems, { as: submitter, headers: { 'if-none-match': etag } });
    expect(after.statusCode).toBe(200);
    expect(table(after).find((row) => row.id === problem.id)?.latestSubmission).toMatchObject({ id: submissionId, status: 'accept' });
  });

  it("keeps a caller's answer within PROBLEM_TABLE_CACHE_MB: with room it is made once, with none it is made per request", async () => {
    const problem = await show((await createProblem({ name: 'Kept per caller' })).id);
    const submitter = await stack.createUser();
    await judgedSubmission(submitter, problem.id, 'accept');
    const real = createProblemQueries(stack.deps.pool);
    const madeFor = async (personalBytes: number) => {
      let reads = 0;
      const queries = { ...real, latestSubmissions: (userId: number) => ((reads += 1), real.latestSubmissions(userId)) };
      const cache = createProblemTableCache(queries, { personalBytes });
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push(await (await cache.answer({ admin: false, userId: submitter.id })).plain());
      expect(answers[1]!.equals(answers[0]!) && answers[2]!.equals(answers[0]!)).toBe(true);
      return reads;
    };
    expect(await madeFor(192 * 1024 * 1024)).toBe(1);
    expect(await madeFor(0)).toBe(3);
  });
});

describe("GET /problem: a signed-in caller's answer named by the version of their submissions", () => {
  type Response = Awaited<ReturnType<Stack['call']>>;
  const rowsOf = (response: Response) =>
    z.array(z.object({ id: z.number(), latestSubmission: z.unknown() })).parse(JSON.parse(response.rawPayload.toString()));
  const latestOn = (response: Response, problemId: number) => rowsOf(response).find((row) => row.id === problemId)?.latestSubmission;
  const sharedEtag = async () => String((await stack.call(routes.getProblems, { as: null })).headers.etag);

  /** The caller's next answer: a new one (200, another ETag) for a client that has `etag`. */
  async function changedSince(as: TestUser | string, etag: string): Promise<Response> {
    const response = await stack.call(routes.getProblems, { as, headers: { 'if-none-match': etag } });
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).not.toBe(etag);
    return response;
  }

  /** A submission created as the upload route would (SubmissionCreated), not judged yet. */
  async function created(by: TestUser, problemId: number): Promise<number> {
    const submissionId = Number(await stack.deps.pool.oneFirst(sql.unsafe`SELECT nextval('submission_ids')::int`));
    const scope = `user:${by.id}`;
    const data = { submissionId, userId: by.id, problemId, contestId: null, language: 'cpp', sourceCode: '// waiting', fileName: null };
    const { lastPosition } = await stack.deps.store.append(`submission-${submissionId}`, [{ type: 'SubmissionCreated', scope, data }], { expectedVersion: 'none' });
    await stack.deps.projections.waitFor('submissions', { ...lastPosition, scope }, 10_000);
    return submissionId;
  }

  it('every change to their latest submissions is in the very next answer, though the shared table did not change', async () => {
    const problem = await show((await createProblem({ name: 'Latest, step by step' })).id);
    const submitter = await stack.createUser();
    const shared = await sharedEtag();

    // A new submission: waiting.
    const submissionId = await created(submitter, problem.id);
    let response = await changedSince(submitter, shared);
    expect(latestOn(response, problem.id)).toEqual({ id: submissionId, status: 'waiting', userId: submitter.id, public: false });
    let etag = String(response.headers.etag);
    expect((await stack.call(routes.getProblems, { as: submitter, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
    // The JSON kept for the caller and the compressed bodies made from it are the same answer.
    const again = await stack.call(routes.getProblems, { as: submitter });
    expect(again.headers.etag).toBe(etag);
    expect(again.rawPayload.equals(response.rawPayload)).toBe(true);
    const br = await stack.call(routes.getProblems, { as: submitter, headers: { 'accept-encoding': 'br' } });
    expect(br.headers.etag).toBe(etag);
    expect(brotliDecompressSync(br.rawPayload).equals(response.rawPayload)).toBe(true);

    // Its first test reported: grading.
    const scope = `user:${submitter.id}`;
    const outcome = { status: 'ACCEPTED', timeUsed: 1, memUsed: 100 };
    const reported = await stack.deps.store.append(`submission-${submissionId}`, [
      { type: 'TestcaseJudged', scope, data: { submissionId, judging: 1, testNumber: 1, outcome } },
    ]);
    await stack.deps.projections.waitFor('submissions', { ...reported.lastPosition, scope }, 10_000);
    response = await changedSince(submitter, etag);
    expect(latestOn(response, problem.id)).toMatchObject({ id: submissionId, status: 'grading' });
    etag = String(response.headers.etag);

    // A verdict that makes no new solver (the passed counts stay as they are).
    await judge(submitter, submissionId, 1, 'reject');
    response = await changedSince(submitter, etag);
    expect(latestOn(response, problem.id)).toMatchObject({ id: submissionId, status: 'reject' });
    etag = String(response.headers.etag);

    // Shared.
    await stack.expectCall(submissionContract.shareSubmission, 200, { as: submitter, params: { submissionId }, body: { show: true } });
    response = await changedSince(submitter, etag);
    expect(latestOn(response, problem.id)).toMatchObject({ id: submissionId, status: 'reject', public: true });
    etag = String(response.headers.etag);

    // Rejudged: waiting again.
    await stack.expectCall(submissionContract.rejudgeSubmission, 200, { as: admin, params: { submissionId } });
    response = await changedSince(submitter, etag);
    expect(latestOn(response, problem.id)).toMatchObject({ id: submissionId, status: 'waiting', public: true });
    etag = String(response.headers.etag);
    expect(await sharedEtag()).toBe(shared);

    // The problem hidden: gone from their table; shown again: back.
    await show(problem.id, false);
    response = await changedSince(submitter, etag);
    expect(latestOn(response, problem.id)).toBeUndefined();
    await show(problem.id, true);
    response = await changedSince(submitter, String(response.headers.etag));
    expect(latestOn(response, problem.id)).toMatchObject({ id: submissionId, status: 'waiting' });

    // The rejudge's verdict, an accept: they solved it (the passed counts change too).
    const rejudged = (await stack.deps.store.readStream(`submission-${submissionId}`)).filter((event) => event.type === 'RejudgeRequested').at(-1)!;
    await judge(submitter, submissionId, rejudged.streamPosition, 'accept');
    response = await changedSince(submitter, String(response.headers.etag));
    expect(latestOn(response, problem.id)).toMatchObject({ id: submissionId, status: 'accept' });
    // Another accept on the problem they solved already: the passed counts stay as they are.
    const second = await created(submitter, problem.id);
    const solvedAlready = await sharedEtag();
    etag = String((await stack.call(routes.getProblems, { as: submitter })).headers.etag);
    await judge(submitter, second, 1, 'accept');
    response = await changedSince(submitter, etag);
    expect(latestOn(response, problem.id)).toMatchObject({ id: second, status: 'accept' });
    expect(await sharedEtag()).toBe(solvedAlready);
  });

  it("a deleted contest's submissions leave their table at once", async () => {
    const kit = contestKit(() => ({ stack, admin }));
    const problemId = await kit.problem('Latest in a contest');
    const contestant = await stack.createUser();
    const before = await judgedSubmission(contestant, problemId, 'reject');
    const contest = await kit.createContest({}, [problemId]);
    const inContest = await kit.submit(contestant, contest.id, problemId);
    let response = await stack.call(routes.getProblems, { as: contestant });
    expect(latestOn(response, problemId)).toMatchObject({ id: inContest.id });
    const shared = await sharedEtag();

    await stack.expectCall(contestContract.deleteContest, 200, { as: admin, params: { contestId: contest.id } });
    await until('the contest submission is gone', async () =>
      (await stack.call(routes.getProblems, { as: contestant, headers: { 'if-none-match': String(response.headers.etag) } })).statusCode === 200,
    );
    expect(await sharedEtag()).toBe(shared);
    response = await stack.call(routes.getProblems, { as: contestant });
    expect(latestOn(response, problemId)).toMatchObject({ id: before, status: 'reject' });
  });

  it('a user made admin gets the admin table (hidden problems with their latest submissions), not their kept one', async () => {
    const hidden = await createProblem({ name: 'Hidden, then seen as admin' });
    const promoted = await stack.createUser();
    const submissionId = await judgedSubmission(promoted, hidden.id, 'reject');
    const asUser = await stack.call(routes.getProblems, { as: promoted });
    expect(latestOn(asUser, hidden.id)).toBeUndefined();

    const body = { username: promoted.username, showName: promoted.showName, role: 'admin' as const };
    await stack.expectCall(userContract.update, 200, { as: admin, params: { userId: promoted.id }, body });
    const adminToken = await stack.newSession({ ...promoted, role: 'admin' });
    const asAdmin = await changedSince(adminToken, String(asUser.headers.etag));
    expect(latestOn(asAdmin, hidden.id)).toEqual({ id: submissionId, status: 'reject', userId: promoted.id, public: false });
  });
});

describe('GET /problem while a deploy rebuilds the read models', () => {
  /**
   * A deploy of this code over the code before the kept counts: the older code's slots (problems v1,
   * submissions v2) stay live, without the tables this code added, until the slots this code rebuilds from
   * the log are cut over. Reproduced on the stack's live slots: recorded as the older code's, the added
   * tables moved out of the way, and the slot changes held (the runner's refresh, which would build this
   * code's slots and cut over, waits on the projections' slot locks) until they are put back.
   */
  it('answers 200 with the right counts, counted per request and not cached, while the older code\'s slots are live', async () => {
    const problem = await show((await createProblem({ name: 'Deploy window' })).id);
    const hidden = await createProblem({ name: 'Deploy window, hidden' });
    await judgedSubmission(user, problem.id, 'accept');
    await judgedSubmission(otherUser, problem.id, 'accept');
    await judgedSubmission(otherUser, problem.id, 'reject');
    await judgedSubmission(admin, problem.id, 'accept');
    await judgedSubmission(user, hidden.id, 'accept');
    const kept = {
      anonymous: await stack.expectCall(routes.getProblems, 200, { as: null }),
      user: await stack.expectCall(routes.getProblems, 200, { as: user }),
      admin: await stack.expectCall(routes.getProblems, 200, { as: admin }),
    };
    expect(kept.anonymous.find((row) => row.id === problem.id)?.passedCount).toBe(2);

    const pool = stack.deps.pool;
    const Live = z.object({ projection: z.string(), generation: z.number().int(), codeVersion: z.number().int() });
    const added = { problems: { code: 1, tables: ['version'] }, submissions: { code: 2, tables: ['roles', 'solvers', 'passed_version', 'user_version'] } } as const;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = () => {};
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = pool.transaction(async (tx) => {
      for (const projection of Object.keys(added)) await tx.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtext(${`projection-slots:${projection}`}))`);
      holding();
      await released;
    });
    await held;
    try {
      const live = await pool.any(sql.type(Live)`
        SELECT projection, version AS generation, code_version AS "codeVersion" FROM projection_slots
        WHERE state = 'live' AND projection IN ('problems', 'submissions')`);
      expect(live).toHaveLength(2);
      const rename = async (from: (table: string) => string, to: (table: string) => string) => {
        for (const slot of live) {
          for (const table of added[slot.projection as keyof typeof added].tables) {
            await pool.query(sql.unsafe`ALTER TABLE ${sql.identifier([from(`rm_${slot.projection}_v${slot.generation}_${table}`)])} RENAME TO ${sql.identifier([to(`rm_${slot.projection}_v${slot.generation}_${table}`)])}`);
          }
        }
      };
      const setCode = async (code: (slot: z.infer<typeof Live>) => number) => {
        for (const slot of live) {
          await pool.query(sql.unsafe`UPDATE projection_slots SET code_version = ${code(slot)} WHERE projection = ${slot.projection} AND version = ${slot.generation}`);
        }
      };
      await setCode((slot) => added[slot.projection as keyof typeof added].code);
      await rename((name) => name, (name) => `${name}_x`);
      try {
        const first = await stack.call(routes.getProblems, { as: null });
        expect(first.statusCode).toBe(200);
        expect(await stack.expectCall(routes.getProblems, 200, { as: null })).toEqual(kept.anonymous);
        expect(await stack.expectCall(routes.getProblems, 200, { as: user })).toEqual(kept.user);
        expect(await stack.expectCall(routes.getProblems, 200, { as: admin })).toEqual(kept.admin);
        // Not kept, yet the same table answers 304 (its ETag is its content's).
        const etag = String(first.headers.etag);
        expect((await stack.call(routes.getProblems, { as: null, headers: { 'if-none-match': etag } })).statusCode).toBe(304);
      } finally {
        await rename((name) => `${name}_x`, (name) => name);
        await setCode((slot) => slot.codeVersion);
      }
    } finally {
      release();
      await holder;
    }
    // Back on this code's slots: the kept counts, cached again.
    expect(await stack.expectCall(routes.getProblems, 200, { as: null })).toEqual(kept.anonymous);
  });
});

describe('PUT /problem/:id', () => {
  it('sets every field, replaces files only when sent', async () => {
    const created = await createProblem({}, { zip: testdataZip(3), pdf: PDF });
    const before = await hashesOf(created.id);
    const updated = await stack.expectCall(routes.updateProblem, 200, {
      as: admin,
      params: { problemId: created.id },
      form: form({ name: 'Renamed', sname: 'ren', score: '50', timeLimit: '0.25', memoryLimit: '32' }),
    });
    expect(updated).toMatchObject({ id: created.id, name: 'Renamed', sname: 'ren', score: 50, timeLimit: 250, memoryLimit: 32, case: '3', show: false });
    expect(await hashesOf(created.id)).toEqual(before);

    const newPdf = `${PDF}% v2\n`;
    const replaced = await stack.expectCall(routes.updateProblem, 200, {
      as: admin,
      params: { problemId: created.id },
      form: form({ name: 'Renamed' }, { zip: testdataZip(5), pdf: newPdf }),
    });
    expect(replaced.case).toBe('5');
    const after = await hashesOf(created.id);
    expect(after.testdata_hash).not.toBe(before.testdata_hash);
    expect((await stack.call(routes.getProblemDoc, { as: admin, params: { problemId: created.id } })).body).toBe(newPdf);
  });

  it('refuses a case that contradicts the stored test data, bad fields, unknown ids and non-admins', async () => {
    const created = await createProblem({}, { zip: testdataZip(3) });
    const message = (await stack.expectCall(routes.updateProblem, 400, { as: admin, params: { problemId: created.id }, form: form({ case: '4' }) })).message;
    expect(message).toMatch(/case is "4" but the uploaded test data has 3 tests/);
    expect((await stack.expectCall(routes.updateProblem, 400, { as: admin, params: { problemId: created.id }, form: form({ sname: '' }) })).message).toMatch(/sname: Required/);
    await stack.expectCall(routes.updateProblem, 404, { as: admin, params: { problemId: UNKNOWN_ID }, form: form() });
    await stack.expectCall(routes.updateProblem, 403, { as: user, params: { problemId: created.id }, form: form() });
    await stack.expectCall(routes.updateProblem, 401, { as: null, params: { problemId: created.id }, form: form() });
  });
});

describe('examples', () => {
  it('PUT /problem/:id/examples replaces them', async () => {
    const created = await show((await createProblem()).id);
    const examples = [{ input: '1 2\n', output: '3\n' }, { input: '', output: '0\n' }];
    expect(await stack.expectCall(routes.setExamples, 200, { as: admin, params: { problemId: created.id }, body: examples })).toEqual({ examples });
    expect((await stack.expectCall(routes.getProblem, 200, { as: user, params: { problemId: created.id } })).examples).toEqual(examples);
    expect(await stack.expectCall(routes.setExamples, 200, { as: admin, params: { problemId: created.id }, body: [] })).toEqual({ examples: [] });
    await stack.expectCall(routes.setExamples, 400, { as: admin, params: { problemId: created.id }, body: { input: 'x' } });
    await stack.expectCall(routes.setExamples, 400, { as: admin, params: { problemId: created.id }, body: [{ input: 'x'.repeat(100_001), output: '' }] });
    await stack.expectCall(routes.setExamples, 400, { as: admin, params: { problemId: created.id }, body: [{ input: 1, output: '' }] });
    await stack.expectCall(routes.setExamples, 404, { as: admin, params: { problemId: UNKNOWN_ID }, body: examples });
    await stack.expectCall(routes.setExamples, 403, { as: user, params: { problemId: created.id }, body: examples });
  });
});

describe('attachments', () => {
  const metadata = { size: 11, name: 'ไฟล์แนบ "v1".zip', lastModified: 1_700_000_000_000, type: 'application/zip' };
  const bytes = Buffer.from('PK-attached');

  /** Sends raw bytes to a signed URL (as a browser's fetch PUT would). */
  const put = (url: string, body: Buffer | undefined, contentType = 'application/zip') => {
    const { pathname, search } = new URL(url);
    return stack.app.inject({ method: 'PUT', url: pathname + search, ...(body ? { payload: body } : {}), headers: { 'content-type': contentType } });
  };

  it('uploads through the signed URL, then downloads through a signed URL', async () => {
    const created = await show((await createProblem()).id);
    expect((await stack.expectCall(routes.downloadAttachment, 404, { as: user, params: { problemId: created.id }, body: {} })).message).toBe('Attachment not found');
    const { url } = await stack.expectCall(routes.uploadAttachment, 200, { as: admin, params: { problemId: created.id }, body: { metadata } });
    expect(url).toMatch(new RegExp(`^http://localhost(:\\d+)?/api/problem/${created.id}/attachment\\?expires=\\d+&signature=[\\w-]+$`));
    // The metadata is recorded at once.
    expect((await stack.expectCall(routes.getProblem, 200, { as: user, params: { problemId: created.id } })).attachmentMetadata).toEqual(metadata);
    expect((await stack.expectCall(routes.downloadAttachment, 404, { as: user, params: { problemId: created.id }, body: {} })).message).toBe('Attachment not found');

    const uploaded = await put(url, bytes, 'application/x-zip-compressed');
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    expect(routes.putAttachment.responses[200].parse(uploaded.json())).toEqual({ message: 'Attachment uploaded' });
    expect((await put(url, undefined)).statusCode).toBe(400);
    // Whatever the type the browser gives the file, or none at all.
    const { pathname: uploadPath, search: uploadQuery } = new URL(url);
    const untyped = await stack.app.inject({ method: 'PUT', url: uploadPath + uploadQuery, payload: bytes });
    expect(untyped.statusCode, untyped.body).toBe(200);

    const download = await stack.expectCall(routes.downloadAttachment, 200, { as: user, params: { problemId: created.id }, body: {} });
    expect(download.metadata).toEqual(metadata);
    const { pathname, search } = new URL(download.url);
    const file = await stack.app.inject({ method: 'GET', url: pathname + search });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(bytes)).toBe(true);
    expect(file.headers['content-type']).toBe('application/octet-stream');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="${'_'.repeat(7)} _v1_.zip"; filename*=UTF-8''${encodeURIComponent(metadata.name)}`);
    // An upload URL does not download, nor a download URL upload.
    expect((await stack.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search })).statusCode).toBe(403);
    expect((await put(download.url, bytes)).statusCode).toBe(403);
  });

  it("a download link stops working when the problem is hidden (unless an admin's) and never serves a newer file", async () => {
    const created = await show((await createProblem()).id);
    const upload = async (content: Buffer) => {
      const { url } = await stack.expectCall(routes.uploadAttachment, 200, { as: admin, params: { problemId: created.id }, body: { metadata } });
      expect((await put(url, content)).statusCode).toBe(200);
    };
    const get = (url: string) => stack.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search });
    const linkFor = async (as: TestUser) => (await stack.expectCall(routes.downloadAttachment, 200, { as, params: { problemId: created.id }, body: {} })).url;
    await upload(bytes);
    const userLink = await linkFor(user);
    const adminLink = await linkFor(admin);
    expect((await get(userLink)).statusCode).toBe(200);
    // Hidden: the user's link is refused, the admin's still works; shown again, the user's works again.
    await show(created.id, false);
    expect([(await get(userLink)).statusCode, (await get(userLink)).json().message]).toEqual([403, 'This problem is hidden now: the link no longer works']);
    // Dropping the flag that says so breaks the signature.
    expect((await get(userLink.replace('&shown=1', ''))).statusCode).toBe(403);
    expect((await get(adminLink)).rawPayload.equals(bytes)).toBe(true);
    await show(created.id, true);
    expect((await get(userLink)).statusCode).toBe(200);
    // A newer file: old links are refused instead of serving it.
    await upload(Buffer.from('PK-attached-v2'));
    expect((await get(userLink)).statusCode).toBe(403);
    expect((await get(adminLink)).statusCode).toBe(403);
    expect((await get(await linkFor(user))).rawPayload.toString()).toBe('PK-attached-v2');
  });

  it('refuses bad and expired signatures (403), hidden problems (403) and unknown problems (404)', async () => {
    const created = await createProblem();
    const { url } = await stack.expectCall(routes.uploadAttachment, 200, { as: admin, params: { problemId: created.id }, body: { metadata } });
    const forged = url.replace(/signature=[\w-]+/, 'signature=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const bad = await put(forged, bytes);
    expect(bad.statusCode).toBe(403);
    expect(bad.json()).toEqual({ message: 'Invalid signature' });
    expect((await put(url.replace(/expires=\d+/, 'expires=1'), bytes)).statusCode).toBe(403);
    expect((await put(url.replace(`/problem/${created.id}/`, `/problem/${created.id + 1}/`), bytes)).statusCode).toBe(403);
    const fakeRequest = { protocol: 'http', host: 'localhost' } as never;
    const expired = signedAttachmentUrl(fakeRequest, stack.deps.settings.jwtSecret, 'attachment-upload', created.id, undefined, Date.now() - 2 * 3_600_000);
    expect((await put(expired, bytes)).json()).toEqual({ message: 'This link has expired' });
    expect((await put(url, bytes)).statusCode).toBe(200);

    await stack.expectCall(routes.downloadAttachment, 403, { as: user, params: { problemId: created.id }, body: {} });
    await stack.expectCall(routes.downloadAttachment, 403, { as: null, params: { problemId: created.id }, body: {} });
    expect((await stack.expectCall(routes.downloadAttachment, 200, { as: admin, params: { problemId: created.id }, body: {} })).metadata).toEqual(metadata);
    await stack.expectCall(routes.downloadAttachment, 404, { as: admin, params: { problemId: UNKNOWN_ID }, body: {} });
    await stack.expectCall(routes.uploadAttachment, 404, { as: admin, params: { problemId: UNKNOWN_ID }, body: { metadata } });
    await stack.expectCall(routes.uploadAttachment, 403, { as: user, params: { problemId: created.id }, body: { metadata } });
    await stack.expectCall(routes.uploadAttachment, 401, { as: null, params: { problemId: created.id }, body: { metadata } });
    await stack.expectCall(routes.uploadAttachment, 400, { as: admin, params: { problemId: created.id }, body: { metadata: { ...metadata, size: -1 } } });
    await stack.expectCall(routes.getAttachment, 400, { params: { problemId: created.id }, query: { expires: 'soon', signature: 'x' } });
  });
});

describe('DELETE /problem/:id', () => {
  it('answers the deleted problem and removes it from every list', async () => {
    const created = await show((await createProblem({ name: 'Doomed', sname: 'doomed' }, { pdf: PDF })).id);
    const deleted = await stack.expectCall(routes.deleteProblem, 200, { as: admin, params: { problemId: created.id } });
    expect(deleted).toEqual(created);
    await stack.expectCall(routes.getProblem, 404, { as: admin, params: { problemId: created.id } });
    await stack.expectCall(routes.getProblemDoc, 404, { as: admin, params: { problemId: created.id } });
    expect((await stack.expectCall(routes.getProblems, 200, { as: admin })).map((row) => row.id)).not.toContain(created.id);
    expect((await stack.expectCall(routes.adminList, 200, { as: admin, query: { search: 'doomed' } })).total).toBe(0);
    expect(await stack.expectCall(routes.searchProblems, 200, { as: admin, query: { search: String(created.id) } })).toEqual([]);
    // Gone for good: no command brings it back.
    await stack.expectCall(routes.deleteProblem, 404, { as: admin, params: { problemId: created.id } });
    await stack.expectCall(routes.showProblem, 404, { as: admin, params: { problemId: created.id }, body: { show: true } });
    await stack.expectCall(routes.updateProblem, 404, { as: admin, params: { problemId: created.id }, form: form() });
  });

  it('is for admins only; 404 for unknown ids', async () => {
    const created = await createProblem();
    await stack.expectCall(routes.deleteProblem, 403, { as: user, params: { problemId: created.id } });
    await stack.expectCall(routes.deleteProblem, 401, { as: null, params: { problemId: created.id } });
    await stack.expectCall(routes.deleteProblem, 404, { as: admin, params: { problemId: UNKNOWN_ID } });
  });
});

describe('OpenAPI', () => {
  it('documents every problem route', async () => {
    const doc = await stack.app.inject({ method: 'GET', url: '/api/doc/json' });
    expect(doc.statusCode).toBe(200);
    const paths = Object.keys(doc.json<{ paths: object }>().paths);
    for (const route of Object.values(routes)) expect(paths).toContain(route.path.replace(/:(\w+)/g, '{$1}'));
  });
});

describe('offline mode', () => {
  it('keeps the PDF public and makes the problem routes admin-only', async () => {
    const offline = await startStack({ settings: { offline: true } });
    try {
      const offlineAdmin = await offline.createUser({ role: 'admin' });
      const contestant = await offline.createUser();
      const created = await offline.expectCall(routes.createProblem, 201, { as: offlineAdmin, form: form({}, { pdf: PDF }) });
      await offline.expectCall(routes.showProblem, 200, { as: offlineAdmin, params: { problemId: created.id }, body: { show: true } });
      expect((await offline.call(routes.getProblemDoc, { as: null, params: { problemId: created.id } })).statusCode).toBe(200);
      await offline.expectCall(routes.getProblems, 401, { as: null });
      await offline.expectCall(routes.getProblems, 403, { as: contestant });
      await offline.expectCall(routes.getProblem, 403, { as: contestant, params: { problemId: created.id } });
      await offline.expectCall(routes.downloadAttachment, 403, { as: contestant, params: { problemId: created.id }, body: {} });
      expect(await offline.expectCall(routes.getProblems, 200, { as: offlineAdmin })).toHaveLength(1);
    } finally {
      await offline.stop();
    }
  }, 120_000);
});

