/**
 * The test-data zip, validated at upload so the admin sees every problem now, not at judging time
 * (DOMAIN.md "Validate the zip on upload"). The rules are the judge's (judge/src/problem/package.ts and
 * judge/src/testdata/unzip.ts, which the API may not import; keep them in step): only plain files at the
 * zip's root are test data; no absolute, `..`, backslash or symlink entries; tests 1..N with an `.in` each
 * and an `.sol` each for the standard checker; a valid subtask.json; bounded entry count and unpacked size
 * (zip bombs). A zip whose files all sit in one top folder (what "compress folder" makes) is accepted and
 * re-packed with that folder removed, since the judge reads only the root (likewise "./1.in" names).
 *
 * Every root file is inflated once (off the event loop) and checked against its recorded size and CRC-32:
 * a forged entry would otherwise unpack to other bytes than the ones the admin zipped.
 */
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { unzip, unzipSync, zip, type AsyncZippable, type Unzipped, type UnzipFileInfo } from 'fflate';
import { JUDGING_LIMITS } from '@otog/schemas/common/judging';
import { parseSubtaskConfig } from '@otog/schemas/common/subtask-config';
import { entryMismatch, readCentralDirectory } from '@otog/schemas/common/zip-directory';

export interface TestdataLimits {
  readonly maxEntries: number;
  readonly maxTotalBytes: number;
  /** Tests 1..N: problem.case is at most five digits (ProblemTestdataUploaded). */
  readonly maxTests: number;
}

export const DEFAULT_TESTDATA_LIMITS: TestdataLimits = { maxEntries: 10_000, maxTotalBytes: 512 * 1024 * 1024, maxTests: JUDGING_LIMITS.maxTests };

export type TestdataCheck =
  | {
      readonly ok: true;
      /** The zip to store: the upload itself, or re-packed without its top folder. */
      readonly zip: Uint8Array;
      /** N: tests 1..N (problem.case). */
      readonly testCount: number;
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly problems: readonly string[] };

const CHECKER_FILES = ['interactive_script.py', 'check.cpp', 'thaco.cpp', 'partial.cpp'];
/** The submission is compiled as main.<ext> beside the package's libraries. */
const RESERVED_NAMES = ['main.c', 'main.cpp', 'main.py'];
const SUBTASK_FILE = 'subtask.json';
const SUBTASK_FILE_MAX_BYTES = 1024 * 1024;
const TEST_FILE = /^([1-9]\d*)\.(in|sol)$/;

function listFiles(files: readonly string[], limit = 10): string {
  return files.length <= limit ? files.join(', ') : `${files.slice(0, limit).join(', ')} and ${files.length - limit} more`;
}

/** Why an entry name is refused (outside the problem folder or ambiguous), or undefined. */
function unsafeName(name: string): string | undefined {
  if (name === '') return 'an empty name';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'control characters in the name';
  if (name.includes('\\')) return 'a backslash (Windows path separator)';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').includes('..')) return 'a ".." path segment';
  return undefined;
}

const unzipAsync = promisify(unzip) as (data: Uint8Array, options: { filter: (file: UnzipFileInfo) => boolean }) => Promise<Unzipped>;
const zipAsync = promisify(zip) as (data: AsyncZippable, options: { level: 6 }) => Promise<Uint8Array>;

/**
 * Checks a test-data zip. `declaredCase` is the admin's `case` field: when it is given it must equal the
 * zip's test count.
 */
export async function checkTestdataZip(
  data: Uint8Array,
  declaredCase: string | null,
  limits: TestdataLimits = DEFAULT_TESTDATA_LIMITS,
): Promise<TestdataCheck> {
  const problems: string[] = [];
  const warnings: string[] = [];

  // 1. The entry list (nothing inflated): names, flags, sizes.
  const infos: UnzipFileInfo[] = [];
  try {
    unzipSync(data, {
      filter(file) {
        infos.push(file);
        if (infos.length > limits.maxEntries) throw new RangeError(`the zip has more than ${limits.maxEntries} entries`);
        return false;
      },
    });
  } catch (error) {
    return { ok: false, problems: [error instanceof RangeError ? error.message : `not a valid zip file (${(error as Error).message})`] };
  }
  const central = readCentralDirectory(data);
  const flags = central?.length === infos.length ? central : undefined;

  const files: UnzipFileInfo[] = [];
  let total = 0;
  infos.forEach((info, index) => {
    const reason = unsafeName(info.name);
    if (reason) {
      problems.push(`${JSON.stringify(info.name)} is refused: ${reason}; files must be at the zip's root`);
      return;
    }
    if (flags?.[index]?.symlink) {
      problems.push(`"${info.name}" is a symbolic link; put the file itself in the zip`);
      return;
    }
    if (info.name.endsWith('/') || info.name.startsWith('__MACOSX/')) return;
    if (flags?.[index]?.encrypted) problems.push(`"${info.name}" is encrypted; zip the files without a password`);
    else if (info.compression !== 0 && info.compression !== 8) problems.push(`"${info.name}" uses an unsupported compression method (${info.compression}); use deflate`);
    total += info.originalSize;
    files.push(info);
  });
  if (total > limits.maxTotalBytes) problems.push(`the zip unpacks to ${total} bytes; the limit is ${limits.maxTotalBytes}`);

  // 2. Root files, or the files of a single top folder.
  const segmentsOf = (name: string) => name.split('/').filter((segment) => segment !== '' && segment !== '.');
  const folders = new Set(files.map((file) => segmentsOf(file.name)).filter((segments) => segments.length > 1).map((segments) => segments[0]));
  const hasRootFiles = files.some((file) => segmentsOf(file.name).length === 1);
  const top = !hasRootFiles && folders.size === 1 ? [...folders][0] : undefined;
  const rootName = new Map<string, UnzipFileInfo>();
  const nested: string[] = [];
  for (const file of files) {
    const whole = segmentsOf(file.name);
    const segments = top !== undefined && whole[0] === top ? whole.slice(1) : whole;
    if (segments.length !== 1) {
      nested.push(file.name);
      continue;
    }
    const name = segments[0] as string;
    if (Buffer.byteLength(name) > 255) problems.push(`"${file.name}" has a name longer than 255 bytes`);
    else if (rootName.has(name)) problems.push(`"${name}" appears more than once in the zip`);
    else rootName.set(name, file);
  }
  if (nested.length > 0) {
    problems.push(`${nested.length} file(s) are inside a folder, but the judge reads only the zip's root: ${listFiles(nested, 3)}`);
  }
  if (top !== undefined) warnings.push(`the files were in the folder "${top}/"; it was removed`);

  // 3. Libraries, checkers, tests.
  const names = new Set(rootName.keys());
  const reserved = RESERVED_NAMES.filter((name) => names.has(name));
  if (reserved.length > 0) problems.push(`${listFiles(reserved)}: the submission itself is compiled under this name; rename the library file`);
  const checker = CHECKER_FILES.find((name) => names.has(name));
  let testCount = 0;
  for (const name of names) {
    const match = TEST_FILE.exec(name);
    if (match?.[2] === 'in') testCount = Math.max(testCount, Number(match[1]));
  }
  if (testCount === 0) {
    problems.push("the zip has no test files (1.in, 1.sol, 2.in, ... at the zip's root)");
  } else if (testCount > limits.maxTests) {
    problems.push(`tests are numbered up to ${testCount}; at most ${limits.maxTests} tests are supported`);
  } else {
    const missingInputs: string[] = [];
    const missingSolutions: string[] = [];
    for (let number = 1; number <= testCount; number += 1) {
      if (!names.has(`${number}.in`)) missingInputs.push(`${number}.in`);
      if (!names.has(`${number}.sol`)) missingSolutions.push(`${number}.sol`);
    }
    if (missingInputs.length > 0) problems.push(`input missing: ${listFiles(missingInputs)} (the tests go up to ${testCount}.in)`);
    if (missingSolutions.length > 0) {
      const message = `solution missing: ${listFiles(missingSolutions)} (the tests go up to ${testCount}.in)`;
      // Only the standard checker reads every .sol; a custom checker may not need them.
      if (checker === undefined) problems.push(message);
      else warnings.push(`${message}; ${checker} receives a path that does not exist`);
    }
    const extraSolutions = [...names].filter((name) => TEST_FILE.exec(name)?.[2] === 'sol' && parseInt(name) > testCount);
    if (extraSolutions.length > 0) warnings.push(`solutions without an input are unused: ${listFiles(extraSolutions)}`);
  }

  // 4. The admin's case must agree with the zip.
  const declared = declaredCase?.trim() ?? '';
  if (declared !== '' && testCount > 0 && declared !== String(testCount)) {
    problems.push(`case is "${declared}" but the zip has ${testCount} tests (1.in ... ${testCount}.in); leave case empty or set it to ${testCount}`);
  }

  // 5. subtask.json (only its own bytes are inflated).
  const subtaskEntry = rootName.get(SUBTASK_FILE);
  if (subtaskEntry && testCount > 0 && testCount <= limits.maxTests) {
    if (subtaskEntry.originalSize > SUBTASK_FILE_MAX_BYTES) {
      problems.push(`subtask.json is ${subtaskEntry.originalSize} bytes; at most ${SUBTASK_FILE_MAX_BYTES} are read`);
    } else {
      try {
        const inflated = unzipSync(data, { filter: (file) => file.name === subtaskEntry.name });
        const text = new TextDecoder().decode(inflated[subtaskEntry.name] ?? new Uint8Array());
        const config = parseSubtaskConfig(text, testCount);
        if (!config.ok) problems.push(...config.problems);
        else warnings.push(...config.warnings);
      } catch (error) {
        problems.push(`cannot read subtask.json: ${(error as Error).message}`);
      }
    }
  }

  if (problems.length > 0) return { ok: false, problems };

  // 6. Every root file unpacks to exactly what its entry recorded (off the event loop: fflate's async API uses workers).
  const wanted = new Set([...rootName.values()].map((file) => file.name));
  let inflated: Unzipped;
  try {
    inflated = await unzipAsync(data, { filter: (file) => wanted.has(file.name) });
  } catch (error) {
    return { ok: false, problems: [`cannot unpack the zip (${(error as Error).message})`] };
  }
  const recordedCrc = new Map(infos.map((info, index) => [info.name, flags?.[index]?.crc32]));
  for (const file of rootName.values()) {
    const mismatch = entryMismatch(file.name, inflated[file.name] ?? new Uint8Array(), file.originalSize, recordedCrc.get(file.name), crc32);
    if (mismatch) problems.push(mismatch);
  }
  if (problems.length > 0) return { ok: false, problems };

  // The judge extracts entries named exactly `<file>`; "./1.in" or "pkg/1.in" must be renamed.
  const renamed = [...rootName].some(([name, file]) => file.name !== name);
  if (!renamed) return { ok: true, zip: data, testCount, warnings };

  // 7. Re-pack the files under their root names.
  const flat: AsyncZippable = {};
  for (const [name, file] of rootName) flat[name] = inflated[file.name] ?? new Uint8Array();
  return { ok: true, zip: await zipAsync(flat, { level: 6 }), testCount, warnings };
}
