import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { SampleStreams } from './index.ts';

const hash = (c: string, p: number) => c.repeat(63) + String(p % 10);

/**
 * Sample streams for the problems projection (see projection-redelivery.test.ts): created, edited,
 * re-configured, shown and hidden, given statements, test data, examples and attachments; problem 3 is
 * deleted at the end and problem 4 stays bare.
 */
export const problemsSamples: SampleStreams = Array.from({ length: 4 }, (_, i): [string, NewEvent[]] => {
  const problemId = i + 1;
  const scope = `problem:${problemId}`;
  const at = (minute: number) => `2024-01-0${problemId}T10:${String(minute).padStart(2, '0')}:00.000Z`;
  const events: NewEvent[] = [
    { type: 'ProblemDetailsSet', scope, occurredAt: at(0), data: { problemId, name: `Problem ${problemId}`, sname: null, case: null } },
    { type: 'ProblemJudgingConfigured', scope, occurredAt: at(0), data: { problemId, score: 100, timeLimit: 1_000, memoryLimit: 256 } },
  ];
  if (problemId !== 4) {
    events.push(
      { type: 'ProblemTestdataUploaded', scope, occurredAt: at(1), data: { problemId, testdataHash: hash('a', problemId), case: '5' } },
      { type: 'ProblemStatementUploaded', scope, occurredAt: at(1), data: { problemId, pdfHash: hash('b', problemId), size: 1_234 } },
      { type: 'ProblemVisibilityChanged', scope, occurredAt: at(2), data: { problemId, show: true } },
      { type: 'ProblemExamplesSet', scope, occurredAt: at(3), data: { problemId, examples: [{ input: '1 2\n', output: '3\n' }] } },
      {
        type: 'ProblemAttachmentMetadataSet',
        scope,
        occurredAt: at(4),
        data: { problemId, metadata: { size: 10, name: 'files.zip', lastModified: 1_700_000_000_000, type: 'application/zip' } },
      },
      { type: 'ProblemAttachmentUploaded', scope, occurredAt: at(5), data: { problemId, hash: hash('c', problemId), size: 10 } },
      { type: 'ProblemDetailsSet', scope, occurredAt: at(6), data: { problemId, name: `Renamed ${problemId}`, sname: `p${problemId}`, case: '5' } },
      { type: 'ProblemJudgingConfigured', scope, occurredAt: at(7), data: { problemId, score: 50 + problemId, timeLimit: 2_000, memoryLimit: 64 } },
      { type: 'ProblemTestdataUploaded', scope, occurredAt: at(8), data: { problemId, testdataHash: hash('d', problemId), case: '7' } },
      { type: 'ProblemExamplesSet', scope, occurredAt: at(9), data: { problemId, examples: [] } },
    );
  }
  if (problemId === 2) events.push({ type: 'ProblemVisibilityChanged', scope, occurredAt: at(10), data: { problemId, show: false } });
  if (problemId === 3) events.push({ type: 'ProblemDeleted', scope, occurredAt: at(10), data: { problemId } });
  return [`problem-${problemId}`, events];
});
