/**
 * The spec's Submission group (OTOG research §3.8): lists and single submissions from the submissions read
 * model, uploads, sharing and rejudges as events on the submission's stream.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createContestQueries, createSubmissionQueries } from '@otog/projections';
import { submissionContract } from '@otog/schemas/api/submission';
import { caller, isAdmin, type AuthUser } from '../../http/access.ts';
import { badRequest, forbidden, HttpError, notFound } from '../../http/errors.ts';
import { readMultipart, type MultipartBody } from '../../http/multipart.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { contestStateAt } from '@otog/schemas/common/contest';
import { boardOpenTo, frozenAtFor, timesOf } from '../contests/contest-access.ts';
import { contestVisibility, existingContest } from '../contests/contest-lookup.ts';
import { toDetail, toSubmission } from './present.ts';
import {
  canReadCode,
  canSeeItsProblem,
  canSeeSubmission,
  canShare,
  checkUpload,
  contestUploadRefusal,
  globalListFilter,
  idempotencyKeyOf,
  UPLOAD_MESSAGES,
  userListFilter,
  visibleProblemsFilter,
} from './rules.ts';
import { createSubmission, rejudgeAll, rejudgeSubmission, shareSubmission } from './submission-commands.ts';

const SUBMISSION_NOT_FOUND = 'Submission not found';
const PROBLEM_NOT_FOUND = 'Problem not found';

export async function submissionsRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const queries = createSubmissionQueries(deps.pool);

  const contests = createContestQueries(deps.pool);
  const visibility = (user: AuthUser | null) => contestVisibility(deps.pool, user);
  const existing = async (submissionId: number) => {
    const submission = await queries.byId(submissionId);
    if (!submission) throw notFound(SUBMISSION_NOT_FOUND);
    return submission;
  };

  serve(app, submissionContract.getSubmissions, async (request) => {
    const { offset, limit, ...query } = request.query;
    return (await queries.list(globalListFilter(request.auth, query, await visibility(request.auth)), { offset, limit })).map(toSubmission);
  });

  serve(app, submissionContract.getContestSubmissionsForAdmin, async (request) => {
    await existingContest(deps.pool, request.params.contestId);
    const { offset, limit, problemSearch, userSearch } = request.query;
    const filter = { contestId: request.params.contestId, ...(problemSearch ? { problemSearch } : {}), ...(userSearch ? { userSearch } : {}) };
    return (await queries.list(filter, { offset, limit })).map(toSubmission);
  });

  serve(app, submissionContract.getContestSubmissions, async (request) => {
    const contest = await existingContest(deps.pool, request.params.contestId);
    const user = request.auth;
    const { offset, limit, userId, problemId } = request.query;
    const now = Date.now();
    // Other users' contest submissions follow the scoreboard policy and freeze: without the board, only your own.
    const boardOpen = boardOpenTo(timesOf(contest), isAdmin(user), now);
    if (!boardOpen && (!user || (userId && userId !== user.id))) return [];
    const frozenAt = frozenAtFor(timesOf(contest), isAdmin(user), now);
    const filter = {
      contestId: contest.id,
      ...(boardOpen ? (userId ? { userId } : {}) : { userId: user!.id }),
      ...(problemId ? { problemId } : {}),
      ...(frozenAt === null ? {} : { othersUntil: { viewer: user?.id ?? null, until: new Date(frozenAt).toISOString() } }),
      ...visibleProblemsFilter(user, await visibility(user)),
    };
    return (await queries.list(filter, { offset, limit })).map(toSubmission);
  });

  serve(app, submissionContract.getLatestSubmissionByProblemId, async (request) => {
    const user = caller(request);
    const latest = await queries.latest({ userId: user.id, problemId: request.params.problemId, ...visibleProblemsFilter(user, await visibility(user)) });
    return { submission: latest && toDetail(latest) };
  });

  serve(
    app,
    submissionContract.uploadFile,
    async (request) => {
      const user = caller(request);
      const { problemId } = request.params;
      const contestId = request.query.contestId ?? null;
      const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key']);
      const upload = await readUpload(request, deps.settings.submissionMaxBytes);
      const checked = checkUpload({ ...upload, maxBytes: deps.settings.submissionMaxBytes });
      if (!checked.ok) throw badRequest(checked.message);

      const facts = await queries.uploadFacts(problemId, user.id);
      if (!facts) throw notFound(PROBLEM_NOT_FOUND);
      const { problem, author } = facts;
      if (contestId !== null) {
        const contest = await existingContest(deps.pool, contestId);
        const running = contestStateAt(timesOf(contest), Date.now()) === 'RUNNING';
        const refusal = contestUploadRefusal(user, { running, hasProblem: await contests.hasProblem(contestId, problemId) });
        if (refusal) throw badRequest(refusal);
      } else if (!problem.show && !isAdmin(user)) {
        // OTOG: users need the problem shown or in the contest they submit to.
        throw badRequest(UPLOAD_MESSAGES.notPublic);
      }

      const { id, createdAt, repeated } = await createSubmission(deps, {
        userId: user.id,
        problemId,
        contestId,
        language: checked.language,
        sourceCode: checked.sourceCode,
        fileName: checked.fileName,
      }, idempotencyKey);
      // A retry of an earlier upload (its Idempotency-Key): that submission as it is now, perhaps judged.
      const earlier = repeated ? await queries.byId(id) : null;
      if (earlier) return { ...toSubmission(earlier), problemId, sourceCode: earlier.sourceCode, updateDate: createdAt };
      // The answer is what the read model holds for a new one (createSubmission waited for the fold), made from
      // what the route already read instead of reading the row back: a new submission is waiting, private and
      // unjudged, and its updateDate is its creationDate. The author as the lists show them (token claims only
      // when the account was removed meanwhile).
      const { username, showName, role, rating } = author ?? user;
      return {
        id,
        status: 'waiting' as const,
        contestId,
        language: checked.language,
        creationDate: createdAt,
        public: false,
        userId: user.id,
        problem: { id: problem.id, name: problem.name, timeLimit: problem.timeLimit, memoryLimit: problem.memoryLimit, score: problem.score },
        user: { id: user.id, username, showName, role, rating },
        submissionResult: null,
        problemId,
        sourceCode: checked.sourceCode,
        updateDate: createdAt,
      };
    },
    { rateLimit: { ...deps.settings.rateLimits.submit, keyBy: 'user' } },
  );

  serve(app, submissionContract.getLatestSubmissionByUserId, async (request) => {
    const user = caller(request);
    const latest = await queries.latest({ userId: user.id, ...visibleProblemsFilter(user, await visibility(user)) });
    return { submission: latest && toDetail(latest) };
  });

  serve(app, submissionContract.getSubmissionsByUserId, async (request) => {
    const { offset, limit } = request.query;
    return (await queries.list(userListFilter(request.auth, request.params.userId, undefined, await visibility(request.auth)), { offset, limit })).map(toSubmission);
  });

  serve(app, submissionContract.getSubmissionsByUserIdAndProblemId, async (request) => {
    const { offset, limit } = request.query;
    const { userId, problemId } = request.params;
    return (await queries.list(userListFilter(request.auth, userId, problemId, await visibility(request.auth)), { offset, limit })).map(toSubmission);
  });

  serve(app, submissionContract.getSubmission, async (request) => {
    const submission = await existing(request.params.submissionId);
    if (!canSeeSubmission(request.auth, submission, await visibility(request.auth))) throw notFound(SUBMISSION_NOT_FOUND);
    return toSubmission(submission);
  });

  serve(app, submissionContract.getSubmissionWithSourceCode, async (request) => {
    const submission = await existing(request.params.submissionId);
    if (!canSeeItsProblem(request.auth, submission, await visibility(request.auth))) throw notFound(SUBMISSION_NOT_FOUND);
    if (!canReadCode(request.auth, submission)) throw forbidden('Forbidden');
    return toDetail(submission);
  });

  serve(app, submissionContract.shareSubmission, async (request) => {
    const user = caller(request);
    const submission = await queries.facts(request.params.submissionId);
    if (!submission || !canSeeItsProblem(user, submission, await visibility(user))) throw notFound(SUBMISSION_NOT_FOUND);
    if (!canShare(user, submission)) throw forbidden('Forbidden');
    await shareSubmission(deps, submission.id, request.body.show, user.id);
    return { public: request.body.show };
  }, { rateLimit: { ...deps.settings.rateLimits.accountEdit, keyBy: 'user' } });

  serve(app, submissionContract.rejudgeSubmission, async (request) => {
    const submission = await queries.facts(request.params.submissionId);
    if (!submission) throw notFound(SUBMISSION_NOT_FOUND);
    await rejudgeSubmission(deps, submission.id, caller(request).id);
    return toSubmission(await existing(submission.id));
  });

  serve(app, submissionContract.rejudgeProblem, async (request) => {
    const { problemId } = request.params;
    if (!(await queries.problem(problemId))) throw notFound(PROBLEM_NOT_FOUND);
    const count = await rejudgeAll(deps, await queries.ofProblem(problemId), caller(request).id);
    return { message: `Rejudging ${count} submission${count === 1 ? '' : 's'} of problem ${problemId}` };
  });
}

/**
 * The upload: the `sourceCode` file (OTOG), or the code as a `sourceCode` text field; `language`. A browser
 * sends an empty, unnamed file part when no file was chosen: that is no file.
 */
async function readUpload(
  request: FastifyRequest,
  maxBytes: number,
): Promise<{ language: string | undefined; fileName: string | null; source: Buffer | string | undefined }> {
  let body: MultipartBody;
  try {
    body = await readMultipart(request, { files: { sourceCode: maxBytes }, maxFields: 10 });
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 413) throw badRequest(UPLOAD_MESSAGES.tooLarge);
    throw error;
  }
  const file = body.files.sourceCode;
  const chosen = file && !(file.filename === '' && file.data.length === 0) ? file : undefined;
  return {
    language: body.fields.language,
    fileName: chosen ? chosen.filename || null : null,
    source: chosen ? chosen.data : body.fields.sourceCode,
  };
}
