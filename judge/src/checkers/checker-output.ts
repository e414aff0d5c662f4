/**
 * Parsing what custom checkers print (DOMAIN.md "Test data"). Anything a checker prints that is not
 * valid makes the whole submission `Problem Error`, so the parsers say "invalid" with a reason for the
 * admin instead of guessing.
 */

export type CheckerVerdict =
  | { readonly valid: true; readonly status: 'ACCEPTED' | 'REJECTED' | 'PARTIAL'; readonly percent: number }
  | { readonly valid: false; readonly reason: string };

/**
 * |s−1| ≤ 1e-4 passes and |s| ≤ 1e-4 fails, compared in binary floating point as OTOG does; the decimal
 * boundaries 0.9999, 1.0001, 0.0001 and -0.0001 all land inside (tested).
 */
export const PARTIAL_TOLERANCE = 1e-4;
const decimal = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

const show = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);

/**
 * The output of `thaco.cpp` / `partial.cpp`: one float s (surrounding whitespace ignored). |s−1| ≤ 1e-4 →
 * ACCEPTED, |s| ≤ 1e-4 → REJECTED, otherwise PARTIAL with percent s clamped to [0, 1] **[ours: clamped]**.
 * NaN, infinities and anything that is not a single decimal number are invalid.
 */
export function parsePartialCheckerOutput(stdout: string): CheckerVerdict {
  const text = stdout.trim();
  if (!decimal.test(text)) return { valid: false, reason: `the partial checker must print one number, it printed ${show(stdout)}` };
  const s = Number(text);
  if (!Number.isFinite(s)) return { valid: false, reason: `the partial checker printed ${show(text)}, which is not a finite number` };
  if (Math.abs(s - 1) <= PARTIAL_TOLERANCE) return { valid: true, status: 'ACCEPTED', percent: 1 };
  if (Math.abs(s) <= PARTIAL_TOLERANCE) return { valid: true, status: 'REJECTED', percent: 0 };
  return { valid: true, status: 'PARTIAL', percent: Math.min(1, Math.max(0, s)) };
}

/**
 * The one-character verdict of `interactive_script.py` (its stdout) or `check.cpp` (its
 * grader_result.txt), surrounding whitespace ignored: `P` → ACCEPTED, any other single character →
 * REJECTED, anything else (empty, several characters, several lines) is invalid.
 */
export function parseSingleCharCheckerOutput(output: string): CheckerVerdict {
  const chars = [...output.trim()];
  if (chars.length !== 1) return { valid: false, reason: `the checker must print exactly one character, it printed ${show(output)}` };
  return chars[0] === 'P' ? { valid: true, status: 'ACCEPTED', percent: 1 } : { valid: true, status: 'REJECTED', percent: 0 };
}
