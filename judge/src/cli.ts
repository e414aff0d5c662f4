/**
 * `npm run judge -- <command>`: the judge's command line for problem setters.
 *
 *   local <problem-dir|zip> <source-file> --lang c|cpp|python [--time-limit <ms>] [--memory-limit <MB>]
 *         [--score <n>] [--contest]
 *
 * Judges one source against a problem folder (or its zip) exactly as the worker does (judgeSubmission)
 * and prints ONE JSON object on stdout: status, result, score, timeUsed, memUsed, errmsg and subtasks
 * (the spec's SubmissionResult with `subtaskResults` named `subtasks`). Everything else goes to stderr.
 * Exit codes: 0 when a result was printed (whatever the verdict), 2 for bad usage, 1 when judging could
 * not run at all (the sandbox cannot start).
 *
 * Use `npm run -s judge -- local ...` (or `node judge/src/cli.ts local ...`) when piping: npm itself
 * prints a banner on stdout without -s.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { SubmissionResult } from '@otog/schemas/common/judging';
import { JudgeConfigError, loadLocalConfig, type LocalConfig } from './config.ts';
import { checkerLimits, languages } from './languages/index.ts';
import { judgeSubmission } from './pipeline/judge-submission.ts';
import { sandboxReadProblem } from './pipeline/problem-access.ts';
import { unusableTestdataResult } from './pipeline/special.ts';
import { createSandbox, type Sandbox } from './sandbox/index.ts';
import { TestdataError, unpackZip } from './testdata/unzip.ts';

const languageKeys = languages.map((language) => language.key);

export const usage = `Usage:
  npm run judge -- local <problem-dir|problem.zip> <source-file> --lang ${languageKeys.join('|')}
                   [--time-limit <ms>] [--memory-limit <MB>] [--score <n>] [--contest]

Judges <source-file> against the problem's test data (1.in, 1.sol, ..., subtask.json, checker,
library files) exactly as the worker does, and prints one JSON object on stdout.
Defaults: --time-limit 1000, --memory-limit 256, --score 100. --contest enforces subtask "require".
Environment: OTOG_SANDBOX=bwrap (default; needs root) or unsafe (development only),
OTOG_SANDBOX_FIRST_UID (default 60500), OTOG_JUDGE_CHECKER_TIME_LIMIT_MS (default 60000).`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface LocalOptions {
  readonly problem: string;
  readonly source: string;
  readonly language: string;
  readonly timeLimit: number;
  readonly memoryLimit: number;
  readonly score: number;
  readonly contest: boolean;
}

function positiveInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${flag} must be a positive whole number, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

export function parseLocalArgs(args: readonly string[]): LocalOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        lang: { type: 'string' },
        'time-limit': { type: 'string' },
        'memory-limit': { type: 'string' },
        score: { type: 'string' },
        contest: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 2) throw new UsageError(`local needs <problem-dir> and <source-file>, got ${positionals.length} argument(s)`);
  const language = values.lang;
  if (language === undefined) throw new UsageError(`--lang is required (${languageKeys.join(', ')})`);
  if (!languageKeys.includes(language)) throw new UsageError(`unknown language ${JSON.stringify(language)}: --lang must be one of ${languageKeys.join(', ')}`);
  return {
    problem: resolve(positionals[0]!),
    source: resolve(positionals[1]!),
    language,
    timeLimit: positiveInteger('--time-limit', values['time-limit'], 1000),
    memoryLimit: positiveInteger('--memory-limit', values['memory-limit'], 256),
    score: positiveInteger('--score', values.score, 100),
    contest: values.contest ?? false,
  };
}

/** The printed shape: the SubmissionResult with `subtaskResults` named `subtasks`. */
export function localOutput(result: SubmissionResult) {
  return {
    status: result.status,
    result: result.result,
    score: result.score,
    timeUsed: result.timeUsed,
    memUsed: result.memUsed,
    errmsg: result.errmsg,
    subtasks: result.subtaskResults.map((subtask) => ({
      subtaskIndex: subtask.subtaskIndex,
      score: subtask.score,
      fullScore: subtask.fullScore,
      verdicts: subtask.verdicts.map((verdict) => ({
        testcaseIndex: verdict.testcaseIndex,
        status: verdict.status,
        percent: verdict.percent,
        timeUsed: verdict.timeUsed,
        memUsed: verdict.memUsed,
        ...(verdict.runtimeErrorKind === undefined ? {} : { runtimeErrorKind: verdict.runtimeErrorKind }),
      })),
    })),
  };
}

/** Copies the root files of `from` into `to` (0755 / 0644), for a folder the sandbox uids cannot read. */
function stageProblem(from: string, to: string): void {
  mkdirSync(to, { mode: 0o755 });
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    copyFileSync(join(from, entry.name), join(to, entry.name));
    chmodSync(join(to, entry.name), 0o644);
  }
}

async function runLocal(options: LocalOptions, config: LocalConfig): Promise<SubmissionResult> {
  let sourceCode: string;
  try {
    sourceCode = readFileSync(options.source, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the source file ${options.source}: ${(error as Error).message}`);
  }
  let problemIsFile: boolean;
  try {
    problemIsFile = statSync(options.problem).isFile();
  } catch (error) {
    throw new UsageError(`cannot read the problem ${options.problem}: ${(error as Error).message}`);
  }

  const tmp = mkdtempSync(join(tmpdir(), 'otog-judge-local-'));
  // The slot uids traverse it to reach their boxes and the staged problem.
  chmodSync(tmp, 0o711);
  let sandbox: Sandbox | undefined;
  const cleanup = async () => {
    try {
      await sandbox?.close();
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void cleanup().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let problemDir = options.problem;
    if (problemIsFile) {
      problemDir = join(tmp, 'problem');
      mkdirSync(problemDir, { mode: 0o755 });
      chmodSync(problemDir, 0o755);
      try {
        unpackZip(readFileSync(options.problem), problemDir);
      } catch (error) {
        if (error instanceof TestdataError) return unusableTestdataResult(error);
        throw error;
      }
    } else if (config.sandboxMode === 'bwrap' && sandboxReadProblem(problemDir) !== undefined) {
      problemDir = join(tmp, 'problem');
      stageProblem(options.problem, problemDir);
    }

    sandbox = await createSandbox({
      mode: config.sandboxMode,
      rootDir: join(tmp, 'sandbox'),
      slots: 1,
      firstUid: config.firstUid,
      cgroupParent: `otog-judge-local-${process.pid}`,
    });
    return await judgeSubmission({
      problemDir,
      language: options.language,
      sourceCode,
      fileName: options.source,
      limits: { timeLimit: options.timeLimit, memoryLimit: options.memoryLimit, score: options.score },
      contest: options.contest,
      sandbox,
      checkerLimits: { ...checkerLimits, cpuMs: config.checkerTimeLimitMs, wallMs: config.checkerTimeLimitMs },
      checkerCacheDir: join(tmp, 'checkers'),
    });
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await cleanup();
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stderr.write(`${usage}\n`);
    return command === undefined ? 2 : 0;
  }
  try {
    if (command !== 'local') throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    const options = parseLocalArgs(rest);
    const config = loadLocalConfig();
    const result = await runLocal(options, config);
    process.stdout.write(`${JSON.stringify(localOutput(result), null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`judge: ${error.message}\n\n${usage}\n`);
      return 2;
    }
    if (error instanceof JudgeConfigError) {
      process.stderr.write(`judge: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`judge: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`judge: ${String(error)}\n`);
      process.exit(1);
    },
  );
}
