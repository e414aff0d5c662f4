/**
 * A simulated judge host for the national-contest simulation: the real worker's protocol (claim with a
 * long poll, complete with a lease) through the real API, with no sandbox. Each task is answered after a
 * short random delay with a verdict the source names: `SIM_ACCEPT` (full score), `SIM_PARTIAL:<percent>`,
 * anything else a wrong answer. What it exercises is the control plane: queue, leases, the log, projections.
 * Environment as the real worker's (judge/src/config.ts); stops on SIGTERM or when stdin closes.
 */
import { readWorkerConfig } from '@otog/judge/config';
import { createJudgeApiClient, type LeaseRef } from '@otog/judge/worker/api-client';
import { startJudgeOps } from '@otog/judge/worker/ops';
import type { JudgeTask } from '@otog/schemas/api/judge-internal';
import type { SubmissionResult } from '@otog/schemas/common/judging';

const config = readWorkerConfig(process.env);
const client = createJudgeApiClient({ baseUrl: config.apiUrl, token: config.token });
const ops = config.ops ? await startJudgeOps({ ...config.ops, worker: config.worker }) : undefined;
const stopping = new AbortController();
const stop = () => stopping.abort();
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
if (config.stopWithStdin) process.stdin.once('close', stop).resume();

/** What the source asks for, as the real judge would grade it. */
function simulatedResult(task: JudgeTask, judgingMs: number): SubmissionResult {
  const tests = Math.max(1, Number(task.problem.case) || 1);
  const partial = /SIM_PARTIAL:(\d{1,3})/.exec(task.sourceCode);
  const percent = task.sourceCode.includes('SIM_ACCEPT') ? 100 : partial ? Math.min(100, Number(partial[1])) : 0;
  const passed = Math.round((tests * percent) / 100);
  const result = 'P'.repeat(passed) + '-'.repeat(tests - passed);
  const score = Math.round((task.problem.score * passed) / tests);
  return {
    status: passed === tests ? 'accept' : 'reject',
    result,
    score,
    timeUsed: Math.min(judgingMs, task.problem.timeLimit),
    memUsed: 1024,
    errmsg: null,
    subtaskResults: [{ subtaskIndex: 1, score: passed, fullScore: tests, verdicts: [] }],
  };
}

const running = new Set<Promise<void>>();
const judge = async (task: JudgeTask) => {
  const lease: LeaseRef = { worker: config.worker, judging: task.judging, attempt: task.attempt };
  const started = Date.now();
  const judgingMs = 20 + Math.floor(Math.random() * 180);
  await new Promise((resolve) => setTimeout(resolve, judgingMs));
  const result = simulatedResult(task, judgingMs);
  try {
    await client.complete(task.submissionId, lease, result);
    ops?.taskEnded({ status: result.status, seconds: (Date.now() - started) / 1_000 });
  } catch (error) {
    // The lease runs out and the task is claimed again: nothing is lost, as with a real worker.
    process.stderr.write(`sim-judge: completing ${task.submissionId} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    ops?.taskEnded({ status: 'gaveBack', seconds: (Date.now() - started) / 1_000 });
  }
};

ops?.attach({ slots: config.slots, get active() { return running.size; } });
while (!stopping.signal.aborted) {
  const capacity = config.slots - running.size;
  if (capacity === 0) {
    await Promise.race(running);
    continue;
  }
  let tasks: JudgeTask[] = [];
  try {
    tasks = await client.claim({ worker: config.worker, languages: ['c', 'cpp', 'python'], capacity, waitMs: 2_000 }, stopping.signal);
  } catch (error) {
    if (stopping.signal.aborted) break;
    process.stderr.write(`sim-judge: claim failed: ${error instanceof Error ? error.message : String(error)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  for (const task of tasks) {
    const promise: Promise<void> = judge(task).finally(() => running.delete(promise));
    running.add(promise);
  }
}
ops?.markDraining();
await Promise.allSettled([...running]);
await ops?.close();
process.exit(0);
