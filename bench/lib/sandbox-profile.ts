/**
 * Where a sandboxed run's time goes: the judge's wrapper chain (bwrapCommand of
 * judge/src/sandbox/bwrap-driver.ts: runner (infra/judge/runner.c) → bwrap → program) built up one layer
 * at a time, then ablations of single bwrap options, each spawning the static empty program. The variants are
 * interleaved (one run of each per round) so a change of load hits them all alike; medians per variant.
 * The command lines are the judge's own (bwrapCommand), edited only where a row says so.
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { bwrapCommand, runnerArgs, runnerRequest, wrapperProcesses } from '@otog/judge/sandbox/bwrap-driver';
import { backendFor, detectCgroups, type RunCgroup } from '@otog/judge/sandbox/cgroups/index';
import { sandboxPrograms } from '@otog/judge/sandbox/requirements';
import { createSandbox, type RunLimits } from '@otog/judge/sandbox/index';
import { buildSandboxTools } from '@otog/judge/sandbox/tools';
import { closeOnCleanup, removeSandboxLeftovers } from './judge-support.ts';
import { benchStopping, onCleanup } from './services.ts';
import { now, percentile } from './stats.ts';

export interface ProfileRow {
  readonly step: string;
  readonly what: string;
  /**
   * 'chain': one more layer of what slot.run does; 'component': one part alone, compared with `reference`;
   * 'ablation': the full chain (no cgroup) with one change.
   */
  readonly kind: 'chain' | 'component' | 'ablation';
  /** The row this one is compared with (components and ablations). */
  readonly reference?: string;
  readonly medianMs: number;
  readonly p10Ms: number;
  readonly p90Ms: number;
  readonly samples: number;
  readonly failed?: string;
}

export interface SandboxProfile {
  readonly rows: readonly ProfileRow[];
  /** Creating one run's cgroups (mkdir in each hierarchy, limits written), in process. */
  readonly cgroupCreateMs: { readonly medianMs: number; readonly p90Ms: number };
  readonly rounds: number;
}

const limits: RunLimits = { cpuMs: 1000, wallMs: 10_000, memoryKiB: 64 * 1024, processes: 1, outputBytes: 1024 * 1024 };

interface Variant {
  readonly step: string;
  readonly what: string;
  readonly kind: ProfileRow['kind'];
  readonly reference?: string;
  /**
   * 'pause': 50 ms of nothing first, so no cgroup migration of this process tree happened just before
   * (writing cgroup.procs is slow when none did: see the component rows); 'repeat': run twice, time the
   * second (right after a migration).
   */
  readonly before?: 'pause' | 'repeat';
  readonly run: () => Promise<number>;
}

const PAUSE_MS = 50;

const FULL_CHAIN = 'full chain, no cgroup';
const SLOT_RUN = 'slot.run (the judge)';

/**
 * Spawns and waits; the wall time from spawn() to the exit event. `fds`: seccomp filter at 3, a status pipe
 * at 4. `input` goes to the program's stdin (the runner's run).
 */
async function timeSpawn(command: string, args: readonly string[], seccompBpf: string | undefined, input?: Buffer): Promise<number> {
  const seccomp = seccompBpf ? openSync(seccompBpf, 'r') : undefined;
  try {
    const started = now();
    await new Promise<void>((resolve, reject) => {
      const stdin = input === undefined ? 'ignore' : 'pipe';
      const child = spawn(command, args, {
        stdio: seccomp === undefined ? [stdin, 'ignore', 'pipe'] : [stdin, 'ignore', 'pipe', seccomp, 'pipe'],
        env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      });
      child.stdin?.on('error', () => undefined).end(input);
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      (child.stdio[4] as Readable | null)?.resume();
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        code === 0 ? resolve() : reject(new Error(`${command} ended with ${signal ?? `exit ${code}`}: ${stderr.trim().slice(0, 300)}`)),
      );
    });
    return now() - started;
  } finally {
    if (seccomp !== undefined) closeSync(seccomp);
  }
}

function without(args: readonly string[], option: string, values: number): string[] {
  const index = args.indexOf(option);
  if (index < 0) throw new Error(`${option} is not in the judge's bwrap command`);
  return [...args.slice(0, index), ...args.slice(index + 1 + values)];
}

function replaced(args: readonly string[], option: string, by: readonly string[]): string[] {
  const index = args.indexOf(option);
  if (index < 0) throw new Error(`${option} is not in the judge's bwrap command`);
  return [...args.slice(0, index), ...by, ...args.slice(index + 1)];
}

export async function profileSandboxRun(options: {
  readonly rounds: number;
  readonly workDir: string;
  readonly chainUid: number;
  readonly slotUid: number;
  readonly cgroupParent: string;
}): Promise<SandboxProfile> {
  const tools = await buildSandboxTools();
  // The box of the runs without the judge's slot: root-owned 0755 directory with the program (0755).
  const box = join(options.workDir, 'box');
  mkdirSync(box, { mode: 0o755 });
  chmodSync(box, 0o755);
  copyFileSync(tools.emptyProgram, join(box, 'empty'));
  chmodSync(join(box, 'empty'), 0o755);

  // The judge's run for the runner (what slot.run sends it) for this box; the runner's errors go to runnerErr.
  const chain = bwrapCommand({ uid: options.chainUid, boxDir: box, limits, request: { argv: ['./empty'], limits } });
  const runnerErr = join(options.workDir, 'runner.err');
  const bwrapAt = chain.indexOf(sandboxPrograms.bwrap);
  const bwrapArgs = chain.slice(bwrapAt + 1);

  // The cgroup backend as the judge uses it, under a parent of its own.
  const backend = backendFor(detectCgroups(), `${options.cgroupParent}-raw`);
  await backend.setup();
  const removals: Array<Promise<void>> = [];
  const teardownBackend = onCleanup('profile cgroups', async () => {
    try {
      await Promise.allSettled(removals);
      await backend.teardown();
    } finally {
      await removeSandboxLeftovers(undefined, `${options.cgroupParent}-raw`);
    }
  });
  const createMs: number[] = [];
  let cgroups = 0;

  const rootDir = join(options.workDir, 'sandbox');
  const sandbox = await createSandbox({ mode: 'bwrap', rootDir, firstUid: options.slotUid, cgroupParent: options.cgroupParent, calibrationRuns: 5 });
  const closeSandbox = closeOnCleanup('profile sandbox', sandbox, rootDir, options.cgroupParent);
  const slot = await sandbox.acquire();
  await slot.resetBox();
  await slot.addFile('empty', { path: tools.emptyProgram }, { executable: true });

  const empty = join(box, 'empty');
  /** The runner, given `procsFiles` to join and `words` as its run. */
  const runRunner = async (procsFiles: readonly string[], words: readonly string[], seccomp = true) => {
    const request = runnerRequest({ stdin: '/dev/null', stdout: '/dev/null', stderr: runnerErr }, words);
    try {
      return await timeSpawn(tools.runner, runnerArgs(procsFiles), seccomp ? tools.seccompBpf : undefined, request);
    } catch (error) {
      throw new Error(`${(error as Error).message} ${readFileSync(runnerErr, 'utf8').trim().slice(0, 300)}`, { cause: error });
    }
  };
  const runner = (words: readonly string[]) => runRunner([], words);

  /** Creates fresh run cgroups as the judge does, runs `use`, removes them in the background; the time includes the creation. */
  const inFreshCgroup = async (prefix: string, use: (cgroup: RunCgroup) => Promise<unknown>): Promise<number> => {
    const started = now();
    const cgroup = backend.create(`${prefix}${cgroups++}`, { memoryBytes: 96 * 1024 * 1024, pids: limits.processes + wrapperProcesses });
    if (prefix === 'p') createMs.push(now() - started);
    try {
      await use(cgroup);
    } finally {
      removals.push(cgroup.remove());
    }
    return now() - started;
  };
  const slotRun = async () => {
    const started = now();
    const result = await slot.run({ argv: ['./empty'], limits });
    if (result.status !== 'ok') throw new Error(`slot.run: ${result.status} ${result.detail ?? ''}`);
    return now() - started;
  };
  /** The runner's own part of a command line (cgroups, uid, rlimits), then `--` and the empty program instead of bwrap. */
  const runnerOnly = (args: readonly string[]) => [...args.slice(0, args.indexOf(sandboxPrograms.bwrap)), empty];
  const joinOnly = () => inFreshCgroup('j', (cgroup) => runRunner(cgroup.procsFiles, runnerOnly(chain), false));
  const ablation = (step: string, what: string, args: readonly string[]): Variant => ({ step, what, kind: 'ablation', reference: FULL_CHAIN, run: () => runner(args) });

  const variants: Variant[] = [
    { step: 'direct spawn', what: 'Node spawns the static empty program (the baseline)', kind: 'chain', run: () => timeSpawn(empty, [], undefined) },
    {
      step: '+ runner',
      what: 'runner → program: the judge\'s uid and rlimits, no cgroup, no bwrap (the runner forks, the child execs, the runner reaps)',
      kind: 'chain',
      run: () => runRunner([], runnerOnly(chain), false),
    },
    {
      step: 'bwrap alone, minimal',
      what: '`bwrap --ro-bind / / program` as root (the floor of starting bwrap)',
      kind: 'chain',
      run: () => timeSpawn(sandboxPrograms.bwrap, ['--ro-bind', '/', '/', empty], undefined),
    },
    {
      step: 'bwrap alone, judge\'s options',
      what: 'bwrap with the judge\'s arguments as root, no runner',
      kind: 'chain',
      run: () => timeSpawn(sandboxPrograms.bwrap, bwrapArgs, tools.seccompBpf),
    },
    {
      step: FULL_CHAIN,
      what: 'runner → bwrap → program: the judge\'s command line without the cgroup join',
      kind: 'chain',
      run: () => runner(chain),
    },
    {
      step: '+ cgroup',
      what: `the run's cgroups created (3 v1 hierarchies or 1 v2), joined by the runner, counters read, removed in the background; after a ${PAUSE_MS} ms pause`,
      kind: 'chain',
      before: 'pause',
      run: () =>
        inFreshCgroup('p', async (cgroup) => {
          await runRunner(cgroup.procsFiles, chain);
          cgroup.stats();
        }),
    },
    {
      step: SLOT_RUN,
      what: `the sandbox driver: + stdio files, status pipe, CPU poller, drain, counters, verdict; after a ${PAUSE_MS} ms pause`,
      kind: 'chain',
      before: 'pause',
      run: slotRun,
    },
    {
      step: 'slot.run, right after another',
      what: 'the same, timing the second of two back-to-back runs (as consecutive tests run)',
      kind: 'component',
      reference: SLOT_RUN,
      before: 'repeat',
      run: slotRun,
    },
    {
      step: 'runner joining the run cgroups',
      what: `fresh run cgroups; the runner writes itself into each \`cgroup.procs\`, then runs the program (no bwrap); after a ${PAUSE_MS} ms pause`,
      kind: 'component',
      reference: '+ runner',
      before: 'pause',
      run: joinOnly,
    },
    {
      step: 'runner joining the run cgroups, right after another',
      what: 'the same, timing the second of two back-to-back runs',
      kind: 'component',
      reference: '+ runner',
      before: 'repeat',
      run: joinOnly,
    },
    ablation(
      '− network namespace',
      'full chain without `--unshare-net` (`--unshare-all` replaced by ipc, pid, uts, cgroup-try)',
      replaced(chain, '--unshare-all', ['--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try']),
    ),
    ablation('− --disable-userns', 'full chain without the nested user namespace that locks user namespaces', without(chain, '--disable-userns', 0)),
    ablation('+ --as-pid-1', 'full chain, the program is pid 1 (no bwrap init/reaper process)', replaced(chain, '--new-session', ['--new-session', '--as-pid-1'])),
    ablation('− seccomp', 'full chain without `--seccomp`', without(chain, '--seccomp', 1)),
    ablation('− /proc and /dev', 'full chain without `--proc /proc` and `--dev /dev`', without(without(chain, '--proc', 1), '--dev', 1)),
  ];

  const samples = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
  const failures = new Map<Variant, string>();
  try {
    // One warm-up round (page cache, first exec of each binary); then interleaved rounds.
    for (let round = -1; round < options.rounds; round++) {
      if (benchStopping()) throw new Error('interrupted');
      for (const variant of variants) {
        if (failures.has(variant)) continue;
        try {
          if (variant.before === 'pause') await sleep(PAUSE_MS);
          if (variant.before === 'repeat') await variant.run();
          const ms = await variant.run();
          if (round >= 0) samples.get(variant)!.push(ms);
        } catch (error) {
          failures.set(variant, (error as Error).message);
        }
      }
    }
  } finally {
    sandbox.release(slot);
    await closeSandbox();
    await teardownBackend();
  }

  const rows = variants.map((variant): ProfileRow => {
    const sorted = [...samples.get(variant)!].sort((a, b) => a - b);
    const failed = failures.get(variant);
    return {
      step: variant.step,
      what: variant.what,
      kind: variant.kind,
      ...(variant.reference === undefined ? {} : { reference: variant.reference }),
      medianMs: percentile(sorted, 50),
      p10Ms: percentile(sorted, 10),
      p90Ms: percentile(sorted, 90),
      samples: sorted.length,
      ...(failed === undefined ? {} : { failed }),
    };
  });
  const sortedCreate = createMs.slice(1).sort((a, b) => a - b);
  return { rows, cgroupCreateMs: { medianMs: percentile(sortedCreate, 50), p90Ms: percentile(sortedCreate, 90) }, rounds: options.rounds };
}
