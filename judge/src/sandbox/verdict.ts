import { constants } from 'node:os';
import type { Calibration, RunLimits, RunStatus } from './types.ts';

/** What the driver observed about one run, before classification. */
export interface RunObservation {
  /** The judge killed the run: for CPU (polling) or for the wall clock. */
  readonly killedFor: 'cpu' | 'wall' | null;
  /** The program never started (bwrap or the wrapper chain failed) and the judge did not kill it. */
  readonly setupFailed: boolean;
  readonly cpuMs: number;
  readonly memKiB: number;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly oomKills: number;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
}

/**
 * The verdict order of research/sandbox.md: TLE (killed for CPU, CPU over the limit or SIGXCPU), wall TLE,
 * MLE (OOM kill or peak over the limit), OLE (SIGXFSZ or an output file at the limit — checked by size,
 * not only by signal), RE (non-zero exit or a signal), else ok.
 */
export function decideStatus(observation: RunObservation, limits: RunLimits): RunStatus {
  if (observation.setupFailed && observation.killedFor === null) return 'sandbox-error';
  if (observation.killedFor === 'cpu' || observation.cpuMs > limits.cpuMs || observation.signal === 'SIGXCPU') return 'tle';
  if (observation.killedFor === 'wall') return 'wall-tle';
  if (memoryExceeded(observation, limits)) return 'mle';
  if (observation.signal === 'SIGXFSZ' || observation.stdoutBytes >= limits.outputBytes || observation.stderrBytes >= limits.outputBytes) {
    return 'ole';
  }
  if (observation.signal !== null || observation.exitCode !== 0) return 're';
  return 'ok';
}

export function memoryExceeded(observation: Pick<RunObservation, 'oomKills' | 'memKiB'>, limits: Pick<RunLimits, 'memoryKiB'>): boolean {
  return observation.oomKills > 0 || observation.memKiB > limits.memoryKiB;
}

/** Subtracts the calibrated wrapper overhead, clamped at zero. */
export function applyCalibration(raw: { cpuMs: number; memKiB: number }, calibration: Calibration): { cpuMs: number; memKiB: number } {
  return {
    cpuMs: Math.max(0, raw.cpuMs - calibration.cpuMs),
    memKiB: Math.max(0, raw.memKiB - calibration.memKiB),
  };
}

const signalNames = new Map<number, string>(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * bwrap (and sh) report a death by signal N as exit status 128+N. Splits such a status into an exit code
 * or a signal name. A program that deliberately exits with 128+N is indistinguishable; the cgroup
 * counters and output sizes, not the status, decide MLE and OLE.
 */
export function splitExitStatus(status: number): { exitCode: number | null; signal: string | null } {
  if (status > 128) {
    const name = signalNames.get(status - 128);
    if (name) return { exitCode: null, signal: name };
  }
  return { exitCode: status, signal: null };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
