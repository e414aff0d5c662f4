/**
 * Measurement accuracy of the bwrap sandbox (research/sandbox.md section b): CPU time after the
 * calibrated wrapper cost is subtracted, peak memory after the baseline is subtracted, CPU summed over
 * threads, and the memory limit reported as MLE. CPU figures come from the cgroup (cpuacct), which
 * the load of other work on the machine does not change; wall limits are generous for the same reason.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunLimits, RunResult, SandboxSlot } from '@otog/judge/sandbox/index';
import { buildPrograms, livingProcessesOf, startTestSandbox, type TestSandbox } from './support.ts';

const firstUid = 61110;
const limits: RunLimits = { cpuMs: 3000, wallMs: 20_000, memoryKiB: 512 * 1024, processes: 1, outputBytes: 1024 * 1024 };

let env: TestSandbox;
let programs: Record<string, string>;
let slot: SandboxSlot;

beforeAll(async () => {
  env = await startTestSandbox('accuracy', firstUid);
  const bin = join(env.tmp, 'bin');
  mkdirSync(bin);
  programs = await buildPrograms(bin, ['cpuburn', 'memtouch', 'threads']);
  slot = await env.sandbox.acquire();
}, 180_000);

afterAll(async () => {
  if (!env) return;
  env.sandbox.release(slot);
  await env.close();
}, 180_000);

afterEach(() => {
  expect(livingProcessesOf(env.uids)).toEqual([]);
});

async function runProgram(name: string, args: string[], overrides: Partial<RunLimits> = {}): Promise<RunResult> {
  await slot.resetBox();
  await slot.addFile(name, { path: programs[name]! }, { executable: true });
  return slot.run({ argv: [`./${name}`, ...args], limits: { ...limits, ...overrides } });
}

const stdoutOf = (result: RunResult) => readFileSync(result.stdoutFile, 'utf8').trim();

describe('sandbox accuracy (bwrap)', () => {
  it('calibrated the wrapper at start (setup CPU and memory baseline)', () => {
    const { calibration } = env.sandbox;
    expect(calibration.cpuMs).toBeGreaterThan(0);
    expect(calibration.cpuMs).toBeLessThan(50);
    expect(calibration.memKiB).toBeGreaterThan(0);
    expect(calibration.memKiB).toBeLessThan(8 * 1024);
  });

  it('a 1.0 s CPU burn is reported within ±20 ms', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const result = await runProgram('cpuburn', ['1000']);
      expect(result.status).toBe('ok');
      const own = Number(stdoutOf(result));
      expect(own).toBeGreaterThanOrEqual(1000);
      expect(Math.abs(result.cpuMs - 1000)).toBeLessThanOrEqual(20);
      expect(Math.abs(result.cpuMs - own)).toBeLessThanOrEqual(20);
      // The raw figure still contains the wrapper's setup CPU that calibration removed.
      expect(result.raw.cpuMs - result.cpuMs).toBeCloseTo(env.sandbox.calibration.cpuMs, 3);
    }
  });

  it('256 MiB touched is reported within ±3 %', async () => {
    const result = await runProgram('memtouch', ['256']);
    expect(result.status).toBe('ok');
    const expected = 256 * 1024;
    expect(Math.abs(result.memKiB - expected) / expected).toBeLessThanOrEqual(0.03);
    expect(result.memoryExceeded).toBe(false);
  });

  it('memory over the limit is MLE (the X verdict with the memory-exceeded detail)', async () => {
    const result = await runProgram('memtouch', ['300'], { memoryKiB: 256 * 1024 });
    expect(result.status).toBe('mle');
    expect(result.memoryExceeded).toBe(true);
    expect(result.detail).toMatch(/memory limit of 262144 KiB exceeded/);
  });

  it('memory just under the limit is not MLE', async () => {
    const result = await runProgram('memtouch', ['240'], { memoryKiB: 256 * 1024 });
    expect(result.status).toBe('ok');
    expect(result.memKiB).toBeLessThanOrEqual(256 * 1024);
  });

  it('output written to the stdout file does not count as memory (page cache)', async () => {
    await slot.resetBox();
    const result = await slot.run({
      argv: ['/usr/bin/head', '-c', String(48 * 1024 * 1024), '/dev/zero'],
      limits: { ...limits, memoryKiB: 8 * 1024, outputBytes: 64 * 1024 * 1024 },
    });
    expect(result.status).toBe('ok');
    expect(result.stdoutBytes).toBe(48 * 1024 * 1024);
    expect(result.memKiB).toBeLessThan(8 * 1024);
  });

  it('CPU time is summed across threads', async () => {
    const result = await runProgram('threads', ['2', '600'], { cpuMs: 5000, processes: 3 });
    expect(result.status).toBe('ok');
    const own = Number(stdoutOf(result));
    expect(own).toBeGreaterThanOrEqual(1200);
    expect(Math.abs(result.cpuMs - own)).toBeLessThanOrEqual(20);
  });

  it('a failure of the sandbox itself is sandbox-error with bwrap\'s message, never a verdict', async () => {
    await slot.resetBox();
    const missingBind = await slot.run({ argv: ['/usr/bin/true'], limits, readOnlyBinds: [{ source: join(env.tmp, 'no-such-dir'), target: '/data' }] });
    expect(missingBind.status).toBe('sandbox-error');
    expect(missingBind.detail).toMatch(/bwrap: Can't find source path/);
    const missingProgram = await slot.run({ argv: ['./not-there'], limits });
    expect(missingProgram.status).toBe('sandbox-error');
    expect(missingProgram.detail).toMatch(/execvp \.\/not-there/);
    // A program that exits 1 on its own is a runtime error, not a sandbox failure.
    expect((await slot.run({ argv: ['/usr/bin/false'], limits })).status).toBe('re');
  });

  it('a thread beyond the process limit cannot be created', async () => {
    const result = await runProgram('threads', ['2', '10'], { processes: 1 });
    expect(result.status).toBe('re');
    expect(result.processLimitHit).toBe(true);
  });
});
