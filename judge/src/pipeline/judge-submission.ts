/**
 * Judging one submission, end to end: the one code path of the worker and of `npm run judge -- local`.
 *
 *   language → package validation (special results) → compile in the sandbox (library files beside the
 *   source) → checker preparation → loop: planJudging → run the test in a fresh box → check → report
 *   → scoreSubmission.
 *
 * It never throws for anything a submission, a package or the sandbox does: every ending is a
 * SubmissionResult (DOMAIN.md). Only an abort (`signal`, e.g. the lease was lost) rejects, with the
 * signal's reason.
 */
import { copyFileSync, linkSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SubmissionResult, TestOutcome } from '@otog/schemas/common/judging';
import { prepareChecker, type PreparedChecker } from '../checkers/sandboxed-checkers.ts';
import { checkerLimits as defaultCheckerLimits, compile, defaultRunOutputBytes, findLanguage, languages, run, type CompiledProgram, type LanguageDefinition } from '../languages/index.ts';
import { validateProblemPackage, type ProblemPackage } from '../problem/package.ts';
import type { SubtaskConfig } from '@otog/schemas/common/subtask-config';
import type { RunLimits, RunResult, Sandbox, SandboxSlot } from '../sandbox/index.ts';
import { planJudging } from '../scoring/plan.ts';
import { scoreSubmission } from '../scoring/score-submission.ts';
import { SPECIAL_RESULTS, specialSubmissionResult } from '../scoring/special-results.ts';
import { sandboxReadProblem } from './problem-access.ts';

export interface SubmissionLimits {
  /** problem.timeLimit, ms (CPU; multiplied by the language's time factor). */
  readonly timeLimit: number;
  /** problem.memoryLimit, MB. */
  readonly memoryLimit: number;
  /** problem.score: the full score the result is scaled to. */
  readonly score: number;
}

export type TestcaseListener = (testNumber: number, outcome: TestOutcome) => void | Promise<void>;

export interface JudgeSubmissionInput {
  /** The unpacked test data: 1.in, 1.sol, ..., subtask.json, checker, libraries at its root. */
  readonly problemDir: string;
  /** problem.case, the number of tests N; default: the largest n with an `n.in` in the folder. */
  readonly problemCase?: string | number | null;
  /** A key of the languages table (`c`, `cpp`, `python`); anything else ends as Judge Error. */
  readonly language: string;
  readonly sourceCode: string;
  /**
   * The name the user gave the file. The languages table names the file in the box (main.cpp, ...), so
   * c, cpp and python do not use it; it is accepted for languages whose file name matters.
   */
  readonly fileName?: string | null;
  readonly limits: SubmissionLimits;
  /** Contest submissions enforce subtask `require`. */
  readonly contest: boolean;
  readonly sandbox: Sandbox;
  /**
   * Called when each executed test has its verdict, in run order, before the next test runs; never for
   * skipped tests, nor for a test whose checker or sandbox failed (the submission ends as Problem Error
   * or Judge Error instead).
   */
  readonly onTestcase?: TestcaseListener;
  /** One checker run's limits (default 60 s CPU and wall, 1 GiB). */
  readonly checkerLimits?: RunLimits;
  /** Compiled checkers are kept here by source hash (judge-only directory); default: compiled each time. */
  readonly checkerCacheDir?: string;
  /** Stops judging between steps; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * How many of a submission's runs may end at the wall-clock limit (killed while waiting: sleeping, or
 * reading input that never comes) before the rest of its tests are time limit exceeded without running:
 * 3, plus one for every 10 tests. A program that computes is stopped by its CPU limit instead and never
 * counts here, so the rule only ends what would hold a judge for N × (2 × CPU + 1 s) doing nothing.
 */
export function wallKillBudget(testCount: number): number {
  return 3 + Math.floor(testCount / 10);
}

/** The default N when problem.case is not given: the largest n with an `n.in` (no leading zeros). */
export function inferTestCount(fileNames: readonly string[]): number | undefined {
  let max: number | undefined;
  for (const name of fileNames) {
    const match = /^([1-9]\d{0,8})\.in$/.exec(name);
    if (match) max = Math.max(max ?? 0, Number(match[1]));
  }
  return max;
}

function listRootFiles(dir: string): string[] | undefined {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  } catch {
    return undefined;
  }
}

const knownLanguages = () => languages.map((language) => language.key).join(', ');

function judgeError(message: string): SubmissionResult {
  return specialSubmissionResult(SPECIAL_RESULTS.judgeError, message);
}

function problemError(message: string): SubmissionResult {
  return specialSubmissionResult(SPECIAL_RESULTS.problemError, `The problem's checker failed. Please tell an admin.\n${message}`);
}

/**
 * The largest output a test may write: the default, or more when the expected answer is big (twice its
 * size), so a correct answer never hits the limit.
 */
function outputLimit(solutionFile: string): number {
  try {
    return Math.max(defaultRunOutputBytes, 2 * statSync(solutionFile).size + 1024 * 1024);
  } catch {
    return defaultRunOutputBytes;
  }
}

/**
 * How a run of the contestant's program maps to a verdict before the checker (undefined: it ran to the
 * end; check its output).
 *
 * - tle / wall-tle → TIME_LIMIT_EXCEEDED (`T`).
 * - mle → RUNTIME_ERROR with runtimeErrorKind MEMORY_LIMIT_EXCEEDED (`X`; OTOG has no MLE verdict).
 * - ole → RUNTIME_ERROR (`X`, kind RUNTIME_ERROR): the program was killed by SIGXFSZ before it finished,
 *   so its output is incomplete and is never given to a checker; this is what isolate with --fsize
 *   reports (RE, signal 25), and it keeps `-` meaning "a checker judged a complete output wrong". The
 *   limit is 64 MiB or twice the expected answer, so a correct program never reaches it.
 * - re → RUNTIME_ERROR (`X`, kind RUNTIME_ERROR).
 * - sandbox-error → INTERNAL_ERROR: the sandbox failed, not the program; the submission is a Judge Error.
 */
export function runVerdict(result: RunResult, timeUsed: number, memUsed: number): TestOutcome | undefined {
  switch (result.status) {
    case 'ok':
      return undefined;
    case 'tle':
    case 'wall-tle':
      return { status: 'TIME_LIMIT_EXCEEDED', timeUsed, memUsed };
    case 'mle':
      return { status: 'RUNTIME_ERROR', runtimeErrorKind: 'MEMORY_LIMIT_EXCEEDED', timeUsed, memUsed };
    case 'ole':
    case 're':
      return { status: 'RUNTIME_ERROR', runtimeErrorKind: 'RUNTIME_ERROR', timeUsed, memUsed };
    case 'sandbox-error':
      return { status: 'INTERNAL_ERROR', timeUsed, memUsed, detail: `the sandbox failed while running the program: ${result.detail ?? 'no detail'}` };
  }
}

export async function judgeSubmission(input: JudgeSubmissionInput): Promise<SubmissionResult> {
  try {
    return await judge(input);
  } catch (error) {
    if (input.signal?.aborted) throw input.signal.reason;
    return judgeError(`The judge failed while grading this submission: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function judge(input: JudgeSubmissionInput): Promise<SubmissionResult> {
  const { signal } = input;
  const language = findLanguage(input.language);
  if (!language) return judgeError(`Unknown language ${JSON.stringify(input.language)}: this judge knows ${knownLanguages()}.`);

  const fileNames = listRootFiles(input.problemDir);
  if (fileNames === undefined) return specialSubmissionResult(SPECIAL_RESULTS.noTestcase, `The test data folder of this problem cannot be read. Please tell an admin.`);
  const problemCase = input.problemCase ?? inferTestCount(fileNames) ?? null;
  const report = await validateProblemPackage({
    fileNames,
    problemCase,
    readTextFile: (name) => readFile(join(input.problemDir, name), 'utf8'),
  });
  if (!report.judging.ok) return specialSubmissionResult(report.judging.result, report.judging.errmsg);
  const config = report.package.subtaskConfig;
  if (!config) return specialSubmissionResult(SPECIAL_RESULTS.subtaskError);
  signal?.throwIfAborted();

  if (report.package.checker.kind !== 'standard' && input.sandbox.mode === 'bwrap') {
    const problem = sandboxReadProblem(input.problemDir);
    if (problem) return judgeError(`The sandbox cannot read the test data for the checker: ${problem}`);
  }

  return input.sandbox.withSlot((slot) => judgeInSlot(input, language, report.package, config, slot));
}

async function judgeInSlot(
  input: JudgeSubmissionInput,
  language: LanguageDefinition,
  pkg: ProblemPackage,
  config: SubtaskConfig,
  slot: SandboxSlot,
): Promise<SubmissionResult> {
  const { signal } = input;
  const sourceFile = join(slot.ioDir, `submission-${language.sourceName}`);
  writeFileSync(sourceFile, input.sourceCode, { mode: 0o600 });

  // 1. Compile, with the package's library files beside the source.
  const compiled = await compile(
    language,
    sourceFile,
    pkg.libraries.map((name) => join(input.problemDir, name)),
    slot,
    { outDir: join(slot.ioDir, 'program') },
  );
  if (!compiled.ok) {
    if (compiled.reason === 'sandbox-error') return judgeError(`The sandbox failed while compiling: ${compiled.message}`);
    return specialSubmissionResult(SPECIAL_RESULTS.compilationError, compiled.message || 'Compilation failed.');
  }
  const program = compiled.program;
  signal?.throwIfAborted();

  // 2. The checker (compiled once per submission, or taken from the cache).
  const limits = input.checkerLimits ?? defaultCheckerLimits;
  const prepared = await prepareChecker(
    {
      checker: pkg.checker,
      problemDir: input.problemDir,
      mode: input.sandbox.mode,
      limits,
      ...(input.checkerCacheDir ? { cacheDir: input.checkerCacheDir } : {}),
    },
    slot,
  );
  if (!prepared.ok) {
    if (prepared.kind === 'internal-error') return judgeError(prepared.reason);
    return problemError(prepared.reason);
  }
  signal?.throwIfAborted();

  // 3. The tests the rules say must run, one at a time, each in a fresh box; once too many runs ended at
  // the wall-clock limit, the rest are time limit exceeded without running.
  const outcomes = new Map<number, TestOutcome>();
  const budget = { wallKillsLeft: wallKillBudget(config.testCount) };
  for (;;) {
    const plan = planJudging(config, { contest: input.contest }, outcomes);
    if (plan.next === undefined) break;
    const testNumber = plan.next;
    signal?.throwIfAborted();
    const outcome =
      budget.wallKillsLeft > 0
        ? await runTest(input, program, prepared.checker, slot, testNumber, sourceFile, budget)
        : ({ status: 'TIME_LIMIT_EXCEEDED', timeUsed: 0, memUsed: 0 } as const);
    outcomes.set(testNumber, outcome);
    // A checker or sandbox failure aborts the whole submission at once (the plan would say so too).
    // scoreSubmission needs every planned outcome, so the abort is turned into its result here.
    if (outcome.status === 'PROBLEM_ERROR') return problemError(outcome.detail ?? `test ${testNumber}`);
    if (outcome.status === 'INTERNAL_ERROR') return judgeError(`The judge failed while grading this submission: ${outcome.detail ?? `test ${testNumber}`}`);
    await input.onTestcase?.(testNumber, outcome);
  }
  signal?.throwIfAborted();
  return scoreSubmission({ config, problemScore: input.limits.score, contest: input.contest, outcomes });
}

/** The test input under the slot's folder: a hard link (free), or a copy when the folders are on different file systems. */
function boxLocalInput(inputFile: string, slot: SandboxSlot): string {
  const local = join(slot.ioDir, 'test.in');
  rmSync(local, { force: true });
  try {
    linkSync(inputFile, local);
  } catch {
    copyFileSync(inputFile, local);
  }
  return local;
}

async function runTest(
  input: JudgeSubmissionInput,
  program: CompiledProgram,
  checker: PreparedChecker,
  slot: SandboxSlot,
  testNumber: number,
  sourceFile: string,
  budget: { wallKillsLeft: number },
): Promise<TestOutcome> {
  const inputFile = join(input.problemDir, `${testNumber}.in`);
  const solutionFile = join(input.problemDir, `${testNumber}.sol`);
  const outputFile = join(slot.ioDir, 'test.out');
  // Only the test's input reaches the program, as its stdin (opened by the judge): no test file is in
  // its box and nothing of the problem folder is mounted. The judge opens a link to it in the slot's own
  // folder, so /proc/self/fd/0 names that, not where the test data lives.
  const stdinFile = boxLocalInput(inputFile, slot);
  const result = await run(program, slot, {
    stdinFile,
    stdoutFile: outputFile,
    stderrFile: join(slot.ioDir, 'test.err'),
    problem: { timeLimitMs: input.limits.timeLimit, memoryLimitMB: input.limits.memoryLimit },
    outputBytes: outputLimit(solutionFile),
  });
  rmSync(stdinFile, { force: true });
  if (result.status === 'wall-tle') budget.wallKillsLeft -= 1;
  const timeUsed = Math.max(0, Math.floor(result.timeMs));
  const memUsed = Math.max(0, Math.round(result.memKiB));
  const early = runVerdict(result, timeUsed, memUsed);
  if (early) return early;

  const checked = await checker.check(slot, { testNumber, solutionFile, outputFile, sourceFile, sourceName: program.language.sourceName });
  switch (checked.kind) {
    case 'verdict':
      return checked.status === 'PARTIAL'
        ? { status: 'PARTIAL', percent: checked.percent, timeUsed, memUsed }
        : { status: checked.status, timeUsed, memUsed };
    case 'problem-error':
      return { status: 'PROBLEM_ERROR', timeUsed, memUsed, detail: `test ${testNumber}: ${checked.reason}` };
    case 'internal-error':
      return { status: 'INTERNAL_ERROR', timeUsed, memUsed, detail: `test ${testNumber}: ${checked.reason}` };
  }
}
