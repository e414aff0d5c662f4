import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeTaskReactor } from '@otog/api/judging/judge-task-reactor';
import { sql } from '@otog/platform/db/pool';
import { LOG_START } from '@otog/platform/eventstore/position';
import { ensureCheckpoint, lockCheckpoint } from '@otog/platform/runner/checkpoints';
import { applyBatch } from '@otog/platform/runner/consumer';
import { SOURCE, startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.problem(1);
});
afterAll(() => h.stop());

const tasks = async () =>
  (await h.runtime.pool.any(sql.unsafe`
    SELECT submission_id, judging, state, problem_id, language, contest, scope, source_code, file_name, attempts,
      lease_owner, lease_until, requested_txid, requested_gpos
    FROM judge_tasks ORDER BY submission_id`)) as ReadonlyArray<Record<string, unknown>>;

/** Hands the whole log to the reactor again, as a redelivering transport would. */
async function redeliverAll(): Promise<void> {
  const events = (await h.runtime.store.readAfter(h.runtime.pool, LOG_START, 100_000)).filter((e) => judgeTaskReactor.types!.has(e.type));
  await h.runtime.pool.transaction((tx) => judgeTaskReactor.handle(tx, events));
  // And in reverse order (an older rejudge arriving after a newer one changes nothing either).
  await h.runtime.pool.transaction((tx) => judgeTaskReactor.handle(tx, [...events].reverse()));
}

describe('the judge-task reactor', () => {
  it('creates exactly one queued task per submission, with what judging needs', async () => {
    await h.submit(1, { language: 'cpp', contestId: 3 });
    await h.submit(2, { language: 'python', userId: 9 });
    await h.submit(3, { language: 'c', problemId: 77 });
    const rows = await tasks();
    expect(rows.map((r) => [r.submission_id, r.judging, r.state, r.problem_id, r.language, r.contest, r.scope, r.attempts])).toEqual([
      [1, 1, 'queued', 1, 'cpp', true, 'contest:3', 0],
      [2, 1, 'queued', 1, 'python', false, 'user:9', 0],
      [3, 1, 'queued', 77, 'c', false, 'user:7', 0],
    ]);
    expect(rows[0]!.source_code).toBe(SOURCE);
    expect(rows[0]!.file_name).toBe('a.cpp');
    const before = await tasks();
    await redeliverAll();
    expect(await tasks()).toEqual(before);
  });

  it('a rejudge re-queues the row with the newer judging, resets attempts and clears the lease; redelivery changes nothing', async () => {
    const token = await h.addWorker('w');
    const claimed = await h.claim(token, 'w', { capacity: 64 });
    expect(claimed.map((t) => t.submissionId)).toEqual([1, 2]);
    expect((await h.task(1))!.state).toBe('leased');

    const first = await h.rejudge(1);
    const second = await h.rejudge(1);
    expect(first.events[0]!.streamPosition).toBe(2);
    expect(second.events[0]!.streamPosition).toBe(3);
    expect(await h.task(1)).toMatchObject({ judging: 3, state: 'queued', attempts: 0, lease_owner: null, lease_until: null });
    expect(await h.task(2)).toMatchObject({ judging: 1, state: 'leased', attempts: 1, lease_owner: 'w' });

    const before = await tasks();
    await redeliverAll();
    expect(await tasks()).toEqual(before);

    // A whole replay through the checkpointed path (a new consumer name starts at the log's beginning).
    const key = { consumer: 'reactor:judge-tasks-replay-test', source: 'pglog' as const, part: '*' };
    await ensureCheckpoint(h.runtime.pool, key);
    const log = await h.runtime.store.readAfter(h.runtime.pool, LOG_START, 100_000);
    const outcome = await h.runtime.pool.transaction(async (tx) =>
      applyBatch(tx, key, (await lockCheckpoint(tx, key, { skipLocked: false }))!, judgeTaskReactor, log),
    );
    expect(outcome.applied).toBe(5);
    expect(await tasks()).toEqual(before);
  });

  it('a rejudge of a finished submission queues it again', async () => {
    await h.runtime.pool.query(sql.unsafe`UPDATE judge_tasks SET state = 'done', lease_owner = NULL, lease_until = NULL WHERE submission_id = 2`);
    const rejudge = await h.rejudge(2);
    expect(await h.task(2)).toMatchObject({ judging: rejudge.events[0]!.streamPosition, state: 'queued', attempts: 0 });
  });

  it('runs under its own checkpoint, which is never a projection slot', async () => {
    const row = await h.runtime.pool.maybeOne(sql.unsafe`
      SELECT status FROM consumer_checkpoints WHERE consumer = ${judgeTaskReactor.name} AND source = 'pglog'`);
    expect(row).toEqual({ status: 'running' });
    expect(judgeTaskReactor.name).toBe('reactor:judge-tasks');
  });
});
