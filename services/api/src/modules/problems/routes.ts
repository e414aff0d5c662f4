/** The problem routes of spec section 7 (OTOG research §3.6). */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createProblemQueries, toProblem, type ProblemQueries, type ProblemRecord } from '@otog/projections';
import type { DatabasePool } from '@otog/platform/db/pool';
import { problemContract as routes, ProblemFormSchema, type ProblemForm } from '@otog/schemas/api/problem';
import { caller, isAdmin, type AuthUser } from '../../http/access.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import { limitedBody, payloadTooLarge } from '../../http/request-bodies.ts';
import { readMultipart } from '../../http/multipart.ts';
import { sendCachedAnswer } from '../../http/cached-answer.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import {
  createProblem,
  deleteProblem,
  PROBLEM_NOT_FOUND,
  setAttachmentMetadata,
  setExamples,
  setVisibility,
  storeAttachment,
  updateProblem,
  type ProblemFiles,
} from './commands.ts';
import { contentDisposition, linkNeedsShown, signedAttachmentUrl, verifySignedUrl } from './files.ts';
import { contestVisibility } from '../contests/contest-lookup.ts';
import { canSeeProblem, HIDDEN_PROBLEM_MESSAGE } from './visibility.ts';
import { createProblemTableCache } from './problem-table.ts';

const ATTACHMENT_NOT_FOUND = 'Attachment not found';

/** The problem, if it exists (404) and the caller may see it (403). */
async function visibleProblem(queries: ProblemQueries, pool: DatabasePool, problemId: number, user: AuthUser | null): Promise<ProblemRecord> {
  const problem = await queries.find(problemId);
  if (!problem) throw notFound(PROBLEM_NOT_FOUND);
  // The contests are asked only about a hidden problem.
  if (!canSeeProblem(problem, user) && !canSeeProblem(problem, user, await contestVisibility(pool, user))) throw forbidden(HIDDEN_PROBLEM_MESSAGE);
  return problem;
}

/** The admin form: text fields checked with OTOG's messages ("score: Required"), files by name. */
async function readProblemForm(request: FastifyRequest, maxFileBytes: number): Promise<{ form: ProblemForm; files: ProblemFiles }> {
  const body = await readMultipart(request, { files: { pdf: maxFileBytes, zip: maxFileBytes } });
  const parsed = ProblemFormSchema.safeParse(body.fields);
  if (!parsed.success) throw badRequest(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
  // A file input left empty still sends an empty part: that is "no file".
  const data = (field: string) => (body.files[field]?.data.length ? body.files[field].data : undefined);
  return { form: parsed.data, files: { pdf: data('pdf'), zip: data('zip') } };
}

async function streamObject(
  deps: ApiDependencies,
  reply: FastifyReply,
  hash: string,
  headers: { type: string; disposition: string },
  missing: string,
): Promise<FastifyReply> {
  const object = await deps.objects.open(hash);
  if (!object) throw notFound(missing);
  return reply
    .type(headers.type)
    .header('content-disposition', headers.disposition)
    .header('content-length', object.size)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, no-cache')
    .send(object.stream);
}

export async function problemsRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const queries = createProblemQueries(deps.pool);
  const maxFileBytes = deps.settings.problemFileMaxBytes;

  // The table is served from a cache of its JSON per read-model version (problem-table.ts), with ETags and compression.
  const table = createProblemTableCache(queries, { personalBytes: deps.settings.problemTableCacheBytes });
  serve(app, routes.getProblems, async (request, reply) =>
    sendCachedAnswer(request, reply, await table.answer({ admin: isAdmin(request.auth), userId: request.auth?.id ?? null })),
  );

  serve(app, routes.getProblem, async (request) => toProblem(await visibleProblem(queries, deps.pool, request.params.problemId, request.auth)));

  serve(app, routes.searchProblems, async (request) => queries.search(request.query));

  serve(app, routes.adminList, async (request) => queries.adminList(request.query));

  serve(app, routes.passedUsers, async (request) => {
    await visibleProblem(queries, deps.pool, request.params.problemId, request.auth);
    return queries.passedUsers(request.params.problemId);
  });

  serve(app, routes.getProblemDoc, async (request, reply) => {
    const problem = await visibleProblem(queries, deps.pool, request.params.problemId, request.auth);
    if (!problem.statementHash) throw notFound('Statement not found');
    return streamObject(
      deps,
      reply,
      problem.statementHash,
      { type: 'application/pdf', disposition: contentDisposition('inline', `${problem.id}.pdf`) },
      'Statement not found',
    );
  });

  serve(app, routes.showProblem, async (request) =>
    toProblem(await setVisibility(deps, queries, caller(request).id, request.params.problemId, request.body.show)),
  );

  serve(app, routes.createProblem, async (request) => {
    const { form, files } = await readProblemForm(request, maxFileBytes);
    return toProblem(await createProblem(deps, queries, caller(request).id, form, files));
  });

  serve(app, routes.updateProblem, async (request) => {
    const { form, files } = await readProblemForm(request, maxFileBytes);
    return toProblem(await updateProblem(deps, queries, caller(request).id, request.params.problemId, form, files));
  });

  serve(app, routes.deleteProblem, async (request) => toProblem(await deleteProblem(deps, queries, caller(request).id, request.params.problemId)));

  serve(app, routes.setExamples, async (request) => {
    const examples = request.body.map(({ input, output }) => ({ input, output }));
    await setExamples(deps, caller(request).id, request.params.problemId, examples);
    return { examples };
  });

  serve(app, routes.uploadAttachment, async (request) => {
    await setAttachmentMetadata(deps, caller(request).id, request.params.problemId, request.body.metadata);
    return { url: signedAttachmentUrl(request, deps.settings.jwtSecret, 'attachment-upload', request.params.problemId) };
  });

  serve(app, routes.downloadAttachment, async (request) => {
    const problem = await visibleProblem(queries, deps.pool, request.params.problemId, request.auth);
    const metadata = toProblem(problem).attachmentMetadata;
    if (!problem.attachmentHash || !metadata) throw notFound(ATTACHMENT_NOT_FOUND);
    // A link handed out because the problem is shown stops working when it is hidden; one for an admin
    // or a contestant of a running contest lasts its hour. Either is for this file only.
    const binding = { fileHash: problem.attachmentHash, whileShown: problem.show && !isAdmin(request.auth) };
    return { url: signedAttachmentUrl(request, deps.settings.jwtSecret, 'attachment-download', problem.id, binding), metadata };
  });

  serve(app, routes.getAttachment, async (request, reply) => {
    const problem = await queries.find(request.params.problemId);
    const whileShown = linkNeedsShown(request.query);
    // Checked against the file and visibility of now: a replaced file or a hidden problem fails the signature or the rule.
    const binding = { fileHash: problem?.attachmentHash ?? '', whileShown };
    verifySignedUrl(deps.settings.jwtSecret, 'attachment-download', request.params.problemId, request.query, binding);
    if (!problem) throw notFound(PROBLEM_NOT_FOUND);
    if (whileShown && !problem.show) throw forbidden('This problem is hidden now: the link no longer works');
    const name = toProblem(problem).attachmentMetadata?.name || `${problem.id}.zip`;
    if (!problem.attachmentHash) throw notFound(ATTACHMENT_NOT_FOUND);
    return streamObject(
      deps,
      reply,
      problem.attachmentHash,
      { type: 'application/octet-stream', disposition: contentDisposition('attachment', name) },
      ATTACHMENT_NOT_FOUND,
    );
  });

  // The signed upload takes the raw bytes whatever their type (browsers send the file's own type, e.g.
  // application/zip or application/x-zip-compressed): only this route's scope takes bodies that way, as a
  // stream written to the object store as it arrives (64 MB is never held in memory).
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (request, payload, done) => {
      if (Number(request.headers['content-length']) > maxFileBytes) done(payloadTooLarge(maxFileBytes), undefined);
      else done(null, payload);
    });
    // Refuse a missing or bad signature before the body is read, not after receiving up to maxFileBytes.
    scope.addHook('onRequest', async (request) => {
      const params = routes.putAttachment.params.safeParse(request.params);
      const query = routes.putAttachment.query.safeParse(request.query);
      if (!params.success || !query.success) throw forbidden('A signed upload URL is required (from upload-attachment)');
      verifySignedUrl(deps.settings.jwtSecret, 'attachment-upload', params.data.problemId, query.data);
    });
    serve(scope, routes.putAttachment, async (request) => {
      const body: unknown = request.body;
      if (!(body instanceof Readable)) throw badRequest('Send the attachment\'s bytes as the request body');
      await storeAttachment(deps, request.params.problemId, limitedBody(body, maxFileBytes));
      return { message: 'Attachment uploaded' };
    });
  });
}
