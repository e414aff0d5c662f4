/**
 * Problem commands, through the decider (problem-decider.ts): files are validated and stored first
 * (content-addressed), then the command is decided on the stream `problem-<id>` and appended at the
 * version that was read (a concurrent change is a 409, a change after a delete a 404), and the answer
 * waits, bounded, for the problems read model so it shows the change.
 */
import { sql } from '@otog/platform/db/pool';
import { foldEvents, runCommand, type CommandResult } from '@otog/platform/eventstore/command';
import { WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import type { AttachmentMetadata, ProblemExample, ProblemForm } from '@otog/schemas/api/problem';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { waitForProjection } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { pdfProblem } from './files.ts';
import { PROBLEM_NOT_FOUND, problemDecider, problemScope, problemStream, type ProblemCommand, type ProblemState, type StoredFiles } from './problem-decider.ts';
import type { ProblemQueries, ProblemRecord } from '@otog/projections';
import { checkTestdataZip } from './testdata-validation.ts';

export { PROBLEM_NOT_FOUND };

export interface ProblemFiles {
  readonly pdf?: Uint8Array | undefined;
  readonly zip?: Uint8Array | undefined;
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

async function handle(deps: ApiDependencies, actorId: number | null, command: ProblemCommand, newStream = false): Promise<CommandResult<ProblemState>> {
  let result: CommandResult<ProblemState>;
  try {
    result = await runCommand(deps.store, problemStream(command.problemId), problemDecider, command, { meta: { actor: actorId }, newStream });
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) throw conflict('The problem was changed at the same time; try again');
    throw error;
  }
  if (result.appended) await waitForProjection(deps, 'problems', result.appended, problemScope(command.problemId));
  return result;
}

/** 404 unless the problem exists (checked before a long upload is read). */
async function assertExists(deps: ApiDependencies, problemId: number): Promise<void> {
  const { events } = await deps.store.readStreamOf(problemStream(problemId), problemDecider.types!);
  if (!foldEvents(problemDecider, events)) throw notFound(PROBLEM_NOT_FOUND);
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
  const show = options.show ?? false;
  const { after } = await handle(deps, actorId, { kind: 'create', problemId, form, files: stored, show }, true);
  return readBack(queries, problemId, () => ({
    id: problemId,
    name: form.name,
    sname: form.sname,
    score: form.score,
    timeLimit: form.timeLimit,
    memoryLimit: form.memoryLimit,
    show,
    recentShowTime: show ? new Date().toISOString() : null,
    case: after?.case ?? null,
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
  await assertExists(deps, problemId);
  const stored = await storeFiles(deps, form.case, files);
  await handle(deps, actorId, { kind: 'update', problemId, form, files: stored });
  return readBack(queries, problemId, () => {
    throw notFound(PROBLEM_NOT_FOUND);
  });
}

export async function setVisibility(deps: ApiDependencies, queries: ProblemQueries, actorId: number, problemId: number, show: boolean): Promise<ProblemRecord> {
  await handle(deps, actorId, { kind: 'show', problemId, show });
  return readBack(queries, problemId, () => {
    throw notFound(PROBLEM_NOT_FOUND);
  });
}

/** DELETE /problem/:id: answers the problem as it was. Its files stay in the object store (shared by hash). */
export async function deleteProblem(deps: ApiDependencies, queries: ProblemQueries, actorId: number, problemId: number): Promise<ProblemRecord> {
  const current = await queries.find(problemId);
  await handle(deps, actorId, { kind: 'delete', problemId });
  if (!current) throw notFound(PROBLEM_NOT_FOUND);
  return current;
}

export async function setExamples(deps: ApiDependencies, actorId: number, problemId: number, examples: readonly ProblemExample[]): Promise<void> {
  await handle(deps, actorId, { kind: 'setExamples', problemId, examples });
}

export async function setAttachmentMetadata(deps: ApiDependencies, actorId: number, problemId: number, metadata: AttachmentMetadata): Promise<void> {
  await handle(deps, actorId, { kind: 'setAttachmentMetadata', problemId, metadata });
}

/**
 * The bytes behind a signed upload URL (no caller: the signature was the credential), streamed into the
 * object store, then recorded; an empty body records nothing (400).
 */
export async function storeAttachment(deps: ApiDependencies, problemId: number, source: AsyncIterable<Uint8Array>): Promise<void> {
  await assertExists(deps, problemId);
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
  await handle(deps, null, { kind: 'attachmentUploaded', problemId, hash, size });
}
