/**
 * The command side of a problem as a decider over its stream (`problem-<id>`). Deciding needs only whether
 * it exists and its test count (`case`, and whether it came from uploaded test data); files are validated
 * and stored before a command is decided, so commands carry their hashes.
 */
import { eventOf, isEvent, type Decider } from '@otog/platform/eventstore/command';
import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { AttachmentMetadata, ProblemExample, ProblemForm } from '@otog/schemas/api/problem';
import {
  ProblemAttachmentMetadataSet,
  ProblemAttachmentUploaded,
  ProblemDeleted,
  ProblemDetailsSet,
  ProblemExamplesSet,
  ProblemJudgingConfigured,
  ProblemStatementUploaded,
  ProblemTestdataUploaded,
  ProblemVisibilityChanged,
} from '@otog/schemas/events';
import { badRequest, conflict, notFound } from '../../http/errors.ts';

export const PROBLEM_NOT_FOUND = 'Problem not found';

/** null: no such problem (never created, or deleted). */
export type ProblemState = { readonly case: string | null; readonly hasTestdata: boolean } | null;

/** Files already validated and in the object store. */
export interface StoredFiles {
  readonly testdata?: { readonly hash: string; readonly testCount: number };
  readonly statement?: { readonly hash: string; readonly size: number };
}

export type ProblemCommand =
  | { readonly kind: 'create'; readonly problemId: number; readonly form: ProblemForm; readonly files: StoredFiles; readonly show: boolean }
  | { readonly kind: 'update'; readonly problemId: number; readonly form: ProblemForm; readonly files: StoredFiles }
  | { readonly kind: 'show'; readonly problemId: number; readonly show: boolean }
  | { readonly kind: 'delete'; readonly problemId: number }
  | { readonly kind: 'setExamples'; readonly problemId: number; readonly examples: readonly ProblemExample[] }
  | { readonly kind: 'setAttachmentMetadata'; readonly problemId: number; readonly metadata: AttachmentMetadata }
  | { readonly kind: 'attachmentUploaded'; readonly problemId: number; readonly hash: string; readonly size: number };

export const problemStream = (problemId: number): string => `problem-${problemId}`;
export const problemScope = (problemId: number): string => `problem:${problemId}`;

function formEvents(problemId: number, form: ProblemForm, problemCase: string | null, files: StoredFiles): NewEvent[] {
  const scope = problemScope(problemId);
  const { score, timeLimit, memoryLimit } = form;
  return [
    eventOf(ProblemDetailsSet, { problemId, name: form.name, sname: form.sname, case: problemCase }, scope),
    eventOf(ProblemJudgingConfigured, { problemId, score, timeLimit, memoryLimit }, scope),
    ...(files.testdata ? [eventOf(ProblemTestdataUploaded, { problemId, testdataHash: files.testdata.hash, case: String(files.testdata.testCount) }, scope)] : []),
    ...(files.statement ? [eventOf(ProblemStatementUploaded, { problemId, pdfHash: files.statement.hash, size: files.statement.size }, scope)] : []),
  ];
}

/**
 * The test count a form sets: a new zip's; else, when the problem has test data, its count (an empty case
 * keeps it, a different one is refused); else what the admin typed.
 */
function caseOf(state: ProblemState, form: ProblemForm, files: StoredFiles): string | null {
  if (files.testdata) return String(files.testdata.testCount);
  if (!state?.hasTestdata) return form.case;
  if (form.case !== null && form.case !== state.case) {
    throw badRequest(`case is "${form.case}" but the uploaded test data has ${state.case} tests; upload a new zip to change it`);
  }
  return state.case;
}

export const problemDecider: Decider<ProblemState, ProblemCommand> = {
  initialState: null,
  types: new Set([ProblemDetailsSet.type, ProblemTestdataUploaded.type, ProblemDeleted.type]),
  evolve(state, event) {
    if (isEvent(event, ProblemDetailsSet)) return { hasTestdata: state?.hasTestdata ?? false, case: event.data.case };
    if (isEvent(event, ProblemTestdataUploaded)) return state && { hasTestdata: true, case: event.data.case };
    if (isEvent(event, ProblemDeleted)) return null;
    return state;
  },
  decide(command, state) {
    const { problemId } = command;
    const scope = problemScope(problemId);
    if (command.kind === 'create') {
      if (state) throw conflict(`Problem ${problemId} exists`);
      const events = formEvents(problemId, command.form, caseOf(null, command.form, command.files), command.files);
      return command.show ? [...events, eventOf(ProblemVisibilityChanged, { problemId, show: true }, scope)] : events;
    }
    if (!state) throw notFound(PROBLEM_NOT_FOUND);
    switch (command.kind) {
      case 'update':
        return formEvents(problemId, command.form, caseOf(state, command.form, command.files), command.files);
      case 'show':
        return [eventOf(ProblemVisibilityChanged, { problemId, show: command.show }, scope)];
      case 'delete':
        return [eventOf(ProblemDeleted, { problemId }, scope)];
      case 'setExamples':
        return [eventOf(ProblemExamplesSet, { problemId, examples: command.examples.map(({ input, output }) => ({ input, output })) }, scope)];
      case 'setAttachmentMetadata': {
        const { size, name, lastModified, type } = command.metadata;
        return [eventOf(ProblemAttachmentMetadataSet, { problemId, metadata: { size, name, lastModified, type } }, scope)];
      }
      case 'attachmentUploaded':
        return [eventOf(ProblemAttachmentUploaded, { problemId, hash: command.hash, size: command.size }, scope)];
    }
  },
};
