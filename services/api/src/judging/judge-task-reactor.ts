import type { FragmentSqlToken } from 'slonik';
import { JUDGE_PROBLEM_EVENTS } from '@otog/projections';
import { sql } from '@otog/platform/db/pool';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import type { EventConsumer } from '@otog/platform/runner/consumer';
import { RejudgeRequested, SubmissionCreated, type EventDataOf } from '@otog/schemas/events';

/** NOTIFY channel: a task became claimable (delivered on commit); long-polling claims wait on it. */
export const JUDGE_TASKS_CHANNEL = 'otog_judge_tasks';

export const JUDGE_TASK_REACTOR = 'reactor:judge-tasks';

type Created = EventDataOf<typeof SubmissionCreated>;
type Rejudge = EventDataOf<typeof RejudgeRequested>;

/**
 * The problem as the log has it now: its stream's position of the last event the judge's problem read model
 * folds (0: none). A task records it when queued and a claim waits until the read model has folded that far,
 * so the test data uploaded before a rejudge is the package judged, however far the read model lags behind
 * this reactor.
 */
export const problemVersionInLog = (problemId: FragmentSqlToken) => sql.fragment`(
  SELECT coalesce(max(stream_position), 0) FROM event_log
  WHERE stream_id = 'problem-' || ${problemId} AND type = ANY(${sql.array([...JUDGE_PROBLEM_EVENTS], 'text')}))`;

/**
 * Turns SubmissionCreated / RejudgeRequested into judge_tasks rows, in the transaction that moves its
 * checkpoint. Idempotent by deterministic keys, so a redelivered event changes nothing: the row is keyed by
 * submission id, and a rejudge only takes effect when its judging (its stream position) is newer than the
 * row's. A reactor is never rebuilt: its rows are command-side state, not a read model.
 */
export const judgeTaskReactor: EventConsumer = {
  name: JUDGE_TASK_REACTOR,
  types: new Set([SubmissionCreated.type, RejudgeRequested.type]),
  async handle(tx, events: readonly StoredEvent[]) {
    let queued = 0;
    for (const event of events) {
      const position = sql.fragment`${event.txid.toString()}::xid8, ${event.gpos.toString()}::bigint`;
      if (event.type === SubmissionCreated.type) {
        const data = event.data as Created;
        const result = await tx.query(sql.unsafe`
          INSERT INTO judge_tasks (submission_id, judging, state, problem_id, user_id, language, contest, scope, source_code, file_name,
            requested_txid, requested_gpos, problem_version)
          VALUES (${data.submissionId}, ${event.streamPosition}, 'queued', ${data.problemId}, ${data.userId}, ${data.language},
            ${data.contestId !== null}, ${event.scope}, ${data.sourceCode}, ${data.fileName}, ${position},
            ${problemVersionInLog(sql.fragment`${data.problemId}::int`)})
          ON CONFLICT (submission_id) DO NOTHING`);
        queued += result.rowCount;
      } else {
        const data = event.data as Rejudge;
        // A rejudge replaces the judging in progress: the old lease's reports become stale (409).
        const result = await tx.query(sql.unsafe`
          UPDATE judge_tasks
          SET judging = ${event.streamPosition}, state = 'queued', attempts = 0, lease_owner = NULL, lease_until = NULL,
              last_error = NULL, requested_txid = ${event.txid.toString()}::xid8, requested_gpos = ${event.gpos.toString()}::bigint,
              problem_version = ${problemVersionInLog(sql.fragment`judge_tasks.problem_id`)}, updated_at = now()
          WHERE submission_id = ${data.submissionId} AND judging < ${event.streamPosition}`);
        queued += result.rowCount;
      }
    }
    if (queued > 0) await tx.query(sql.unsafe`SELECT pg_notify(${JUDGE_TASKS_CHANNEL}, '')`);
  },
};
