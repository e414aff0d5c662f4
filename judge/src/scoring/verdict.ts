/**
 * Verdict statuses, their result-string characters and their meanings (DOMAIN.md "Scoring one
 * submission"). The status names and characters are part of the OTOG wire format: never rename them.
 */

import { RUNTIME_ERROR_KINDS, VERDICT_STATUSES, type RuntimeErrorKind, type VerdictStatus } from '@otog/schemas/common/judging';

export { RUNTIME_ERROR_KINDS, VERDICT_STATUSES, type RuntimeErrorKind, type VerdictStatus };

export interface VerdictInfo {
  readonly char: string;
  /** The English description the OTOG UI shows in its verdict table. */
  readonly meaning: string;
}

export const VERDICTS: Readonly<Record<VerdictStatus, VerdictInfo>> = {
  ACCEPTED: { char: 'P', meaning: 'Output is correct' },
  PARTIAL: { char: '%', meaning: 'Output is partially correct' },
  REJECTED: { char: '-', meaning: 'Output is incorrect' },
  TIME_LIMIT_EXCEEDED: { char: 'T', meaning: 'Time limit exceeded' },
  RUNTIME_ERROR: { char: 'X', meaning: 'Runtime error' },
  SKIPPED: { char: 'S', meaning: 'Skipped' },
  PROBLEM_ERROR: { char: '?', meaning: 'Problem error' },
  INTERNAL_ERROR: { char: '!', meaning: 'Internal error' },
};

export const RUNTIME_ERROR_MEANINGS: Readonly<Record<RuntimeErrorKind, string>> = {
  RUNTIME_ERROR: 'Runtime error',
  MEMORY_LIMIT_EXCEEDED: 'Memory limit exceeded',
};

export function verdictChar(status: VerdictStatus): string {
  return VERDICTS[status].char;
}

const statusByChar = new Map<string, VerdictStatus>(VERDICT_STATUSES.map((status) => [VERDICTS[status].char, status]));

/** The status of a result-string character, or undefined for anything else (brackets included). */
export function verdictStatusOfChar(char: string): VerdictStatus | undefined {
  return statusByChar.get(char);
}

/** The meaning shown for one verdict; an `X` says whether it was a crash or the memory limit. */
export function verdictMeaning(status: VerdictStatus, runtimeErrorKind?: RuntimeErrorKind): string {
  if (status === 'RUNTIME_ERROR' && runtimeErrorKind) return RUNTIME_ERROR_MEANINGS[runtimeErrorKind];
  return VERDICTS[status].meaning;
}

/**
 * The fraction of a test's points a verdict earns: 1 for `P`, the checker's value for `%`, else 0.
 * (OTOG stores 1.0 for a single-char checker's fail — a quirk we do not copy: a fail earns and stores 0.)
 */
export function verdictPercent(status: VerdictStatus, checkerPercent: number | undefined): number {
  if (status === 'ACCEPTED') return 1;
  if (status === 'PARTIAL') return checkerPercent ?? 0;
  return 0;
}
