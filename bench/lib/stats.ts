/** Small helpers for figures: percentiles, rates, number formatting and progress lines. */

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function summarize(samples: readonly number[]): { p50: number; p99: number; max: number; count: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? Number.NaN, count: sorted.length };
}

export const int = (n: number): string => Math.round(n).toLocaleString('en-US');

export const ms = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

export const seconds = (milliseconds: number): string => (milliseconds / 1000).toFixed(1);

export function now(): number {
  return performance.now();
}

/** Prints a progress line at most every `everyMs` while long work runs. */
export function progressPrinter(label: string, total: number, everyMs = 2_000) {
  const started = now();
  let last = started;
  let lastDone = 0;
  return {
    update(done: number, force = false) {
      const t = now();
      if (!force && t - last < everyMs) return;
      const elapsed = (t - started) / 1000;
      const recent = ((done - lastDone) / Math.max(1e-9, t - last)) * 1000;
      const overall = done / Math.max(1e-9, elapsed);
      const left = overall > 0 ? (total - done) / overall : Number.NaN;
      const pct = total > 0 ? ((100 * done) / total).toFixed(1) : '?';
      process.stdout.write(
        `  ${label}: ${int(done)} / ${int(total)} (${pct}%)  ${int(recent)} ev/s now, ${int(overall)} ev/s avg, ` +
          `${elapsed.toFixed(1)} s elapsed${done < total ? `, ~${Number.isFinite(left) ? left.toFixed(0) : '?'} s left` : ''}\n`,
      );
      last = t;
      lastDone = done;
    },
  };
}
