/**
 * Running the four checker kinds of DOMAIN.md "Test data" for one test. The standard checker runs in
 * process (it only compares two files); `check.cpp`, `thaco.cpp`/`partial.cpp` and
 * `interactive_script.py` run IN the sandbox **[ours]** with their own limits (60 s by default), with the
 * problem folder bound read-only at /problem and the contestant's output (and source) copied into the
 * box. The arguments, files and working directory are OTOG's (research/otog.md 5.6):
 *
 * - interactive_script.py: `python3 <problem>/interactive_script.py <output> <problem>/ <n>`, one char on stdout.
 * - check.cpp: `binCheck <problem>/<n>.sol <problem>/<n>.in <source>` in a working directory holding
 *   `output.txt`; it writes one char to `./grader_result.txt`.
 * - thaco.cpp / partial.cpp: `binCheck <problem>/<n>.in <problem>/<n>.sol <output>`, one float on stdout.
 *
 * Anything a checker does wrong (no compile, crash, hang, limits, invalid output) is a `problem-error`;
 * a sandbox failure is an `internal-error` (Judge Error), never a verdict.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compile, getLanguage, run, type CompiledProgram, type ProgramRunResult } from '../languages/index.ts';
import type { CheckerDescription } from '../problem/package.ts';
import type { RunLimits, SandboxMode, SandboxSlot } from '../sandbox/index.ts';
import { parsePartialCheckerOutput, parseSingleCharCheckerOutput, type CheckerVerdict } from './checker-output.ts';
import { standardCheck } from './standard-checker.ts';

/** Where the problem folder is bound inside the sandbox (read-only). */
export const PROBLEM_MOUNT = '/problem';
/** The box as the program sees it (its working directory). */
export const BOX_MOUNT = '/box';
/** The contestant's output inside a checker's box (check.cpp reads `./output.txt`). */
export const CHECKER_OUTPUT_NAME = 'output.txt';
/** What check.cpp writes in its working directory. */
export const GRADER_RESULT_FILE = 'grader_result.txt';
/** Largest checker stdout / grader_result.txt that is parsed; a checker printing more is invalid. */
const maxCheckerOutputBytes = 64 * 1024;

export type CheckResult =
  | { readonly kind: 'verdict'; readonly status: 'ACCEPTED' | 'REJECTED' | 'PARTIAL'; readonly percent: number }
  | { readonly kind: 'problem-error'; readonly reason: string }
  | { readonly kind: 'internal-error'; readonly reason: string };

export interface CheckInput {
  /** Global test number n (the checkers receive it or read n.in / n.sol). */
  readonly testNumber: number;
  /** Host path of n.sol (the standard checker reads it; custom checkers get its /problem path). */
  readonly solutionFile: string;
  /** Host path of the contestant's output (judge-only; copied into the checker's box). */
  readonly outputFile: string;
  /** Host path of the submission's source and its name in the box (check.cpp's third argument). */
  readonly sourceFile: string;
  readonly sourceName: string;
}

export interface PreparedChecker {
  readonly description: CheckerDescription;
  check(slot: SandboxSlot, input: CheckInput): Promise<CheckResult>;
}

export interface CheckerOptions {
  readonly checker: CheckerDescription;
  /** The unpacked package. For custom checkers in bwrap mode the slot uids must be able to read it. */
  readonly problemDir: string;
  readonly mode: SandboxMode;
  /** Limits of one checker run (default: the languages table's checkerLimits, 60 s). */
  readonly limits: RunLimits;
  /**
   * Where compiled checkers are kept by the sha256 of their source (shared by slots and submissions);
   * without it a checker is compiled for every submission.
   */
  readonly cacheDir?: string;
}

export type CheckerFailure = { readonly ok: false; readonly kind: 'problem-error' | 'internal-error'; readonly reason: string };
export type PrepareResult = { readonly ok: true; readonly checker: PreparedChecker } | CheckerFailure;

const fromVerdict = (verdict: CheckerVerdict, what: string): CheckResult =>
  verdict.valid ? { kind: 'verdict', status: verdict.status, percent: verdict.percent } : { kind: 'problem-error', reason: `${what}: ${verdict.reason}` };

function head(path: string, maxBytes = 1000): string {
  try {
    const text = readFileSync(path).subarray(0, maxBytes).toString('utf8').trim();
    return text;
  } catch {
    return '';
  }
}

/** Why a checker run did not end normally, for the admin; undefined when it exited 0. */
function runFailure(name: string, result: ProgramRunResult, limits: RunLimits): CheckResult | undefined {
  if (result.status === 'ok') return undefined;
  if (result.status === 'sandbox-error') return { kind: 'internal-error', reason: `the sandbox failed while running the checker ${name}: ${result.detail ?? 'no detail'}` };
  const stderr = head(result.stderrFile);
  const tail = stderr === '' ? '' : `; its stderr: ${stderr}`;
  switch (result.status) {
    case 'tle':
      return { kind: 'problem-error', reason: `the checker ${name} exceeded its CPU time limit of ${limits.cpuMs / 1000} s${tail}` };
    case 'wall-tle':
      return { kind: 'problem-error', reason: `the checker ${name} did not finish within ${limits.wallMs / 1000} s${tail}` };
    case 'mle':
      return { kind: 'problem-error', reason: `the checker ${name} exceeded its memory limit of ${Math.round(limits.memoryKiB / 1024)} MiB${tail}` };
    case 'ole':
      return { kind: 'problem-error', reason: `the checker ${name} exceeded its output limit${tail}` };
    case 're':
      return {
        kind: 'problem-error',
        reason: `the checker ${name} ${result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`}${tail}`,
      };
  }
}

function readCheckerStdout(name: string, result: ProgramRunResult): string | CheckResult {
  if (result.stdoutBytes > maxCheckerOutputBytes) return { kind: 'problem-error', reason: `the checker ${name} printed ${result.stdoutBytes} bytes; it must print one verdict` };
  try {
    return readFileSync(result.stdoutFile, 'utf8');
  } catch (error) {
    return { kind: 'internal-error', reason: `cannot read the checker's output: ${(error as Error).message}` };
  }
}

const standardChecker: PreparedChecker = {
  description: { kind: 'standard', file: undefined },
  async check(_slot, input) {
    return checkStandard(input.solutionFile, input.outputFile);
  },
};

/** The standard checker: in process, byte for byte after OTOG's per-line right trim. */
export function checkStandard(solutionFile: string, outputFile: string): CheckResult {
  let expected: Buffer;
  try {
    expected = readFileSync(solutionFile);
  } catch (error) {
    return { kind: 'problem-error', reason: `cannot read the solution file: ${(error as Error).message}` };
  }
  let actual: Buffer;
  try {
    actual = readFileSync(outputFile);
  } catch (error) {
    return { kind: 'internal-error', reason: `cannot read the program's output: ${(error as Error).message}` };
  }
  return standardCheck(expected, actual) ? { kind: 'verdict', status: 'ACCEPTED', percent: 1 } : { kind: 'verdict', status: 'REJECTED', percent: 0 };
}

/** Compiles a C++ checker in the slot, or takes it from the cache (keyed by the sha256 of its source). */
async function compiledChecker(file: string, options: CheckerOptions, slot: SandboxSlot): Promise<{ ok: true; program: CompiledProgram } | CheckerFailure> {
  const cpp = getLanguage('cpp');
  const sourcePath = join(options.problemDir, file);
  let source: Buffer;
  try {
    source = readFileSync(sourcePath);
  } catch (error) {
    return { ok: false, kind: 'problem-error', reason: `cannot read the checker ${file}: ${(error as Error).message}` };
  }
  const artifact = typeof cpp.artifact === 'string' ? undefined : cpp.artifact.file;
  if (!artifact) throw new Error('the cpp language must produce a binary');
  // The compile command is part of the key: a changed table never reuses an old binary.
  const key = createHash('sha256').update(JSON.stringify(cpp.compile)).update('\0').update(source).digest('hex');
  const cached = options.cacheDir ? join(options.cacheDir, key) : undefined;
  if (cached && existsSync(join(cached, artifact))) {
    return { ok: true, program: { language: cpp, dir: cached, files: [artifact], argv: cpp.run } };
  }

  const outDir = join(slot.ioDir, 'checker');
  const compiled = await compile(cpp, sourcePath, [], slot, { outDir });
  if (!compiled.ok) {
    if (compiled.reason === 'sandbox-error') return { ok: false, kind: 'internal-error', reason: `the sandbox failed while compiling the checker ${file}: ${compiled.message}` };
    return { ok: false, kind: 'problem-error', reason: `the checker ${file} does not compile:\n${compiled.message}` };
  }
  if (!cached || !options.cacheDir) return { ok: true, program: compiled.program };
  try {
    mkdirSync(options.cacheDir, { recursive: true, mode: 0o700 });
    const staging = join(options.cacheDir, `.tmp-${key}-${randomBytes(6).toString('hex')}`);
    mkdirSync(staging, { mode: 0o700 });
    copyFileSync(join(outDir, artifact), join(staging, artifact));
    try {
      renameSync(staging, cached);
    } catch {
      // Another slot or process cached the same checker first: keep theirs.
      rmSync(staging, { recursive: true, force: true });
    }
    if (existsSync(join(cached, artifact))) return { ok: true, program: { language: cpp, dir: cached, files: [artifact], argv: cpp.run } };
  } catch {
    // The cache is an optimisation only.
  }
  return { ok: true, program: compiled.program };
}

/**
 * Makes the problem's checker ready for the submission being judged: nothing for the standard checker
 * and interactive_script.py, a (cached) compilation for check.cpp and thaco.cpp/partial.cpp.
 */
export async function prepareChecker(options: CheckerOptions, slot: SandboxSlot): Promise<PrepareResult> {
  const { checker, mode, limits } = options;
  if (checker.kind === 'standard' || checker.file === undefined) return { ok: true, checker: standardChecker };
  const name = checker.file;
  // The unsafe development mode has no mounts: the checker sees the host paths.
  const problemMount = mode === 'bwrap' ? PROBLEM_MOUNT : options.problemDir;
  const binds = mode === 'bwrap' ? [{ source: options.problemDir, target: PROBLEM_MOUNT }] : [];
  const inProblem = (file: string) => `${problemMount}/${file}`;

  if (checker.kind === 'interactiveScript') {
    const python = getLanguage('python');
    const program: CompiledProgram = { language: python, dir: options.problemDir, files: [], argv: ['/usr/bin/python3', inProblem(name)] };
    return {
      ok: true,
      checker: {
        description: checker,
        async check(runSlot, input) {
          const box = mode === 'bwrap' ? BOX_MOUNT : runSlot.boxDir;
          const result = await run(program, runSlot, {
            limits,
            args: [`${box}/${CHECKER_OUTPUT_NAME}`, `${problemMount}/`, String(input.testNumber)],
            extraFiles: [{ name: CHECKER_OUTPUT_NAME, path: input.outputFile }],
            readOnlyBinds: binds,
            stdoutFile: join(runSlot.ioDir, 'checker.out'),
            stderrFile: join(runSlot.ioDir, 'checker.err'),
          });
          const failure = runFailure(name, result, limits);
          if (failure) return failure;
          const stdout = readCheckerStdout(name, result);
          return typeof stdout === 'string' ? fromVerdict(parseSingleCharCheckerOutput(stdout), name) : stdout;
        },
      },
    };
  }

  const compiled = await compiledChecker(name, options, slot);
  if (!compiled.ok) return compiled;
  const program = compiled.program;
  return {
    ok: true,
    checker: {
      description: checker,
      async check(runSlot, input) {
        const box = mode === 'bwrap' ? BOX_MOUNT : runSlot.boxDir;
        const n = input.testNumber;
        const common = {
          limits,
          readOnlyBinds: binds,
          stdoutFile: join(runSlot.ioDir, 'checker.out'),
          stderrFile: join(runSlot.ioDir, 'checker.err'),
        };
        if (checker.kind === 'checkCpp') {
          const result = await run(program, runSlot, {
            ...common,
            args: [inProblem(`${n}.sol`), inProblem(`${n}.in`), `${box}/${input.sourceName}`],
            extraFiles: [
              { name: CHECKER_OUTPUT_NAME, path: input.outputFile },
              { name: input.sourceName, path: input.sourceFile },
            ],
          });
          const failure = runFailure(name, result, limits);
          if (failure) return failure;
          const written = await runSlot.readFile(GRADER_RESULT_FILE, maxCheckerOutputBytes);
          if (written === null) return { kind: 'problem-error', reason: `the checker ${name} did not write ${GRADER_RESULT_FILE} (or wrote something that is not a small regular file)` };
          return fromVerdict(parseSingleCharCheckerOutput(written.toString('utf8')), `${name} (${GRADER_RESULT_FILE})`);
        }
        const result = await run(program, runSlot, {
          ...common,
          args: [inProblem(`${n}.in`), inProblem(`${n}.sol`), `${box}/${CHECKER_OUTPUT_NAME}`],
          extraFiles: [{ name: CHECKER_OUTPUT_NAME, path: input.outputFile }],
        });
        const failure = runFailure(name, result, limits);
        if (failure) return failure;
        const stdout = readCheckerStdout(name, result);
        return typeof stdout === 'string' ? fromVerdict(parsePartialCheckerOutput(stdout), name) : stdout;
      },
    },
  };
}
