import type { NotificationListener } from '../db/listen.ts';
import { ConsumerFaultedError, WaitTimeoutError } from '../transport/event-transport.ts';
import { CHECKPOINTS_CHANNEL } from './checkpoints.ts';

export type WaitCheck = () => Promise<{ state: 'reached' } | { state: 'pending' } | { state: 'faulted'; detail: string }>;

/**
 * Re-runs `check` whenever the consumer's checkpoint moves (NOTIFY from the committing process) and on a
 * short poll as a fallback, until it reports reached, faulted, or the time is up.
 */
export async function waitForCheckpoint(
  listener: NotificationListener,
  consumer: string,
  check: WaitCheck,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | undefined;
  const off = listener.on(CHECKPOINTS_CHANNEL, (payload) => {
    if (payload === consumer) wake?.();
  });
  try {
    for (;;) {
      const result = await check();
      if (result.state === 'reached') return;
      if (result.state === 'faulted') throw new ConsumerFaultedError(consumer, result.detail);
      const left = deadline - Date.now();
      if (left <= 0) throw new WaitTimeoutError(consumer, timeoutMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    off();
  }
}
