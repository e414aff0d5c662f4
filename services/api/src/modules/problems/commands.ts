/**
 * Problem commands: each validates its input, stores files in the object store (content-addressed), appends
 * to the stream `problem-<id>` at the version it read (a concurrent change is a 409, an append after a
 * delete impossible) and waits, bounded, for the problems read model so the answer shows the change.
 */
import { sql } from '@otog/platform/db/pool';
import { WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import type { AppendResult, NewEvent } from '@otog/platform/eventstore/event-store';
import type { AttachmentMetadata, ProblemExample, ProblemForm } from '@otog/schemas/api/problem';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { waitForProjection } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { pdfProblem } from './files.ts';
import type { ProblemQueries, ProblemRecord } from './queries.ts';
import { checkTestdataZip } from './testdata-validation.ts';

export const PROBLEM_NOT_FOUND = 'Problem not found';

export interface ProblemFiles {
  readonly pdf?: Uint8Array | undefined;
  readonly zip?: Uint8Array | undefined;
}

type ProblemEvent = Pick<NewEvent, 'type' | 'data'>;

const streamOf = (problemId: number) => `problem-${problemId}`;
const scopeOf = (problemId: number) => `problem:${problemId}`;

interface StoredFiles {
  readonly testdata?: { readonly hash: string; readonly testCount: number };
  readonly statement?: { readonly hash: string; readonly size: number };
}

/** Validates the files of the admin form (every problem of both in one 400) and stores them. */
async function storeFiles(deps: ApiDependencies, declaredCase: string | null, files: ProblemFiles): Promise<StoredFiles> {
  const problems: string[] = [];
  const pdfError = files.pdf ? pdfProblem(files.pdf) : undefined;
  if (pdfError) problems.push(pdfError);
  const testdata = files.zip ? await checkTestdataZip(files.zip, declaredCase) : undefined;
  if (testdata && !testdata.ok) problems.push(`zip: ${testdata.problems.join('; ')}`);
  if (problems.length > 0) throw badRequest(problems.join('; '));
  return {
    ...(testdata?.ok ? { testdata: { hash: await deps.objects.put(testdata.zip), testCount: testdata.testCount } } : {}),
    ...(files.pdf ? { statement: { hash: await deps.objects.put(files.pdf), size: files.pdf.length } } : {}),
  };
}

function fileEvents(problemId: number, stored: StoredFiles): ProblemEvent[] {
  const events: ProblemEvent[] = [];
  if (stored.testdata) {
    events.push({ type: 'ProblemTestdataUploaded', data: { problemId, testdataHash: stored.testdata.hash, case: String(stored.testdata.testCount) } });
  }
  if (stored.statement) {
    events.push({ type: 'ProblemStatementUploaded', data: { problemId, pdfHash: stored.statement.hash, size: stored.statement.size } });
  }
  return events;
}

function formEvents(problemId: number, form: ProblemForm, problemCase: string | null): ProblemEvent[] {
  return [
    { type: 'ProblemDetailsSet', data: { problemId, name: form.name, sname: form.sname, case: problemCase } },
    { type: 'ProblemJudgingConfigured', data: { problemId, score: form.score, timeLimit: form.timeLimit, memoryLimit: form.memoryLimit } },
  ];
}

async function append(
  deps: ApiDependencies,
  actorId: number | null,
  problemId: number,
  events: readonly ProblemEvent[],
  expectedVersion: number | 'none',
): Promise<AppendResult> {
  const scope = scopeOf(problemId);
  let appended: AppendResult;
  try {
    appended = await deps.store.append(
      streamOf(problemId),
      events.map((event) => ({ ...event, scope, meta: { actor: actorId } })),
      { expectedVersion },
    );
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) throw conflict('The problem was changed at the same time; try again');
    throw error;
  }
  await waitForProjection(deps, 'problems', appended, scope);
  return appended;
}

/** The stream's version, or 404 when the problem never existed or was deleted. */
async function currentVersion(deps: ApiDependencies, problemId: number): Promise<number> {
  const events = await deps.store.readStream(streamOf(problemId));
  const last = events.at(-1);
  if (!last || last.type === 'ProblemDeleted') throw notFound(PROBLEM_NOT_FOUND);
  return last.streamPosition;
}

/** Appends events to an existing problem (404 when there is none). */
export async function changeProblem(deps: ApiDependencies, actorId: number | null, problemId: number, events: readonly ProblemEvent[]): Promise<void> {
  await append(deps, actorId, problemId, events, await currentVersion(deps, problemId));
}

/** The row after a write; `fallback` when the read model has not caught up within the wait. */
async function readBack(queries: ProblemQueries, problemId: number, fallback: () => ProblemRecord): Promise<ProblemRecord> {
  return (await queries.find(problemId)) ?? fallback();
}

/**
 * POST /problem (and the sample seed): a new problem, hidden unless `show`. A test-data zip sets case to its
 * test count (the admin's case must agree).
 */
export async function createProblem(
  deps: ApiDependencies,
  queries: ProblemQueries,
  actorId: number,
  form: ProblemForm,
  files: ProblemFiles,
  options: { show?: boolean } = {},
): Promise<ProblemRecord> {
  const stored = await storeFiles(deps, form.case, files);
  // The id is taken only once the input is valid (OTOG's serial ids have no gaps from refused forms).
  const problemId = Number(await deps.pool.oneFirst(sql.unsafe`SELECT nextval('problem_ids')::int`));
  const problemCase = stored.testdata ? String(stored.testdata.testCount) : form.case;
  const events = [...formEvents(problemId, form, problemCase), ...fileEvents(problemId, stored)];
  if (options.show) events.push({ type: 'ProblemVisibilityChanged', data: { problemId, show: true } });
  await append(deps, actorId, problemId, events, 'none');
  return readBack(queries, problemId, () => ({
    id: problemId,
    name: form.name,
    sname: form.sname,
    score: form.score,
    timeLimit: form.timeLimit,
    memoryLimit: form.memoryLimit,
    show: options.show ?? false,
    recentShowTime: options.show ? new Date().toISOString() : null,
    case: problemCase,
    rating: null,
    examples: null,
    attachmentMetadata: null,
    statementHash: null,
    attachmentHash: null,
    testdataHash: null,
  }));
}

/**
 * PUT /problem/:id: every form field is set again; files are replaced only when sent. Without a new zip,
 * a problem that has test data keeps its test count (an empty case keeps it; a different one is a 400).
 */
export async function updateProblem(
  deps: ApiDependencies,
  queries: ProblemQueries,
  actorId: number,
  problemId: number,
  form: ProblemForm,
  files: ProblemFiles,
): Promise<ProblemRecord> {
  const version = await currentVersion(deps, problemId);
  const current = await queries.find(problemId);
  if (!current) throw notFound(PROBLEM_NOT_FOUND);
  let problemCase = form.case;
  if (!files.zip && current.testdataHash !== null) {
    if (problemCase !== null && problemCase !== current.case) {
      throw badRequest(`case is "${problemCase}" but the uploaded test data has ${current.case} tests; upload a new zip to change it`);
    }
    problemCase = current.case;
  }
  const stored = await storeFiles(deps, form.case, files);
  if (stored.testdata) problemCase = String(stored.testdata.testCount);
  await append(deps, actorId, problemId, [...formEvents(problemId, form, problemCase), ...fileEvents(problemId, stored)], version);
  return readBack(queries, problemId, () => current);
}

export async function setVisibility(deps: ApiDependencies, queries: ProblemQueries, actorId: number, problemId: number, show: boolean): Promise<ProblemRecord> {
  await changeProblem(deps, actorId, problemId, [{ type: 'ProblemVisibilityChanged', data: { problemId, show } }]);
  return readBack(queries, problemId, () => {
    throw notFound(PROBLEM_NOT_FOUND);
  });
}

/** DELETE /problem/:id: answers the problem as it was. Its files stay in the object store (shared by hash). */
export async function deleteProblem(deps: ApiDependencies, queries: ProblemQueries, actorId: number, problemId: number): Promise<ProblemRecord> {
  const version = await currentVersion(deps, problemId);
  const current = await queries.find(problemId);
  if (!current) throw notFound(PROBLEM_NOT_FOUND);
  await append(deps, actorId, problemId, [{ type: 'ProblemDeleted', data: { problemId } }], version);
  return current;
}

export async function setExamples(deps: ApiDependencies, actorId: number, problemId: number, examples: readonly ProblemExample[]): Promise<void> {
  await changeProblem(deps, actorId, problemId, [{ type: 'ProblemExamplesSet', data: { problemId, examples: examples.map(({ input, output }) => ({ input, output })) } }]);
}

export async function setAttachmentMetadata(deps: ApiDependencies, actorId: number, problemId: number, metadata: AttachmentMetadata): Promise<void> {
  const { size, name, lastModified, type } = metadata;
  await changeProblem(deps, actorId, problemId, [{ type: 'ProblemAttachmentMetadataSet', data: { problemId, metadata: { size, name, lastModified, type } } }]);
}

/** The bytes behind a signed upload URL (no caller: the signature was the credential). */
/** Streams the attachment into the object store, then records it; an empty body stores nothing (400). */
export async function storeAttachment(deps: ApiDependencies, problemId: number, source: AsyncIterable<Uint8Array>): Promise<void> {
  const version = await currentVersion(deps, problemId);
  let size = 0;
  const hash = await deps.objects.put(
    (async function* counted() {
      for await (const chunk of source) {
        size += chunk.length;
        yield chunk;
      }
    })(),
  );
  if (size === 0) throw badRequest('Send the attachment\'s bytes as the request body');
  await append(deps, null, problemId, [{ type: 'ProblemAttachmentUploaded', data: { problemId, hash, size } }], version);
}
