/**
 * Shared parts of the judge pipeline suites: the sample problems and their expected-results table
 * (judge/samples), throwaway problem folders the sandbox uids can read, and the local command as a child
 * process.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const samplesDir = join(repoRoot, 'judge/samples');
export const cliPath = join(repoRoot, 'judge/src/cli.ts');

export interface ExpectedResult {
  readonly status: string;
  readonly result: string;
  readonly score: number;
}

export interface SampleCase {
  readonly problem: string;
  readonly solution: string;
  readonly language: 'c' | 'cpp' | 'python';
  readonly timeLimit?: number;
  readonly memoryLimit?: number;
  readonly runtimeErrorKind?: 'RUNTIME_ERROR' | 'MEMORY_LIMIT_EXCEEDED';
  readonly errmsgIncludes?: string;
  readonly expected: ExpectedResult;
  /** With --contest, when it differs from `expected`. */
  readonly contest?: ExpectedResult;
}

export function sampleCases(): SampleCase[] {
  return (JSON.parse(readFileSync(join(samplesDir, 'expected.json'), 'utf8')) as { cases: SampleCase[] }).cases;
}

export const problemDir = (problem: string) => join(samplesDir, 'problems', problem);
export const solutionFile = (entry: Pick<SampleCase, 'problem' | 'solution'>) => join(samplesDir, 'solutions', entry.problem, entry.solution);
export const expectedFor = (entry: SampleCase, contest: boolean): ExpectedResult => (contest ? (entry.contest ?? entry.expected) : entry.expected);
export const caseName = (entry: SampleCase, contest: boolean) => `${entry.problem}/${entry.solution}${contest ? ' --contest' : ''}`;

export function languageOf(file: string): 'c' | 'cpp' | 'python' {
  const extension = extname(file);
  if (extension === '.py') return 'python';
  if (extension === '.c') return 'c';
  return 'cpp';
}

/** A temporary directory (0711) the sandbox uids can traverse. */
export function sandboxTmp(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `otog-${name}-`));
  chmodSync(dir, 0o711);
  return dir;
}

/** Writes a problem folder (0755, files 0644) under `parent`. */
export function writeProblem(parent: string, name: string, files: Record<string, string>): string {
  const dir = join(parent, name);
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text, { mode: 0o644 });
  return dir;
}

/** a+b tests as a files map: `n` tests of `i i+1`. */
export function aplusbFiles(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 1; i <= n; i += 1) {
    files[`${i}.in`] = `${i} ${i + 1}\n`;
    files[`${i}.sol`] = `${2 * i + 1}\n`;
  }
  return files;
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node judge/src/cli.ts <args>` and collects its output. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function localArgs(entry: SampleCase, contest: boolean): string[] {
  return [
    'local',
    problemDir(entry.problem),
    solutionFile(entry),
    '--lang',
    entry.language,
    ...(entry.timeLimit ? ['--time-limit', String(entry.timeLimit)] : []),
    ...(entry.memoryLimit ? ['--memory-limit', String(entry.memoryLimit)] : []),
    ...(contest ? ['--contest'] : []),
  ];
}

/** Runs `work` over `items` with at most `lanes` at once; each lane gets its index. */
export async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T, lane: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_unused, lane) => {
      while (next < items.length) {
        const item = items[next++]!;
        await work(item, lane);
      }
    }),
  );
}
