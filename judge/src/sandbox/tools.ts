import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sandboxPrograms } from './requirements.ts';

const run = promisify(execFile);

/** infra/judge: the C sources of the sandbox's helpers. */
export const toolSourceDir = fileURLToPath(new URL('../../../infra/judge/', import.meta.url));
/** Default build directory (git-ignored). */
export const defaultBuildDir = fileURLToPath(new URL('../../../build/judge/', import.meta.url));

export interface SandboxTools {
  /** The seccomp filter as raw BPF for `bwrap --seccomp FD`. */
  readonly seccompBpf: string;
  /** A static `int main(void){return 0;}` for calibration and the overhead benchmark. */
  readonly emptyProgram: string;
  /** infra/judge/runner.c, static: joins the run's cgroups, sets the limits and the uid, starts bwrap, reaps. */
  readonly runner: string;
}

/**
 * Builds infra/judge/seccomp-gen.c (libseccomp), infra/judge/empty.c and infra/judge/runner.c with gcc into
 * `buildDir` and generates the BPF (only the project's own sources; never anything from a submission). Outputs are named by a hash of the sources, so a rebuild happens only when they
 * change, and concurrent judges (or test files) never see a half-written file (write, then rename).
 */
export async function buildSandboxTools(buildDir = defaultBuildDir): Promise<SandboxTools> {
  const generatorSource = join(toolSourceDir, 'seccomp-gen.c');
  const emptySource = join(toolSourceDir, 'empty.c');
  const runnerSource = join(toolSourceDir, 'runner.c');
  const hash = createHash('sha256')
    .update(readFileSync(generatorSource))
    .update(readFileSync(emptySource))
    .update(readFileSync(runnerSource))
    .digest('hex')
    .slice(0, 12);
  const seccompBpf = join(buildDir, `seccomp-${hash}.bpf`);
  const emptyProgram = join(buildDir, `empty-${hash}`);
  const runner = join(buildDir, `runner-${hash}`);
  if (existsSync(seccompBpf) && existsSync(emptyProgram) && existsSync(runner)) return { seccompBpf, emptyProgram, runner };

  mkdirSync(buildDir, { recursive: true });
  const temporary = (path: string) => `${path}.${process.pid}.tmp`;
  const generator = temporary(join(buildDir, `seccomp-gen-${hash}`));
  try {
    await gcc(['-O2', '-Wall', '-o', generator, generatorSource, '-lseccomp'], 'the seccomp filter generator (needs libseccomp-dev)');
    await run(generator, [temporary(seccompBpf)]);
    await gcc(['-O2', '-static', '-o', temporary(emptyProgram), emptySource], 'the calibration program (needs libc6-dev)');
    await gcc(['-O2', '-Wall', '-static', '-o', temporary(runner), runnerSource], 'the sandbox runner (needs libc6-dev)');
    renameSync(temporary(seccompBpf), seccompBpf);
    renameSync(temporary(emptyProgram), emptyProgram);
    // Last: its presence marks a complete build.
    renameSync(temporary(runner), runner);
  } finally {
    for (const path of [generator, temporary(seccompBpf), temporary(emptyProgram), temporary(runner)]) rmSync(path, { force: true });
  }
  return { seccompBpf, emptyProgram, runner };
}

async function gcc(args: string[], what: string): Promise<void> {
  try {
    await run(sandboxPrograms.gcc, args, { timeout: 120_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`cannot build ${what}: ${stderr.trim() || (error as Error).message}`, { cause: error });
  }
}
