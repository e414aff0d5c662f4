import type { RunLimits } from '../sandbox/index.ts';

/**
 * One supported language, as data (docs/DOMAIN.md "Languages"). Adding a language is adding a row.
 * Argument templates: `{source}` is the submission's file name in the box, `{sources}` expands to it
 * followed by the library files that are compilation units. Programs are named by absolute Debian paths
 * (never PATH: root's `python3` is a pyenv shim) or relative to the box, which is the working directory.
 */
export interface LanguageDefinition {
  readonly key: string;
  readonly name: string;
  /** Extensions a submission of this language may have (the first is canonical). */
  readonly extensions: readonly string[];
  /** The submission's file name inside the box. */
  readonly sourceName: string;
  /** Library files (copied beside the source) with these extensions are also passed to the compiler. */
  readonly compileUnitExtensions: readonly string[];
  readonly compile: readonly string[];
  /**
   * What the compile step leaves for running: a file it produced (`{ file: 'main' }`), or the sources
   * themselves (`'sources'`: the submission and the library files with `runtimeExtensions`).
   */
  readonly artifact: { readonly file: string } | 'sources';
  /** Library files needed at run time when the artifact is the sources (e.g. imported .py modules). */
  readonly runtimeExtensions: readonly string[];
  readonly run: readonly string[];
  /** CPU limit = timeLimit × factor; reported time = CPU time ÷ factor. */
  readonly timeFactor: number;
  /** Processes and threads a run may have (pids limit). */
  readonly runProcesses: number;
  readonly env?: Readonly<Record<string, string>>;
  readonly compileLimits: RunLimits;
}

/**
 * Compile limits [ours: OTOG compiles outside any sandbox]: 30 s wall as DOMAIN.md says, 20 s CPU, 1 GiB
 * (the cgroup also counts the page cache of headers: ≈45 MiB for <bits/stdc++.h>), 64 processes (the
 * driver, cc1, as, collect2, ld), a 64 MiB file size limit and a 256 MiB /tmp for the compiler's
 * temporary files.
 */
export const defaultCompileLimits: RunLimits = {
  cpuMs: 20_000,
  wallMs: 30_000,
  memoryKiB: 1024 * 1024,
  processes: 64,
  outputBytes: 64 * 1024 * 1024,
  tmpBytes: 256 * 1024 * 1024,
};

export const languages: readonly LanguageDefinition[] = [
  {
    key: 'c',
    name: 'C',
    extensions: ['.c'],
    sourceName: 'main.c',
    compileUnitExtensions: ['.c'],
    // "static where possible": Debian's libc6-dev ships libc.a; a static binary also starts faster.
    compile: ['/usr/bin/gcc', '-O2', '-std=c17', '-fomit-frame-pointer', '-static', '-o', 'main', '{sources}', '-lm'],
    artifact: { file: 'main' },
    runtimeExtensions: [],
    run: ['./main'],
    timeFactor: 1,
    runProcesses: 1,
    compileLimits: defaultCompileLimits,
  },
  {
    key: 'cpp',
    name: 'C++',
    extensions: ['.cpp', '.cc'],
    sourceName: 'main.cpp',
    compileUnitExtensions: ['.cpp', '.cc'],
    compile: ['/usr/bin/g++', '-O2', '-std=c++17', '-fomit-frame-pointer', '-o', 'main', '{sources}'],
    artifact: { file: 'main' },
    runtimeExtensions: [],
    run: ['./main'],
    timeFactor: 1,
    runProcesses: 1,
    compileLimits: defaultCompileLimits,
  },
  {
    key: 'python',
    name: 'Python 3',
    extensions: ['.py'],
    sourceName: 'main.py',
    compileUnitExtensions: [],
    compile: ['/usr/bin/python3', '-m', 'py_compile', '{source}'],
    artifact: 'sources',
    runtimeExtensions: ['.py'],
    run: ['/usr/bin/python3', 'main.py'],
    timeFactor: 5,
    runProcesses: 1,
    env: { PYTHONDONTWRITEBYTECODE: '1' },
    compileLimits: defaultCompileLimits,
  },
];

export function findLanguage(key: string): LanguageDefinition | undefined {
  return languages.find((language) => language.key === key);
}

export function getLanguage(key: string): LanguageDefinition {
  const language = findLanguage(key);
  if (!language) throw new Error(`unknown language ${JSON.stringify(key)} (known: ${languages.map((entry) => entry.key).join(', ')})`);
  return language;
}

/** Limits of a checker run (DOMAIN.md: a checker that hangs past 60 s is a Problem Error). */
export const checkerLimits: RunLimits = {
  cpuMs: 60_000,
  wallMs: 60_000,
  memoryKiB: 1024 * 1024,
  processes: 16,
  outputBytes: 64 * 1024 * 1024,
};

/** Default largest stdout of a submission's run. */
export const defaultRunOutputBytes = 64 * 1024 * 1024;

/**
 * A submission's limits for one test (DOMAIN.md): CPU = timeLimit × factor, wall = 2 × CPU + 1 s,
 * memory = memoryLimit MB (as MiB), the language's process count.
 */
export function problemRunLimits(
  language: LanguageDefinition,
  problem: { readonly timeLimitMs: number; readonly memoryLimitMB: number },
  outputBytes = defaultRunOutputBytes,
): RunLimits {
  const cpuMs = problem.timeLimitMs * language.timeFactor;
  return {
    cpuMs,
    wallMs: 2 * cpuMs + 1000,
    memoryKiB: problem.memoryLimitMB * 1024,
    processes: language.runProcesses,
    outputBytes,
  };
}
