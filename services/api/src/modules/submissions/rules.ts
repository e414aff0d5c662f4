/**
 * Who may see what of a submission, and what makes an upload acceptable: pure rules (no I/O), so each is
 * tested on its own and every route applies the same one.
 */
import type { ListFilter, SubmissionFacts } from '@otog/projections';
import { LANGUAGES, type Language } from '@otog/schemas/common/judging';
import type { AuthUser } from '../../http/access.ts';
import { badRequest } from '../../http/errors.ts';
import { canSeeProblem, type VisibilityContext } from '../problems/visibility.ts';

const isAdmin = (user: AuthUser | null): boolean => user?.role === 'admin';
const isOwner = (user: AuthUser | null, submission: SubmissionFacts): boolean => user !== null && user.id === submission.userId;

/**
 * A submission shows its problem (name, limits, verdicts), so it is seen only by who may see the problem
 * (canSeeProblem): a hidden problem's submissions are for admins, or for the contest context. That covers
 * your own submissions to a problem hidden later too, as OTOG hides hidden problems from non-admins. Routes answer such a submission as absent (404), so hidden problems stay unknown.
 */
export function canSeeItsProblem(user: AuthUser | null, submission: SubmissionFacts, context: VisibilityContext = {}): boolean {
  return canSeeProblem({ id: submission.problemId, show: submission.problemShow }, user, context);
}

/**
 * canSeeItsProblem for the list queries, applied in SQL so pages stay full: nothing for admins; for the
 * others shown problems, plus the hidden ones the context lets a signed-in user see.
 */
export function visibleProblemsFilter(user: AuthUser | null, context: VisibilityContext = {}): Pick<ListFilter, 'visibleProblems'> {
  if (isAdmin(user)) return {};
  return { visibleProblems: { hiddenAllowed: user ? [...(context.runningContestProblemIds ?? [])] : [] } };
}

/**
 * GET /submission (OTOG): your own list (userId = you) includes your contest submissions; an admin sees
 * every non-contest submission (optionally of userId); everyone else sees non-contest submissions of
 * role-`user` accounts (optionally of userId).
 */
export function globalListFilter(
  user: AuthUser | null,
  query: { userId?: number | undefined; problemSearch?: string | undefined },
  context: VisibilityContext = {},
): ListFilter {
  const problemSearch = query.problemSearch?.trim() || undefined;
  const base = {
    ...(query.userId === undefined ? {} : { userId: query.userId }),
    ...(problemSearch ? { problemSearch } : {}),
    ...visibleProblemsFilter(user, context),
  };
  if (user && query.userId === user.id) return base;
  if (isAdmin(user)) return { ...base, nonContest: true };
  return { ...base, nonContest: true, ofUsersOnly: true };
}

/**
 * A user's submissions (all, or of one problem): contest submissions only for admins and the user
 * themself — OTOG let anyone read others' contest results here; contest results follow the scoreboard
 * policy, so they stay out.
 */
export function userListFilter(user: AuthUser | null, userId: number, problemId?: number, context: VisibilityContext = {}): ListFilter {
  const filter: ListFilter = { userId, ...(problemId === undefined ? {} : { problemId }), ...visibleProblemsFilter(user, context) };
  return isAdmin(user) || user?.id === userId ? filter : { ...filter, nonContest: true };
}

/**
 * GET /submission/:id: another user's contest submission, and one to a problem the caller may not see, are
 * hidden from non-admins (as if absent).
 */
export function canSeeSubmission(user: AuthUser | null, submission: SubmissionFacts, context: VisibilityContext = {}): boolean {
  if (!canSeeItsProblem(user, submission, context)) return false;
  return submission.contestId === null || isAdmin(user) || isOwner(user, submission);
}

/** The source code: shared ones, your own, or any for an admin. */
export function canReadCode(user: AuthUser | null, submission: SubmissionFacts): boolean {
  return submission.public || isAdmin(user) || isOwner(user, submission);
}

/** Sharing: the owner or an admin. */
export function canShare(user: AuthUser | null, submission: SubmissionFacts): boolean {
  return isAdmin(user) || isOwner(user, submission);
}

/** The ordering scope of a submission's events: its contest's, else its user's (judging-events.ts). */
export function submissionScope(submission: { userId: number; contestId: number | null }): string {
  return submission.contestId === null ? `user:${submission.userId}` : `contest:${submission.contestId}`;
}

/**
 * An upload to a contest: only to a problem of the contest, and, but for admins (who try a contest out
 * before and after it), only while it runs. OTOG checked neither: late submissions changed its boards.
 */
export function contestUploadRefusal(user: AuthUser, contest: { readonly running: boolean; readonly hasProblem: boolean }): string | null {
  if (!contest.hasProblem) return UPLOAD_MESSAGES.notPublic;
  if (!contest.running && !isAdmin(user)) return UPLOAD_MESSAGES.contestNotRunning;
  return null;
}

/** OTOG's upload messages (the web shows them as they are). */
export const UPLOAD_MESSAGES = {
  fileRequired: 'File is required!',
  language: 'Only C C++ and Python are allowed!',
  tooLarge: 'File is too large!',
  notPublic: 'Problem is not in contest or public!',
  contestNotRunning: 'The contest is not running',
  notText: 'Source code must be UTF-8 text',
  empty: 'The source code is empty',
  nameTooLong: 'File name is too long (at most 255 characters)',
} as const;

/**
 * File extensions and the language each one means. `.python` is how OTOG's code editor names a Python
 * submission (`{problemId}.{language}`); OTOG's own filter refused it, which broke Python from the editor.
 */
const EXTENSIONS: Readonly<Record<string, Language>> = { c: 'c', cpp: 'cpp', cc: 'cpp', py: 'python', python: 'python' };

export type UploadCheck =
  | { readonly ok: true; readonly language: Language; readonly sourceCode: string; readonly fileName: string | null }
  | { readonly ok: false; readonly message: string };

const isLanguage = (value: string): value is Language => (LANGUAGES as readonly string[]).includes(value);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The upload rules: a source is required (a file, or the code as a text field); the language is c, cpp or
 * python (taken from the file's extension when the field is absent) and an extension, when there is a
 * file name, must be one of that language's; at most `maxBytes`; UTF-8 text without NUL characters (the
 * code is stored as text).
 */
export function checkUpload(input: {
  readonly language: string | undefined;
  readonly fileName: string | null;
  readonly source: Buffer | string | undefined;
  readonly maxBytes: number;
}): UploadCheck {
  const { source, fileName } = input;
  if (source === undefined) return { ok: false, message: UPLOAD_MESSAGES.fileRequired };
  const extension = fileName === null ? undefined : /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase();
  const implied = extension === undefined ? undefined : EXTENSIONS[extension];
  const language = input.language?.trim() || implied;
  if (language === undefined || !isLanguage(language)) return { ok: false, message: UPLOAD_MESSAGES.language };
  if (fileName !== null && implied !== language) return { ok: false, message: UPLOAD_MESSAGES.language };
  const bytes = typeof source === 'string' ? Buffer.byteLength(source, 'utf8') : source.length;
  if (bytes > input.maxBytes) return { ok: false, message: UPLOAD_MESSAGES.tooLarge };
  let sourceCode: string;
  try {
    sourceCode = typeof source === 'string' ? source : utf8.decode(source);
  } catch {
    return { ok: false, message: UPLOAD_MESSAGES.notText };
  }
  if (sourceCode.includes('\u0000')) return { ok: false, message: UPLOAD_MESSAGES.notText };
  // Nothing to compile: refused here rather than queued for a certain compile error.
  if (sourceCode.trim() === '') return { ok: false, message: UPLOAD_MESSAGES.empty };
  if (fileName !== null && fileName.length > 255) return { ok: false, message: UPLOAD_MESSAGES.nameTooLong };
  return { ok: true, language, sourceCode, fileName };
}

/** What an Idempotency-Key header may hold: 1-255 visible ASCII characters (a UUID is typical). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, undefined without one; a malformed one is refused (400) before the upload is read. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) {
    throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters, sent once');
  }
  return header;
}
