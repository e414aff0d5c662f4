/** The submission decider, given/when/then (pure). */
import { describe, it } from 'vitest';
import { submissionDecider } from '@otog/api/modules/submissions/submission-decider';
import { given } from '../support/decider.ts';

const source = { userId: 7, problemId: 3, language: 'c' as const, sourceCode: 'int main(){}', fileName: 'a.c' };
const createdIn = (contestId: number | null, scope: string) => ({ type: 'SubmissionCreated', scope, data: { submissionId: 1, contestId, ...source } });
const practice = createdIn(null, 'user:7');

describe('submission decider', () => {
  it('creates once, scoped by its contest or else its user', () => {
    given(submissionDecider).when({ kind: 'create', submissionId: 1, contestId: null, ...source, at: '2026-01-01T00:00:00.000Z' }).then([practice]);
    given(submissionDecider)
      .when({ kind: 'create', submissionId: 1, contestId: 4, ...source, at: '2026-01-01T00:00:00.000Z' })
      .then([createdIn(4, 'contest:4')]);
    given(submissionDecider, [practice]).when({ kind: 'create', submissionId: 1, contestId: null, ...source, at: 'x' }).thenRefused('Submission 1 exists');
  });

  it('shares only what is not shared yet, in the scope it was created in', () => {
    const contest = createdIn(4, 'contest:4');
    given(submissionDecider, [contest])
      .when({ kind: 'share', submissionId: 1, public: true })
      .then([{ type: 'SubmissionShared', scope: 'contest:4', data: { submissionId: 1, public: true } }]);
    given(submissionDecider, [contest]).when({ kind: 'share', submissionId: 1, public: false }).then([]);
    const shared = { type: 'SubmissionShared', scope: 'contest:4', data: { submissionId: 1, public: true } };
    given(submissionDecider, [contest, shared]).when({ kind: 'share', submissionId: 1, public: true }).then([]);
    given(submissionDecider, [contest, shared])
      .when({ kind: 'share', submissionId: 1, public: false })
      .then([{ type: 'SubmissionShared', scope: 'contest:4', data: { submissionId: 1, public: false } }]);
  });

  it('rejudges an existing submission; a missing one is a 404', () => {
    given(submissionDecider, [practice])
      .when({ kind: 'rejudge', submissionId: 1, requestedBy: 2 })
      .then([{ type: 'RejudgeRequested', scope: 'user:7', data: { submissionId: 1, requestedBy: 2 } }]);
    given(submissionDecider).when({ kind: 'rejudge', submissionId: 1, requestedBy: 2 }).thenRefused('Submission not found');
    given(submissionDecider).when({ kind: 'share', submissionId: 1, public: true }).thenRefused('Submission not found');
  });
});
