/**
 * The command side of a submission as a decider over its stream (`submission-<id>`): what it needs to
 * decide is whether it exists, its scope and whether it is shared; the judge's reports are not loaded.
 */
import { eventOf, isEvent, type Decider } from '@otog/platform/eventstore/command';
import type { Language } from '@otog/schemas/common/judging';
import { RejudgeRequested, SubmissionCreated, SubmissionShared } from '@otog/schemas/events';
import { conflict, notFound } from '../../http/errors.ts';
import { submissionScope } from './rules.ts';

/** null: no such submission. */
export type SubmissionState = { readonly scope: string; readonly public: boolean } | null;

/** What a contestant sends. */
export interface NewSubmission {
  readonly userId: number;
  readonly problemId: number;
  readonly contestId: number | null;
  readonly language: Language;
  readonly sourceCode: string;
  readonly fileName: string | null;
}

export type SubmissionCommand =
  | ({ readonly kind: 'create'; readonly submissionId: number; readonly at: string; readonly eventId?: string } & NewSubmission)
  | { readonly kind: 'share'; readonly submissionId: number; readonly public: boolean }
  | { readonly kind: 'rejudge'; readonly submissionId: number; readonly requestedBy: number };

export const submissionStream = (id: number): string => `submission-${id}`;
export const SUBMISSION_NOT_FOUND = 'Submission not found';

export const submissionDecider: Decider<SubmissionState, SubmissionCommand> = {
  initialState: null,
  types: new Set([SubmissionCreated.type, SubmissionShared.type]),
  evolve(state, event) {
    if (isEvent(event, SubmissionCreated)) return { scope: event.scope, public: false };
    if (state && isEvent(event, SubmissionShared)) return { ...state, public: event.data.public };
    return state;
  },
  decide(command, state) {
    const { submissionId } = command;
    if (command.kind === 'create') {
      if (state) throw conflict(`Submission ${submissionId} exists`);
      const { kind: _kind, at, eventId, ...data } = command;
      return [eventOf(SubmissionCreated, data, submissionScope(command), { occurredAt: at, ...(eventId ? { eventId } : {}) })];
    }
    if (!state) throw notFound(SUBMISSION_NOT_FOUND);
    if (command.kind === 'share') {
      // Sharing what is already shared changes nothing: no event.
      return state.public === command.public ? [] : [eventOf(SubmissionShared, { submissionId, public: command.public }, state.scope)];
    }
    return [eventOf(RejudgeRequested, { submissionId, requestedBy: command.requestedBy }, state.scope)];
  },
};
