import type { SandboxOptions } from './sandbox.ts';

/**
 * Sandbox settings from the environment (the judge's entry point passes process.env):
 * - OTOG_SANDBOX: `bwrap` (default) or `unsafe` — the unsafe mode only when spelled out, for development.
 * - OTOG_SANDBOX_ROOT: slot directories (default /var/lib/otog-judge/sandbox).
 * - OTOG_SANDBOX_SLOTS: parallel runs (default 1).
 * - OTOG_SANDBOX_FIRST_UID: uid of slot 0 (default 60100).
 * - OTOG_SANDBOX_CGROUP: parent cgroup name, one per judge process on a host (default otog-judge).
 */
export function sandboxOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): SandboxOptions {
  const mode = env.OTOG_SANDBOX ?? 'bwrap';
  if (mode !== 'bwrap' && mode !== 'unsafe') throw new Error(`OTOG_SANDBOX must be "bwrap" or "unsafe", got ${JSON.stringify(mode)}`);
  const integer = (name: string, fallback: number, minimum: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < minimum) throw new Error(`${name} must be an integer ≥ ${minimum}, got ${JSON.stringify(text)}`);
    return value;
  };
  return {
    mode,
    rootDir: env.OTOG_SANDBOX_ROOT || '/var/lib/otog-judge/sandbox',
    slots: integer('OTOG_SANDBOX_SLOTS', 1, 1),
    firstUid: integer('OTOG_SANDBOX_FIRST_UID', 60100, 1000),
    cgroupParent: env.OTOG_SANDBOX_CGROUP || 'otog-judge',
  };
}
