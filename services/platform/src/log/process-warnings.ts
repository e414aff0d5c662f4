import type { Logger } from 'pino';

/**
 * Sends Node's process warnings to the structured log instead of bare stderr. kafkajs 2.2.4 schedules
 * timers with negative delays on Node 24 (TimeoutNegativeWarning, treated as 1 ms): a known upstream
 * bug with no effect, so it is dropped rather than logged on every reconnect.
 */
export function routeProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutNegativeWarning') return;
    logger.warn({ warning: warning.name, detail: warning.message }, 'process warning');
  });
}
