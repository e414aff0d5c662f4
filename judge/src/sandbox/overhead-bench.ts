/**
 * Sandbox overhead benchmark (for `npm run bench`; also runnable alone as root:
 * `node judge/src/sandbox/overhead-bench.ts`).
 *
 * - Per run: the static empty program spawned directly vs run in the sandbox (cgroup setup, the wrapper
 *   chain, waiting, reading the counters; the cgroup removal happens in the background as in the judge),
 *   interleaved rounds, median of 200 each, and the ratio.
 * - Compile: C++ a+b with the table's g++ command inside the sandbox vs g++ directly, median wall time.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { compile, expandArgv, getLanguage } from '../languages/index.ts';
import { createSandbox } from './sandbox.ts';
import { buildSandboxTools } from './tools.ts';
import type { Calibration, RunLimits } from './types.ts';
import { median } from './verdict.ts';

const run = promisify(execFile);

export interface Distribution {
  readonly medianMs: number;
  readonly p10Ms: number;
  readonly p90Ms: number;
  readonly samples: number;
}

export interface OverheadBenchResult {
  readonly direct: Distribution;
  readonly sandbox: Distribution;
  /** sandbox median ÷ direct median */
  readonly ratio: number;
  readonly compile: { readonly insideMs: number; readonly outsideMs: number; readonly ratio: number; readonly runs: number };
  readonly calibration: Calibration;
  readonly cgroupVersion: 1 | 2 | null;
}

export interface OverheadBenchOptions {
  readonly rounds?: number;
  readonly runsPerRound?: number;
  readonly compileRuns?: number;
  readonly firstUid?: number;
  readonly buildDir?: string;
}

function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  const round = (value: number) => Math.round(value * 100) / 100;
  return { medianMs: round(median(sorted)), p10Ms: round(at(0.1)), p90Ms: round(at(0.9)), samples: sorted.length };
}

async function timeDirect(program: string): Promise<number> {
  const started = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(program, [], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const aPlusB = '#include <bits/stdc++.h>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n';
const emptyLimits: RunLimits = { cpuMs: 1000, wallMs: 10_000, memoryKiB: 64 * 1024, processes: 1, outputBytes: 1024 * 1024 };

export async function runSandboxOverheadBench(options: OverheadBenchOptions = {}): Promise<OverheadBenchResult> {
  const rounds = options.rounds ?? 10;
  const perRound = options.runsPerRound ?? 20;
  const compileRuns = options.compileRuns ?? 3;
  const tmp = mkdtempSync(join(tmpdir(), 'otog-bench-'));
  chmodSync(tmp, 0o711);
  const tools = await buildSandboxTools(options.buildDir);
  const sandbox = await createSandbox({
    mode: 'bwrap',
    rootDir: join(tmp, 'sandbox'),
    firstUid: options.firstUid ?? 61190,
    cgroupParent: `otog-bench-${process.pid}`,
    ...(options.buildDir ? { buildDir: options.buildDir } : {}),
  });
  try {
    const direct: number[] = [];
    const inside: number[] = [];
    const slot = await sandbox.acquire();
    await slot.resetBox();
    await slot.addFile('empty', { path: tools.emptyProgram }, { executable: true });
    for (let round = 0; round < rounds; round++) {
      for (let index = 0; index < perRound; index++) direct.push(await timeDirect(tools.emptyProgram));
      for (let index = 0; index < perRound; index++) {
        const started = process.hrtime.bigint();
        const result = await slot.run({ argv: ['./empty'], limits: emptyLimits });
        inside.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (result.status !== 'ok') throw new Error(`benchmark run failed: ${result.status} ${result.detail ?? ''}`);
      }
    }

    const source = join(tmp, 'ab.cpp');
    writeFileSync(source, aPlusB);
    const cpp = getLanguage('cpp');
    const outside: number[] = [];
    const compiledInside: number[] = [];
    const outsideDir = mkdtempSync(join(tmp, 'outside-'));
    writeFileSync(join(outsideDir, cpp.sourceName), aPlusB);
    for (let index = 0; index < compileRuns; index++) {
      let started = process.hrtime.bigint();
      await run(cpp.compile[0]!, expandArgv(cpp.compile, cpp.sourceName, []).slice(1), { cwd: outsideDir });
      outside.push(Number(process.hrtime.bigint() - started) / 1e6);
      started = process.hrtime.bigint();
      const result = await compile(cpp, source, [], slot, { outDir: join(tmp, 'program') });
      compiledInside.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (!result.ok) throw new Error(`benchmark compile failed: ${result.message}`);
    }
    sandbox.release(slot);

    const directStats = distribution(direct);
    const insideStats = distribution(inside);
    const insideMs = median(compiledInside);
    const outsideMs = median(outside);
    return {
      direct: directStats,
      sandbox: insideStats,
      ratio: Math.round((insideStats.medianMs / directStats.medianMs) * 10) / 10,
      compile: { insideMs: Math.round(insideMs), outsideMs: Math.round(outsideMs), ratio: Math.round((insideMs / outsideMs) * 100) / 100, runs: compileRuns },
      calibration: sandbox.calibration,
      cgroupVersion: sandbox.cgroupVersion,
    };
  } finally {
    await sandbox.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function formatOverheadBench(result: OverheadBenchResult): string {
  const line = (name: string, stats: Distribution) => `${name.padEnd(22)} median ${stats.medianMs} ms  p10 ${stats.p10Ms}  p90 ${stats.p90Ms}  (n=${stats.samples})`;
  return [
    `sandbox overhead (bwrap, cgroup v${result.cgroupVersion}; calibration ${result.calibration.cpuMs.toFixed(2)} ms CPU, ${Math.round(result.calibration.memKiB)} KiB)`,
    line('direct spawn', result.direct),
    line('sandboxed run', result.sandbox),
    `ratio sandboxed/direct ${result.ratio}×`,
    `compile C++ a+b (median of ${result.compile.runs}): inside ${result.compile.insideMs} ms, outside ${result.compile.outsideMs} ms, ratio ${result.compile.ratio}×`,
  ].join('\n');
}

if (import.meta.main) {
  console.log(formatOverheadBench(await runSandboxOverheadBench()));
}
