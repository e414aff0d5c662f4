/**
 * A real API for the worker suites: the judging harness (test database, platform runtime with the
 * judge-task reactor and the judge_problems projection, local object store, Fastify app with the internal
 * judge routes) listening on a loopback port, plus helpers to seed problems from folders (events + the zip
 * in the object store), append submissions and wait for their SubmissionJudged event.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { zipSync } from 'fflate';
import type { StoredEvent } from '@otog/platform/eventstore/event-store';
import { startHarness, type Harness } from '../judging/harness.ts';
import { repoRoot } from '../judge-pipeline/support.ts';

export interface ApiUnderTest {
  readonly harness: Harness;
  readonly url: string;
  /** Appends ProblemJudgingConfigured + ProblemTestdataUploaded and stores the zip; returns the hash. */
  seedProblem(problemId: number, testdata: Uint8Array, options: { timeLimit: number; memoryLimit: number; score?: number; testCount: number }): Promise<string>;
  submit(submissionId: number, options: { problemId: number; language: 'c' | 'cpp' | 'python'; sourceCode: string; contestId?: number | null; fileName?: string }): Promise<void>;
  /** Waits for the submission's SubmissionJudged event. */
  judged(submissionId: number, timeoutMs?: number): Promise<StoredEvent>;
  stop(): Promise<void>;
}

/** The zip of a problem folder's root files. */
export function zipFolder(dir: string): Uint8Array {
  return zipSync(Object.fromEntries(readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => [entry.name, readFileSync(join(dir, entry.name))])));
}

export function countTests(dir: string): number {
  return readdirSync(dir).filter((name) => /^\d+\.in$/.test(name)).length;
}

export async function startApi(options: { leaseMs?: number; maxAttempts?: number } = {}): Promise<ApiUnderTest> {
  const harness = await startHarness(options);
  await harness.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = harness.app.server.address() as AddressInfo;

  const api: ApiUnderTest = {
    harness,
    url: `http://127.0.0.1:${port}`,
    async seedProblem(problemId, testdata, seed) {
      const { hash } = await harness.problem(problemId, {
        testdata,
        cases: seed.testCount,
        timeLimit: seed.timeLimit,
        memoryLimit: seed.memoryLimit,
        ...(seed.score === undefined ? {} : { score: seed.score }),
      });
      return hash!;
    },
    async submit(submissionId, submission) {
      await harness.submit(submissionId, { ...submission, fileName: submission.fileName ?? null });
    },
    async judged(submissionId, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [event] = await harness.events(submissionId, 'SubmissionJudged');
        if (event) return event;
        if (Date.now() > deadline) throw new Error(`submission ${submissionId} was not judged within ${timeoutMs} ms (task: ${JSON.stringify(await harness.task(submissionId))})`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop: () => harness.stop(),
  };
  return api;
}

/** A worker process (`node judge/src/main.ts`) with its own sandbox root, uid and cgroup parent. */
export function spawnWorkerProcess(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [join(repoRoot, 'judge/src/main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/**
 * What a SIGKILLed worker leaves: its box tmpfs mounts and its (v1 or v2) cgroups. Removed here, best
 * effort, so the host stays clean.
 */
export function cleanUpKilledWorker(sandboxRoot: string, cgroupParent: string): void {
  if (existsSync(sandboxRoot)) {
    for (const slot of readdirSync(sandboxRoot)) {
      const boxFs = join(sandboxRoot, slot, 'boxfs');
      try {
        execFileSync('/usr/bin/umount', ['--lazy', boxFs], { stdio: 'ignore' });
      } catch {
        // Not mounted.
      }
    }
  }
  for (const hierarchy of ['memory', 'pids', 'cpuacct', 'cpu,cpuacct', 'unified', '']) {
    const parent = join('/sys/fs/cgroup', hierarchy, cgroupParent);
    if (!existsSync(parent)) continue;
    for (const entry of readdirSync(parent, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      try {
        rmdirSync(join(parent, entry.name));
      } catch {
        // Busy or gone.
      }
    }
    try {
      rmdirSync(parent);
    } catch {
      // Busy or gone.
    }
  }
}
