import { isAbsolute, normalize } from 'node:path';
import type { ReadOnlyBind, RunLimits, RunRequest } from './types.ts';

export const defaultTmpBytes = 64 * 1024 * 1024;

function positiveInteger(name: string, value: number | undefined): void {
  if (value === undefined || !Number.isFinite(value) || value <= 0) throw new Error(`limit ${name} must be a positive number, got ${value}`);
}

/** Rejects requests that would make the command line or the limits meaningless (programming errors). */
export function validateRequest(request: RunRequest): void {
  const { limits } = request;
  positiveInteger('cpuMs', limits.cpuMs);
  positiveInteger('wallMs', limits.wallMs);
  positiveInteger('memoryKiB', limits.memoryKiB);
  positiveInteger('processes', limits.processes);
  positiveInteger('outputBytes', limits.outputBytes);
  if (limits.tmpBytes !== undefined) positiveInteger('tmpBytes', limits.tmpBytes);
  if (request.argv.length === 0 || request.argv[0] === '') throw new Error('argv must name a program');
  for (const arg of request.argv) if (arg.includes('\0')) throw new Error('argv must not contain NUL');
  for (const bind of request.readOnlyBinds ?? []) validateBind(bind);
  for (const [key, value] of Object.entries(request.env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || value.includes('\0')) throw new Error(`invalid environment variable ${JSON.stringify(key)}`);
  }
}

function validateBind(bind: ReadOnlyBind): void {
  if (!isAbsolute(bind.source) || !isAbsolute(bind.target)) throw new Error(`bind paths must be absolute: ${bind.source} -> ${bind.target}`);
  if (normalize(bind.target) !== bind.target || bind.target === '/') throw new Error(`bind target must be a normalized path below /: ${bind.target}`);
}

/** RLIMIT_CPU backstop in whole seconds: ceil(limit) + 1 (the judge's polling kills well before). */
export function cpuBackstopSeconds(limits: Pick<RunLimits, 'cpuMs'>): number {
  return Math.ceil(limits.cpuMs / 1000) + 1;
}
