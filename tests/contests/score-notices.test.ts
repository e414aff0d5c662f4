/**
 * What the contest-scores projection announces after commit: a `contest-score` notice per changed
 * (contest, user, problem) score with its new score and penalty (null once gone), and a `scoreboard` notice
 * per contest whose board a reader would see change; nothing when a redelivered event changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contestScoresProjection } from '@otog/projections';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { noticeCollector, type Notice } from '@otog/platform/notices/notice';
import { slotTables } from '@otog/platform/runner/projection';
import { ensureCodeSlot } from '@otog/platform/runner/projection-slots';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';

let db: TestDatabase;
let version: number;
beforeAll(async () => {
  db = await createTestDatabase();
  [version] = (await ensureCodeSlot(db.pool, contestScoresProjection)) as [number];
});
afterAll(() => db.drop());

let gpos = 0;
const START = '2026-05-01T09:00:00.000Z';
const event = (type: string, data: Record<string, unknown>, options: { streamPosition?: number; scope?: string; occurredAt?: string } = {}): StoredEvent => ({
  txid: 1n,
  gpos: BigInt(++gpos),
  eventId: crypto.randomUUID(),
  streamId: 's',
  streamPosition: options.streamPosition ?? 1,
  type,
  schemaVersion: 1,
  scope: options.scope ?? 'contest:7',
  occurredAt: options.occurredAt ?? '2026-05-01T09:10:00.000Z',
  recordedAt: START,
  data,
  meta: {},
});
const judged = (submissionId: number, judging: number, status: 'accept' | 'reject', score: number) =>
  event('SubmissionJudged', {
    submissionId,
    judging,
    status,
    result: '',
    score,
    timeUsed: 1,
    memUsed: 1,
    errmsg: null,
    subtaskResults: [{ subtaskIndex: 1, score, fullScore: 100, verdicts: [] }],
    judgedBy: 'w',
    attempts: 1,
  });

/** Folds the events in one batch and returns what it would publish. */
async function fold(...events: StoredEvent[]): Promise<Array<Pick<Notice, 'topic' | 'key' | 'data'>>> {
  const notices = noticeCollector();
  await db.pool.transaction(async (tx) => {
    for (const e of events) await contestScoresProjection.handlerOf(e.type)!(tx, e, slotTables(contestScoresProjection, version), notices.contextAt(e));
  });
  return notices.notices().map(({ topic, key, data }) => ({ topic, key, ...(data ? { data } : {}) }));
}

const board = { topic: 'scoreboard', key: '7' };
const cell = (score: number | null, penalty: number | null) => ({
  topic: 'contest-score',
  key: '7:3:11',
  data: { contestId: 7, userId: 3, problemId: 11, score, penalty },
});

describe('contest-score notices', () => {
  it('announces a new score, a change, nothing on redelivery, and the score gone after a rejudge', async () => {
    const settings = { name: 'c', mode: 'unrated', gradingMode: 'classic', scoreboardPolicy: 'DURING_CONTEST', timeStart: START, timeEnd: '2026-05-01T12:00:00.000Z', announce: null, freezeAt: null };
    expect(await fold(event('ContestCreated', { contestId: 7, settings }))).toEqual([]);
    const created = event('SubmissionCreated', { submissionId: 1, userId: 3, problemId: 11, contestId: 7, language: 'cpp', sourceCode: '', fileName: null });
    expect(await fold(created)).toEqual([]);

    const verdict = judged(1, 1, 'reject', 40);
    expect(await fold(verdict)).toEqual([cell(40, 600), board]);
    expect(await fold(verdict, created)).toEqual([]);

    expect(await fold(event('ProblemJudgingConfigured', { problemId: 11, score: 100, timeLimit: 1_000, memoryLimit: 64 }, { scope: 'problem:11' }))).toEqual([]);
    const rejudge = event('RejudgeRequested', { submissionId: 1, requestedBy: 1 }, { streamPosition: 3 });
    expect(await fold(rejudge)).toEqual([cell(null, null), board]);
    expect(await fold(judged(1, 1, 'accept', 100))).toEqual([]);
    expect(await fold(judged(1, 3, 'accept', 100))).toEqual([cell(100, 600), board]);
  });
});
