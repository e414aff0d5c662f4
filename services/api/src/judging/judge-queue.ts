/**
 * The command side of judging: leases judge_tasks rows to workers and turns their reports into events
 * (DESIGN.md section 7). Every report names its lease (worker, judging, attempt); one that no longer owns
 * the task — the lease was taken over after expiring, or a rejudge replaced the judging — is refused.
 */
import type { Logger } from 'pino';
import { JUDGE_PROBLEMS_STREAM_VERSION, judgeProblemsProjection } from '@otog/projections';
import type { NotificationListener } from '@otog/platform/db/listen';
import { sql, type DatabasePool, type DatabaseTransactionConnection } from '@otog/platform/db/pool';
import { deterministicEventId } from '@otog/platform/eventstore/deterministic-id';
import type { EventStore, NewEvent } from '@otog/platform/eventstore/event-store';
import { CHECKPOINTS_CHANNEL } from '@otog/platform/runner/checkpoints';
import { slotConsumerName } from '@otog/platform/runner/projection';
import { liveSlot } from '@otog/platform/runner/read-model';
import type { JudgeTask } from '@otog/schemas/api/judge-internal';
import { clipText, JUDGING_LIMITS, RESULT_MAX_LENGTH, type Language, type SubmissionResult, type TestOutcome } from '@otog/schemas/common/judging';
import { EventSchemaError, SubmissionJudged, TestcaseJudged, type EventDataOf } from '@otog/schemas/events';
import { JUDGE_TASKS_CHANNEL, problemVersionInLog } from './judge-task-reactor.ts';

export const DEFAULT_LEASE_MS = 60_000;
export const DEFAULT_MAX_ATTEMPTS = 3;
const INT4_MAX = 2_147_483_647;
/** Fallback re-check while a claim long-polls: leases expire without any notification. */
const CLAIM_POLL_MS = 1_000;

/** An error the HTTP layer answers with its status and message. */
export class JudgeApiError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.name = 'JudgeApiError';
    this.statusCode = statusCode;
  }
}

export interface LeaseRef {
  readonly worker: string;
  readonly judging: number;
  readonly attempt: number;
}

export interface ClaimInput {
  readonly worker: string;
  readonly languages: readonly Language[];
  readonly capacity: number;
  readonly waitMs: number;
}

export interface JudgeQueueOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly listener: NotificationListener;
  readonly logger?: Logger;
  /** How long a claim or heartbeat holds a task. */
  readonly leaseMs?: number;
  /** Leases one judging may take; a task whose attempts are used up ends as judgeError. */
  readonly maxAttempts?: number;
  /** Told, per claimed task, how long it waited since it was queued (or its lease ran out) — for metrics. */
  readonly onClaimed?: (waitedSeconds: number) => void;
}

export interface JudgeQueue {
  readonly leaseMs: number;
  readonly maxAttempts: number;
  /** Leases up to `capacity` tasks; when none is claimable, waits up to `waitMs` for one. */
  claim(input: ClaimInput, signal?: AbortSignal): Promise<JudgeTask[]>;
  heartbeat(submissionId: number, lease: LeaseRef): Promise<{ leaseUntil: string }>;
  /** Appends a TestcaseJudged per result not yet in the log (a retried report appends nothing twice). */
  reportTestcases(submissionId: number, lease: LeaseRef, results: ReadonlyArray<{ testNumber: number; outcome: TestOutcome }>): Promise<void>;
  complete(submissionId: number, lease: LeaseRef, result: SubmissionResult): Promise<void>;
  /** This attempt could not judge: re-queue, or end as judgeError when the attempts are used up. */
  fail(submissionId: number, lease: LeaseRef, message: string): Promise<void>;
  /**
   * Ends what can never be judged: tasks whose lease expired with every attempt used, and queued tasks of
   * a problem without test data (once the problem read model has folded the problem as the task asked
   * for it). Returns how many.
   */
  sweep(limit?: number): Promise<number>;
  /** Runs sweep() every `intervalMs` until stopped. */
  startSweeper(intervalMs: number): { stop(): Promise<void> };
  /** Releases waiting claims (they answer with no tasks) and stops listening. */
  close(): void;
}

interface TaskRow {
  submission_id: number;
  judging: number;
  state: 'queued' | 'leased' | 'done';
  scope: string;
  lease_owner: string | null;
  lease_until: string | null;
  attempts: number;
  last_error: string | null;
}

type Judged = EventDataOf<typeof SubmissionJudged>;

const streamOf = (submissionId: number) => `submission-${submissionId}`;
const judgedEventId = (submissionId: number, judging: number) => deterministicEventId(`${submissionId}:${judging}:judged`);
export const testcaseEventId = (submissionId: number, judging: number, testNumber: number) =>
  deterministicEventId(`${submissionId}:${judging}:${testNumber}`);

/** Data the event schema refuses (the request schema is looser in places) is the caller's mistake: 400. */
async function asBadRequest<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EventSchemaError) throw new JudgeApiError(400, error.issues.join('; ') || error.message);
    throw error;
  }
}

const owns = (row: TaskRow, lease: LeaseRef) =>
  row.state === 'leased' && row.lease_owner === lease.worker && row.judging === lease.judging && row.attempts === lease.attempt;

export function createJudgeQueue(options: JudgeQueueOptions): JudgeQueue {
  const { pool, store, listener, logger } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(leaseMs) || leaseMs < 1) throw new Error('leaseMs must be a positive integer');
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error('maxAttempts must be a positive integer');
  const leaseInterval = sql.fragment`(${leaseMs}::int * interval '1 millisecond')`;

  // Long-polling claims: one LISTEN for all of them, taken at once so no early wake-up is missed.
  let generation = 0;
  let closed = false;
  const waiters = new Set<() => void>();
  const wakeAll = () => {
    generation += 1;
    for (const wake of [...waiters]) wake();
  };
  // Checkpoint names of the problem read model's slots: `projection:judge_problems:v<N>`.
  const problemsConsumerPrefix = slotConsumerName(judgeProblemsProjection.name, 1).replace(/\d+$/, '');
  const offs = [
    listener.on(JUDGE_TASKS_CHANNEL, wakeAll),
    // A problem getting its test data makes waiting tasks claimable.
    listener.on(CHECKPOINTS_CHANNEL, (consumer) => {
      if (consumer.startsWith(problemsConsumerPrefix)) wakeAll();
    }),
  ];

  /** The problem read model's live table, looked up at every use as every reader does. */
  const problems = async (db: DatabaseTransactionConnection | DatabasePool) => {
    const live = await liveSlot(db, judgeProblemsProjection);
    return live && { table: live.tables.problems, versioned: live.codeVersion >= JUDGE_PROBLEMS_STREAM_VERSION };
  };
  /**
   * Claims lease a task only once its problem row has folded the problem as the judging asked for it
   * (judge-task-reactor); not while an older code version's slot, without stream_version, is live.
   */
  const foldedAsAsked = (live: { versioned: boolean }) =>
    live.versioned ? sql.fragment`AND p.stream_version >= t.problem_version` : sql.fragment``;
  /**
   * "This problem has no test data" is believed only once the read model's row (none: 0) has folded the
   * problem as the log has it now. This asks the log, not the task's problem_version, so a row that an older
   * code's reactor queued without one is not ended early.
   */
  const nothingUnfolded = sql.fragment`${problemVersionInLog(sql.fragment`t.problem_id`)} <= COALESCE(p.stream_version, 0)`;

  const lockTask = async (tx: DatabaseTransactionConnection, submissionId: number): Promise<TaskRow> => {
    const row =
      submissionId > INT4_MAX
        ? null
        : ((await tx.maybeOne(sql.unsafe`
            SELECT submission_id, judging, state, scope, lease_owner, lease_until, attempts, last_error
            FROM judge_tasks WHERE submission_id = ${submissionId} FOR UPDATE`)) as TaskRow | null);
    if (!row) throw new JudgeApiError(404, `no judge task for submission ${submissionId}`);
    return row;
  };

  const requireLease = (row: TaskRow, lease: LeaseRef) => {
    if (!owns(row, lease)) {
      throw new JudgeApiError(
        409,
        `stale lease: submission ${row.submission_id} judging ${lease.judging} attempt ${lease.attempt} is not held by ${lease.worker}` +
          ` (the task is ${row.state}, judging ${row.judging}, attempt ${row.attempts})`,
      );
    }
  };

  /** Appends the judging's final result and marks the task done, in the caller's transaction. */
  const finish = async (tx: DatabaseTransactionConnection, row: TaskRow, data: Judged, doneBy: string | null, lastError?: string) => {
    const event: NewEvent = {
      type: SubmissionJudged.type,
      eventId: judgedEventId(row.submission_id, row.judging),
      scope: row.scope,
      data,
      meta: doneBy ? { worker: doneBy } : { actor: 'judge-queue' },
    };
    await store.appendInTransaction(tx, streamOf(row.submission_id), [event], {
      withinTransaction: async (inner) => {
        await inner.query(sql.unsafe`
          UPDATE judge_tasks SET state = 'done', lease_owner = ${doneBy}, lease_until = NULL,
            last_error = ${lastError ?? row.last_error}, updated_at = now()
          WHERE submission_id = ${row.submission_id}`);
      },
    });
  };

  /** A judgeError ending decided by the server (no worker result). */
  const judgeErrorData = (row: TaskRow, result: string, errmsg: string, judgedBy: string | null): Judged => ({
    submissionId: row.submission_id,
    judging: row.judging,
    status: 'judgeError',
    result,
    score: 0,
    timeUsed: 0,
    memUsed: 0,
    errmsg: clipText(errmsg, JUDGING_LIMITS.errmsgLength),
    subtaskResults: [],
    judgedBy,
    // The contract counts leases from 1; a task ended before any lease reports 1.
    attempts: Math.max(1, row.attempts),
  });

  const gaveUp = (row: TaskRow, lastError: string) =>
    `Judging gave up after ${row.attempts} attempt${row.attempts === 1 ? '' : 's'} (at most ${maxAttempts}). Last error: ${lastError}`;

  const expiredError = (row: TaskRow) =>
    `attempt ${row.attempts} by ${row.lease_owner ?? '?'}: the lease expired at ${row.lease_until ?? '?'} without a result`;

  const sweep = async (limit = 100): Promise<number> => {
    const live = await problems(pool);
    const join = live ? sql.fragment`LEFT JOIN ${live.table} p ON p.problem_id = t.problem_id` : sql.fragment``;
    // Two index-backed parts (judge_tasks keeps every finished row: never scan those). While an older code
    // version's slot is live (no stream_version yet) "no test data" is not believed.
    const noTestdata = live?.versioned
      ? sql.fragment`OR ((p.testdata_hash IS NULL OR p.score IS NULL) AND ${nothingUnfolded})`
      : sql.fragment``;
    const candidates = (await pool.anyFirst(sql.unsafe`
      SELECT submission_id FROM (
        (SELECT t.submission_id, t.requested_txid, t.requested_gpos FROM judge_tasks t
         WHERE t.state = 'leased' AND t.lease_until < now() AND t.attempts >= ${maxAttempts})
        UNION ALL
        (SELECT t.submission_id, t.requested_txid, t.requested_gpos FROM judge_tasks t ${join}
         WHERE t.state = 'queued' AND (t.attempts >= ${maxAttempts} ${noTestdata}))
      ) due
      ORDER BY requested_txid, requested_gpos
      LIMIT ${limit}`)) as readonly number[];
    let ended = 0;
    for (const submissionId of candidates) {
      try {
        const done = await pool.transaction(async (tx) => {
          // Re-checked under the row lock; another process may be settling or claiming it right now.
          const row = (await tx.maybeOne(sql.unsafe`
            SELECT t.submission_id, t.judging, t.state, t.scope, t.lease_owner, t.lease_until, t.attempts, t.last_error,
              ${live?.versioned ? sql.fragment`p.testdata_hash, p.score, ${nothingUnfolded} AS folded` : sql.fragment`NULL AS testdata_hash, NULL AS score, false AS folded`},
              (t.state = 'leased' AND t.lease_until < now()) AS expired
            FROM judge_tasks t ${join}
            WHERE t.submission_id = ${submissionId} AND t.state <> 'done'
            FOR UPDATE OF t SKIP LOCKED`)) as (TaskRow & { testdata_hash: string | null; score: number | null; folded: boolean; expired: boolean }) | null;
          if (!row) return false;
          if ((row.expired || row.state === 'queued') && row.attempts >= maxAttempts) {
            const lastError = row.expired ? expiredError(row) : (row.last_error ?? 'unknown');
            await finish(tx, row, judgeErrorData(row, 'Judge Error', gaveUp(row, lastError), null), null, lastError);
            logger?.warn({ submissionId, judging: row.judging, attempts: row.attempts }, 'judging gave up: attempts used up');
            return true;
          }
          // Test data may have been uploaded since the candidate query.
          if (row.state === 'queued' && row.folded && (row.testdata_hash === null || row.score === null)) {
            const [result, errmsg] =
              row.testdata_hash === null
                ? ['No Testcase', 'This problem has no test data yet. Please tell an admin.']
                : ['Problem Error', 'This problem has no judging configuration (score and limits). Please tell an admin.'];
            await finish(tx, row, judgeErrorData(row, result, errmsg, null), null);
            logger?.warn({ submissionId, judging: row.judging, result }, 'submission cannot be judged');
            return true;
          }
          return false;
        });
        if (done) ended += 1;
      } catch (error) {
        logger?.error({ submissionId, err: error instanceof Error ? error.message : String(error) }, 'ending a judge task failed');
      }
    }
    return ended;
  };

  const claimOnce = async (input: ClaimInput): Promise<JudgeTask[]> => {
    await sweep(20).catch((error: unknown) => logger?.error({ err: String(error) }, 'judge task sweep failed'));
    return pool.transaction(async (tx) => {
      const live = await problems(tx);
      if (!live) return [];
      // Fair turns: a user's k-th claimable task (counting the tasks of theirs being judged now) goes after
      // every other user's (k-1)-th, so one user's burst cannot hold every judge; log order breaks ties.
      // Rows from before tasks carried their user count as users of their own.
      const rows = (await tx.any(sql.unsafe`
        WITH claimable AS (
          SELECT t.submission_id, COALESCE(t.user_id, -t.submission_id) AS owner, t.requested_txid, t.requested_gpos
          FROM judge_tasks t JOIN ${live.table} p ON p.problem_id = t.problem_id
          WHERE (t.state = 'queued' OR (t.state = 'leased' AND t.lease_until < now()))
            AND t.attempts < ${maxAttempts}
            AND t.language = ANY(${sql.array([...input.languages], 'text')})
            AND p.testdata_hash IS NOT NULL AND p.score IS NOT NULL ${foldedAsAsked(live)}
        ), judging_now AS (
          SELECT user_id AS owner, count(*) AS running FROM judge_tasks
          WHERE state = 'leased' AND lease_until >= now() AND user_id IS NOT NULL
          GROUP BY user_id
        ), turns AS (
          SELECT c.submission_id, c.requested_txid, c.requested_gpos,
            COALESCE(j.running, 0) + row_number() OVER (PARTITION BY c.owner ORDER BY c.requested_txid, c.requested_gpos) AS turn
          FROM claimable c LEFT JOIN judging_now j ON j.owner = c.owner
        ), picked AS (
          SELECT t.submission_id, p.score, p.time_limit, p.memory_limit, p.testcase, p.testdata_hash,
            CASE WHEN t.state = 'leased' THEN t.lease_until ELSE t.updated_at END AS claimable_since
          FROM turns f JOIN judge_tasks t ON t.submission_id = f.submission_id JOIN ${live.table} p ON p.problem_id = t.problem_id
          -- Re-checked on the row itself: another claim may have taken it since the snapshot above, or a
          -- rejudge asked for test data this snapshot's problem row does not have yet.
          WHERE (t.state = 'queued' OR (t.state = 'leased' AND t.lease_until < now())) AND t.attempts < ${maxAttempts}
            ${foldedAsAsked(live)}
          ORDER BY f.turn, f.requested_txid, f.requested_gpos
          LIMIT ${input.capacity}
          FOR UPDATE OF t SKIP LOCKED
        )
        UPDATE judge_tasks t
        SET state = 'leased', attempts = t.attempts + 1, lease_owner = ${input.worker}, lease_until = now() + ${leaseInterval},
            last_error = CASE WHEN t.state = 'leased'
              THEN 'attempt ' || t.attempts || ' by ' || t.lease_owner || ': the lease expired at ' || t.lease_until || ' without a result'
              ELSE t.last_error END,
            updated_at = now()
        FROM picked
        WHERE t.submission_id = picked.submission_id
        RETURNING t.submission_id, t.judging, t.attempts, t.lease_until, t.language, t.source_code, t.file_name, t.contest,
          t.problem_id, picked.score, picked.time_limit, picked.memory_limit, picked.testcase, picked.testdata_hash,
          t.requested_txid, t.requested_gpos,
          extract(epoch FROM now() - picked.claimable_since)::float8 AS waited_seconds`)) as ReadonlyArray<{
        submission_id: number;
        judging: number;
        attempts: number;
        lease_until: string;
        language: Language;
        source_code: string;
        file_name: string | null;
        contest: boolean;
        problem_id: number;
        score: number;
        time_limit: number;
        memory_limit: number;
        testcase: string | null;
        testdata_hash: string;
        requested_txid: bigint;
        requested_gpos: bigint;
        waited_seconds: number;
      }>;
      for (const row of rows) options.onClaimed?.(Math.max(0, row.waited_seconds));
      return [...rows]
        .sort((a, b) => (a.requested_txid !== b.requested_txid ? (a.requested_txid < b.requested_txid ? -1 : 1) : a.requested_gpos < b.requested_gpos ? -1 : 1))
        .map((row) => ({
          submissionId: row.submission_id,
          judging: row.judging,
          attempt: row.attempts,
          leaseUntil: row.lease_until,
          language: row.language,
          sourceCode: row.source_code,
          fileName: row.file_name,
          contest: row.contest,
          problem: {
            id: row.problem_id,
            score: row.score,
            timeLimit: row.time_limit,
            memoryLimit: row.memory_limit,
            case: row.testcase ?? '0',
            testdataHash: row.testdata_hash,
          },
        }));
    });
  };

  return {
    leaseMs,
    maxAttempts,

    async claim(input, signal) {
      const deadline = Date.now() + input.waitMs;
      for (;;) {
        const seen = generation;
        const tasks = await claimOnce(input);
        const left = deadline - Date.now();
        if (tasks.length > 0 || left <= 0 || closed || signal?.aborted) return tasks;
        if (generation !== seen) continue;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, Math.min(left, CLAIM_POLL_MS));
          waiters.add(done);
          signal?.addEventListener('abort', done);
        });
      }
    },

    async heartbeat(submissionId, lease) {
      return pool.transaction(async (tx) => {
        const row = await lockTask(tx, submissionId);
        requireLease(row, lease);
        const leaseUntil = (await tx.oneFirst(sql.unsafe`
          UPDATE judge_tasks SET lease_until = now() + ${leaseInterval}, updated_at = now()
          WHERE submission_id = ${submissionId} RETURNING lease_until`)) as string;
        return { leaseUntil };
      });
    },

    async reportTestcases(submissionId, lease, results) {
      const numbers = new Set<number>();
      for (const { testNumber } of results) {
        if (numbers.has(testNumber)) throw new JudgeApiError(400, `test ${testNumber} appears twice in one report`);
        numbers.add(testNumber);
      }
      await asBadRequest(() => pool.transaction(async (tx) => {
        const row = await lockTask(tx, submissionId);
        requireLease(row, lease);
        // Serialised by the row lock: no other report of this submission is between this read and the append.
        const ids = results.map((r) => testcaseEventId(submissionId, row.judging, r.testNumber));
        const present = new Set(
          (await tx.anyFirst(sql.unsafe`SELECT event_id FROM event_log WHERE event_id = ANY(${sql.array(ids, 'uuid')})`)) as readonly string[],
        );
        const fresh: NewEvent[] = results
          .map((r, i) => ({ r, id: ids[i]! }))
          .filter(({ id }) => !present.has(id))
          .map(({ r, id }) => ({
            type: TestcaseJudged.type,
            eventId: id,
            scope: row.scope,
            data: { submissionId, judging: row.judging, testNumber: r.testNumber, outcome: r.outcome },
            meta: { worker: lease.worker, attempt: lease.attempt },
          }));
        if (fresh.length > 0) await store.appendInTransaction(tx, streamOf(submissionId), fresh);
      }));
    },

    async complete(submissionId, lease, result) {
      if (result.result.length > RESULT_MAX_LENGTH) throw new JudgeApiError(400, `result: at most ${RESULT_MAX_LENGTH} characters`);
      await asBadRequest(() => pool.transaction(async (tx) => {
        const row = await lockTask(tx, submissionId);
        // A retried complete whose first try committed: already done by this very lease.
        if (row.state === 'done' && row.lease_owner === lease.worker && row.judging === lease.judging && row.attempts === lease.attempt) return;
        requireLease(row, lease);
        await finish(
          tx,
          row,
          {
            submissionId,
            judging: row.judging,
            status: result.status,
            result: result.result,
            score: result.score,
            timeUsed: result.timeUsed,
            memUsed: result.memUsed,
            errmsg: result.errmsg === null ? null : clipText(result.errmsg, JUDGING_LIMITS.errmsgLength),
            subtaskResults: result.subtaskResults,
            judgedBy: lease.worker,
            attempts: row.attempts,
          },
          lease.worker,
        );
      }));
    },

    async fail(submissionId, lease, message) {
      const notify = await pool.transaction(async (tx) => {
        const row = await lockTask(tx, submissionId);
        requireLease(row, lease);
        const lastError = clipText(`attempt ${row.attempts} by ${lease.worker}: ${message}`, 8_000);
        if (row.attempts >= maxAttempts) {
          await finish(tx, row, judgeErrorData(row, 'Judge Error', gaveUp(row, lastError), lease.worker), null, lastError);
          logger?.warn({ submissionId, judging: row.judging, attempts: row.attempts }, 'judging gave up: attempts used up');
          return false;
        }
        await tx.query(sql.unsafe`
          UPDATE judge_tasks SET state = 'queued', lease_owner = NULL, lease_until = NULL, last_error = ${lastError}, updated_at = now()
          WHERE submission_id = ${submissionId}`);
        await tx.query(sql.unsafe`SELECT pg_notify(${JUDGE_TASKS_CHANNEL}, '')`);
        return true;
      });
      logger?.warn({ submissionId, judging: lease.judging, attempt: lease.attempt, worker: lease.worker, requeued: notify }, 'judge attempt failed');
    },

    sweep,

    startSweeper(intervalMs) {
      let running: Promise<unknown> | undefined;
      const timer = setInterval(() => {
        running ??= sweep()
          .catch((error: unknown) => logger?.error({ err: String(error) }, 'judge task sweep failed'))
          .finally(() => (running = undefined));
      }, intervalMs);
      timer.unref();
      return {
        async stop() {
          clearInterval(timer);
          await running;
        },
      };
    },

    close() {
      closed = true;
      for (const off of offs) off();
      wakeAll();
    },
  };
}
