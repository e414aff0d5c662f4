import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { ReadOnlyBind, RunLimits, RunResult, SandboxSlot } from '../sandbox/index.ts';
import { trimCompilerMessage } from './messages.ts';
import { problemRunLimits, type LanguageDefinition } from './table.ts';

/** A compiled submission (or checker): its files in a judge-only directory and how to run it. */
export interface CompiledProgram {
  readonly language: LanguageDefinition;
  /** Host directory holding `files` (outside every box). */
  readonly dir: string;
  readonly files: readonly string[];
  readonly argv: readonly string[];
}

export type CompileResult =
  | { readonly ok: true; readonly program: CompiledProgram; readonly message: string; readonly sandbox: RunResult }
  | {
      readonly ok: false;
      /** `error`: the compiler rejected it; `limit`: compile limits exceeded; `sandbox-error`: a judge error. */
      readonly reason: 'error' | 'limit' | 'sandbox-error';
      readonly message: string;
      readonly sandbox: RunResult;
    };

export interface CompileOptions {
  /** Where the program is kept (wiped first); default `<slot io dir>/program`. */
  readonly outDir?: string;
  /** Per-problem override of the compile command (same templates as the table). */
  readonly compileArgv?: readonly string[];
  readonly limits?: RunLimits;
}

/** Largest compiler output read back for the message. */
const maxMessageBytes = 1024 * 1024;
/** Largest compiled program accepted. */
const maxProgramBytes = 256 * 1024 * 1024;

function libraryNames(libraryFiles: readonly string[], sourceName: string): string[] {
  const names = libraryFiles.map((file) => basename(file));
  const seen = new Set<string>();
  for (const name of names) {
    if (name === sourceName) throw new Error(`library file ${name} has the submission's own name`);
    if (seen.has(name)) throw new Error(`two library files are named ${name}`);
    seen.add(name);
  }
  return names;
}

export function expandArgv(template: readonly string[], sourceName: string, units: readonly string[]): string[] {
  return template.flatMap((arg) => (arg === '{sources}' ? [sourceName, ...units] : [arg.replaceAll('{source}', sourceName)]));
}

function limitMessage(result: RunResult, limits: RunLimits): string {
  switch (result.status) {
    case 'tle':
      return `Compilation exceeded the CPU time limit (${limits.cpuMs / 1000} s).`;
    case 'wall-tle':
      return `Compilation exceeded the time limit (${limits.wallMs / 1000} s).`;
    case 'mle':
      return `Compilation exceeded the memory limit (${Math.round(limits.memoryKiB / 1024)} MiB).`;
    case 'ole':
      return `Compilation exceeded the output size limit (${Math.round(limits.outputBytes / 1024 / 1024)} MiB).`;
    default:
      return '';
  }
}

/**
 * Compiles a submission inside the sandbox with the language's compile limits: a fresh box with the
 * source (as the table's `sourceName`) and the library files beside it, the compile command, then the
 * artifact copied out of the box (no symlinks followed) into `outDir`.
 */
export async function compile(
  language: LanguageDefinition,
  sourceFile: string,
  libraryFiles: readonly string[],
  slot: SandboxSlot,
  options: CompileOptions = {},
): Promise<CompileResult> {
  const libraries = libraryNames(libraryFiles, language.sourceName);
  const units = libraries.filter((name) => language.compileUnitExtensions.includes(extname(name)));
  const limits = options.limits ?? language.compileLimits;
  const outDir = options.outDir ?? join(slot.ioDir, 'program');

  await slot.resetBox();
  await slot.addFile(language.sourceName, { path: sourceFile });
  for (const [index, file] of libraryFiles.entries()) await slot.addFile(libraries[index]!, { path: file });

  const stdoutFile = join(slot.ioDir, 'compile.out');
  const stderrFile = join(slot.ioDir, 'compile.err');
  const result = await slot.run({
    argv: expandArgv(options.compileArgv ?? language.compile, language.sourceName, units),
    limits,
    stdoutFile,
    stderrFile,
    ...(language.env ? { env: language.env } : {}),
  });
  const readCapped = (path: string) => {
    try {
      return readFileSync(path).subarray(0, maxMessageBytes).toString('utf8');
    } catch {
      return '';
    }
  };
  const output = [readCapped(stdoutFile), readCapped(stderrFile)].filter((text) => text.trim() !== '').join('\n');
  const message = trimCompilerMessage(output, ['/box', slot.boxDir]);

  if (result.status === 'sandbox-error') return { ok: false, reason: 'sandbox-error', message: result.detail ?? 'sandbox error', sandbox: result };
  if (result.status !== 'ok' && result.status !== 're') {
    return { ok: false, reason: 'limit', message: [message, limitMessage(result, limits)].filter(Boolean).join('\n'), sandbox: result };
  }
  if (result.status === 're') return { ok: false, reason: 'error', message: message || `The compiler failed (${result.signal ?? `exit ${result.exitCode}`}).`, sandbox: result };

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true, mode: 0o700 });
  const files =
    language.artifact === 'sources'
      ? [language.sourceName, ...libraries.filter((name) => language.runtimeExtensions.includes(extname(name)))]
      : [language.artifact.file];
  for (const file of files) {
    if (!(await slot.copyOut(file, join(outDir, file), maxProgramBytes))) {
      return { ok: false, reason: 'error', message: message || `The compiler produced no ${file}.`, sandbox: result };
    }
  }
  return { ok: true, program: { language, dir: outDir, files, argv: language.run }, message, sandbox: result };
}

export interface ProgramRunOptions {
  readonly stdinFile?: string;
  readonly stdoutFile?: string;
  readonly stderrFile?: string;
  /** The problem's limits (DOMAIN.md); or give `limits` directly (checkers). */
  readonly problem?: { readonly timeLimitMs: number; readonly memoryLimitMB: number };
  readonly limits?: RunLimits;
  readonly outputBytes?: number;
  /** Arguments after the language's run command (checkers get file names). */
  readonly args?: readonly string[];
  /** More files for the box, read-only to the program (a checker's input, output and answer). */
  readonly extraFiles?: ReadonlyArray<{ readonly name: string; readonly path: string }>;
  readonly readOnlyBinds?: readonly ReadOnlyBind[];
}

export type ProgramRunResult = RunResult & {
  /** CPU time ÷ the language's time factor (the time reported to users). */
  readonly timeMs: number;
};

/** Runs a compiled program in a fresh box: its files (read-only), the extra files, stdin from the judge. */
export async function run(program: CompiledProgram, slot: SandboxSlot, options: ProgramRunOptions): Promise<ProgramRunResult> {
  const limits = options.limits ?? (options.problem ? problemRunLimits(program.language, options.problem, options.outputBytes) : undefined);
  if (!limits) throw new Error('run needs either the problem limits or explicit limits');
  await slot.resetBox();
  for (const file of program.files) await slot.addFile(file, { path: join(program.dir, file) }, { executable: program.language.artifact !== 'sources' });
  for (const extra of options.extraFiles ?? []) await slot.addFile(extra.name, { path: extra.path });
  const result = await slot.run({
    argv: [...program.argv, ...(options.args ?? [])],
    limits,
    ...(options.stdinFile === undefined ? {} : { stdinFile: options.stdinFile }),
    ...(options.stdoutFile === undefined ? {} : { stdoutFile: options.stdoutFile }),
    ...(options.stderrFile === undefined ? {} : { stderrFile: options.stderrFile }),
    ...(options.readOnlyBinds === undefined ? {} : { readOnlyBinds: options.readOnlyBinds }),
    ...(program.language.env ? { env: program.language.env } : {}),
  });
  return { ...result, timeMs: Math.round((result.cpuMs / program.language.timeFactor) * 1000) / 1000 };
}
