/**
 * At most one call per key per `intervalMs`: the first call runs at once; calls within the interval are
 * folded into one that runs when it ends, so the last change is always announced.
 */
export function createThrottle(intervalMs: number, run: (key: string) => void): { call(key: string): void; cancel(): void } {
  const cooling = new Map<string, { timer: NodeJS.Timeout; pending: boolean }>();
  const cool = (key: string) => {
    const timer = setTimeout(() => {
      const state = cooling.get(key);
      cooling.delete(key);
      if (state?.pending) {
        run(key);
        cool(key);
      }
    }, intervalMs);
    timer.unref();
    cooling.set(key, { timer, pending: false });
  };
  return {
    call(key) {
      const state = cooling.get(key);
      if (state) {
        state.pending = true;
        return;
      }
      run(key);
      cool(key);
    },
    cancel() {
      for (const { timer } of cooling.values()) clearTimeout(timer);
      cooling.clear();
    },
  };
}
