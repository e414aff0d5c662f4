/**
 * Validation of a problem package (the test-data zip) from its list of entry names (DOMAIN.md "Test
 * data"). Used twice: at upload, to show the admin every problem at once **[ours]**, and before judging,
 * to decide the special result a submission would end with. Reading is injected (only subtask.json is
 * ever read), so this stays free of zip and file-system code.
 */
import { languages } from '../languages/table.ts';
import { SPECIAL_RESULTS, type SpecialResult } from '../scoring/special-results.ts';
import { defaultSubtaskConfig, parseSubtaskConfig, type SubtaskConfig } from '@otog/schemas/common/subtask-config';

/** How outputs are checked; the first file present wins, in this order. */
export const CHECKER_FILES = [
  { file: 'interactive_script.py', kind: 'interactiveScript' },
  { file: 'check.cpp', kind: 'checkCpp' },
  { file: 'thaco.cpp', kind: 'partial' },
  { file: 'partial.cpp', kind: 'partial' },
] as const;
export type CheckerKind = (typeof CHECKER_FILES)[number]['kind'] | 'standard';

export interface CheckerDescription {
  readonly kind: CheckerKind;
  /** The checker's file at the package root; undefined for the standard checker. */
  readonly file: string | undefined;
}

export const SUBTASK_FILE = 'subtask.json';
const LIBRARY_EXTENSIONS = ['.c', '.h', '.cpp', '.py'];
const SUBMISSION_FILE_NAMES = new Set(languages.map((language) => language.sourceName));
const checkerFileNames = new Set<string>(CHECKER_FILES.map((checker) => checker.file));

export interface PackageTest {
  /** 1-based global test number. */
  readonly number: number;
  readonly input: string;
  /** Undefined when the .sol file is missing (allowed for custom checkers, see problems). */
  readonly solution: string | undefined;
}

export interface ProblemPackage {
  /** N = problem.case, or undefined when it is not a positive integer. */
  readonly testCount: number | undefined;
  /** Tests 1..N whose input exists. */
  readonly tests: readonly PackageTest[];
  readonly checker: CheckerDescription;
  /** Copied beside the source before compiling: root *.c *.h *.cpp *.py other than checkers. Sorted. */
  readonly libraries: readonly string[];
  readonly hasSubtaskJson: boolean;
  /** The effective subtask configuration (default without subtask.json); undefined when invalid. */
  readonly subtaskConfig: SubtaskConfig | undefined;
  /** Safe root-level files that are neither tests, checkers, libraries nor subtask.json (README, command.yaml...). Sorted. */
  readonly otherFiles: readonly string[];
}

export type PackageProblemCode =
  | 'unsafePath'
  | 'nestedFile'
  | 'duplicateEntry'
  | 'invalidCaseCount'
  | 'noTestcase'
  | 'inputMissing'
  | 'solutionMissing'
  | 'subtaskError'
  | 'reservedLibraryName';

export interface PackageProblem {
  readonly code: PackageProblemCode;
  readonly message: string;
  /** The entries concerned, when there are any. */
  readonly files?: readonly string[];
}

/** What judging a submission against this package ends with before any test runs, if not a verdict. */
export type PackageJudging =
  | { readonly ok: true }
  | { readonly ok: false; readonly result: SpecialResult; readonly status: 'judgeError'; readonly errmsg: string };

export interface PackageReport {
  readonly package: ProblemPackage;
  /** Everything the admin must fix; empty for a good package. */
  readonly problems: readonly PackageProblem[];
  /** Worth knowing, but the package judges as intended. */
  readonly warnings: readonly string[];
  readonly judging: PackageJudging;
}

export interface PackageInput {
  /** Entry names of the zip (directories may end in "/"), or the files of the unpacked folder. */
  readonly fileNames: readonly string[];
  /** problem.case: the number of tests N, stored as a string. */
  readonly problemCase: string | number | null | undefined;
  /** Reads a small text file at the package root (only subtask.json is read). */
  readonly readTextFile: (name: string) => string | Promise<string>;
}

/** Python's int() accepts surrounding whitespace and a plus sign; OTOG reads problem.case with it. */
export function parseTestCount(problemCase: string | number | null | undefined): number | undefined {
  if (typeof problemCase === 'number') return Number.isSafeInteger(problemCase) && problemCase > 0 ? problemCase : undefined;
  if (typeof problemCase !== 'string' || !/^\s*\+?\d+\s*$/.test(problemCase)) return undefined;
  const count = Number(problemCase.trim());
  return Number.isSafeInteger(count) && count > 0 ? count : undefined;
}

type EntryClass = { kind: 'unsafe'; reason: string } | { kind: 'directory' } | { kind: 'nested'; folder: string } | { kind: 'root'; name: string };

/** Sorts one entry name: unsafe, a directory entry, a file inside a folder, or a file at the root. */
function classifyEntry(entry: string): EntryClass {
  if (entry === '') return { kind: 'unsafe', reason: 'an empty name' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(entry)) return { kind: 'unsafe', reason: 'control characters in the name' };
  if (entry.includes('\\')) return { kind: 'unsafe', reason: 'a backslash (Windows path separator)' };
  if (entry.startsWith('/') || /^[A-Za-z]:/.test(entry)) return { kind: 'unsafe', reason: 'an absolute path' };
  const segments = entry.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return { kind: 'unsafe', reason: 'a ".." path segment' };
  if (segments.length === 0) return { kind: 'directory' };
  if (entry.endsWith('/')) return segments.length === 1 ? { kind: 'directory' } : { kind: 'nested', folder: `${segments[0]}/` };
  if (segments.length > 1) return { kind: 'nested', folder: `${segments[0]}/` };
  return { kind: 'root', name: segments[0] as string };
}

/** "1.in, 2.in, ... and 37 more" — keeps admin messages readable for big gaps. */
function listFiles(files: readonly string[], limit = 10): string {
  return files.length <= limit ? files.join(', ') : `${files.slice(0, limit).join(', ')} and ${files.length - limit} more`;
}

export async function validateProblemPackage(input: PackageInput): Promise<PackageReport> {
  const problems: PackageProblem[] = [];
  const warnings: string[] = [];

  // 1. Entry names: only safe root-level files are part of the package.
  const root = new Set<string>();
  const nestedByFolder = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const entry of input.fileNames) {
    if (seen.has(entry)) {
      problems.push({ code: 'duplicateEntry', message: `"${entry}" appears more than once in the zip`, files: [entry] });
      continue;
    }
    seen.add(entry);
    const entryClass = classifyEntry(entry);
    if (entryClass.kind === 'unsafe') {
      // JSON quoting shows control characters and backslashes unambiguously.
      problems.push({ code: 'unsafePath', message: `${JSON.stringify(entry)} is rejected: ${entryClass.reason}; files must be at the zip's root`, files: [entry] });
    } else if (entryClass.kind === 'nested') {
      nestedByFolder.set(entryClass.folder, [...(nestedByFolder.get(entryClass.folder) ?? []), entry]);
    } else if (entryClass.kind === 'root') {
      root.add(entryClass.name);
    }
  }
  for (const [folder, entries] of nestedByFolder) {
    // macOS zips carry resource forks in __MACOSX/; they are harmless and never extracted.
    if (folder === '__MACOSX/') {
      warnings.push('the __MACOSX/ folder is ignored');
      continue;
    }
    const files = entries.filter((entry) => !entry.endsWith('/'));
    if (files.length === 0) continue;
    problems.push({
      code: 'nestedFile',
      message: `${files.length} file(s) inside folder "${folder}" are ignored: the judge reads only the zip's root (${listFiles(files, 3)})`,
      files,
    });
  }

  // 2. The checker, and the libraries copied beside the source.
  const checkerEntry = CHECKER_FILES.find((checker) => root.has(checker.file));
  const checker: CheckerDescription = checkerEntry ? { kind: checkerEntry.kind, file: checkerEntry.file } : { kind: 'standard', file: undefined };
  for (const candidate of CHECKER_FILES) {
    if (checkerEntry && candidate.file !== checkerEntry.file && root.has(candidate.file)) {
      warnings.push(`${candidate.file} is ignored: ${checkerEntry.file} is the checker (first match wins)`);
    }
  }
  const libraries = [...root].filter((name) => !checkerFileNames.has(name) && LIBRARY_EXTENSIONS.some((ext) => name.endsWith(ext))).sort();
  // The submission is compiled as main.<ext> beside the libraries: a library of that name would replace it.
  const reserved = libraries.filter((name) => SUBMISSION_FILE_NAMES.has(name));
  if (reserved.length > 0) {
    problems.push({
      code: 'reservedLibraryName',
      message: `${listFiles(reserved)}: the submission itself is compiled under this name; rename the library file`,
      files: reserved,
    });
  }

  // 3. Test files 1..N.
  const testCount = parseTestCount(input.problemCase);
  const tests: PackageTest[] = [];
  const used = new Set<string>([...checkerFileNames, ...libraries, SUBTASK_FILE].filter((name) => root.has(name)));
  const testFiles = [...root].filter((name) => /^\d+\.(in|sol)$/.test(name));
  if (testCount === undefined) {
    problems.push({
      code: 'invalidCaseCount',
      message: `problem.case must be the number of test cases (a positive integer), got ${JSON.stringify(input.problemCase ?? null)}`,
    });
  } else if (!testFiles.some((name) => name.endsWith('.in'))) {
    problems.push({ code: 'noTestcase', message: 'the package has no test files (1.in, 1.sol, 2.in, ... at the zip\'s root)' });
  } else {
    const missingInputs: string[] = [];
    const missingSolutions: string[] = [];
    for (let number = 1; number <= testCount; number += 1) {
      const input = `${number}.in`;
      const solution = `${number}.sol`;
      if (!root.has(input)) missingInputs.push(input);
      if (!root.has(solution)) missingSolutions.push(solution);
      if (root.has(input)) tests.push({ number, input, solution: root.has(solution) ? solution : undefined });
      used.add(input).add(solution);
    }
    if (missingInputs.length > 0) {
      problems.push({ code: 'inputMissing', message: `input missing: ${listFiles(missingInputs)} (problem.case is ${testCount})`, files: missingInputs });
    }
    if (missingSolutions.length > 0) {
      const message = `solution missing: ${listFiles(missingSolutions)} (problem.case is ${testCount})`;
      // Only the standard checker needs every .sol; a custom checker may not read them.
      if (checker.kind === 'standard') problems.push({ code: 'solutionMissing', message, files: missingSolutions });
      else warnings.push(`${message}; ${checker.file} receives a path that does not exist`);
    }
  }
  if (testCount !== undefined) {
    const unused = testFiles.filter((name) => !used.has(name)).sort((a, b) => parseInt(a) - parseInt(b) || a.localeCompare(b));
    if (unused.length > 0) {
      warnings.push(`unused test files: ${listFiles(unused)} (problem.case is ${testCount}; tests are named 1.in, 1.sol, ... without leading zeros)`);
    }
  }

  // 4. Subtasks (only checkable once N is known).
  const hasSubtaskJson = root.has(SUBTASK_FILE);
  let subtaskConfig: SubtaskConfig | undefined;
  if (testCount !== undefined) {
    if (hasSubtaskJson) {
      let text: string | undefined;
      try {
        text = await input.readTextFile(SUBTASK_FILE);
      } catch (error) {
        problems.push({ code: 'subtaskError', message: `cannot read subtask.json: ${(error as Error).message}`, files: [SUBTASK_FILE] });
      }
      if (text !== undefined) {
        const parsed = parseSubtaskConfig(text, testCount);
        warnings.push(...parsed.warnings);
        if (parsed.ok) subtaskConfig = parsed.config;
        else problems.push(...parsed.problems.map((message) => ({ code: 'subtaskError' as const, message, files: [SUBTASK_FILE] })));
      }
    } else {
      subtaskConfig = defaultSubtaskConfig(testCount);
    }
  } else if (hasSubtaskJson) {
    warnings.push('subtask.json is not checked until problem.case is a positive integer');
  }

  const testFileSet = new Set(testFiles);
  const otherFiles = [...root].filter((name) => !used.has(name) && !testFileSet.has(name)).sort();
  return {
    package: { testCount, tests, checker, libraries, hasSubtaskJson, subtaskConfig, otherFiles },
    problems,
    warnings,
    judging: judgingOutcome(problems),
  };
}

/**
 * The special result judging ends with, in OTOG's order of checks: test count and presence, inputs,
 * solutions, then the subtask configuration. Unsafe or nested entries are upload problems only: they are
 * never extracted, so judging sees the root files alone.
 */
function judgingOutcome(problems: readonly PackageProblem[]): PackageJudging {
  const order: readonly [PackageProblemCode, SpecialResult][] = [
    ['invalidCaseCount', SPECIAL_RESULTS.noTestcase],
    ['noTestcase', SPECIAL_RESULTS.noTestcase],
    ['inputMissing', SPECIAL_RESULTS.inputMissing],
    ['solutionMissing', SPECIAL_RESULTS.solutionMissing],
    ['subtaskError', SPECIAL_RESULTS.subtaskError],
    ['reservedLibraryName', SPECIAL_RESULTS.problemError],
  ];
  for (const [code, result] of order) {
    const matching = problems.filter((problem) => problem.code === code);
    if (matching.length > 0) return { ok: false, result, status: 'judgeError', errmsg: matching.map((problem) => problem.message).join('\n') };
  }
  return { ok: true };
}
