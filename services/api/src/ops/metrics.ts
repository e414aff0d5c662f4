/**
 * Prometheus metrics of one process, served on its ops port (GET /metrics): Node's own (CPU, memory, event
 * loop lag, GC), and what its roles add. Gauges of shared state (queue depth, lags) are read when scraped,
 * so a process that is not scraped pays nothing for them.
 */
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface ProcessMetrics {
  readonly registry: Registry;
  /** HTTP answers by method, route pattern (never the raw URL: ids would explode the series) and status. */
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** How long a judge task waited in the queue before a worker claimed it. */
  readonly judgeQueueWait: Histogram;
  /**
   * A gauge whose values are read at scrape time. A failing read leaves the gauge empty for that scrape
   * (and is reported through `onError`), so one slow dependency never fails the whole scrape.
   */
  addGauge(gauge: {
    name: string;
    help: string;
    labelNames?: readonly string[];
    read(): Promise<ReadonlyArray<{ labels?: Record<string, string>; value: number }>>;
  }): void;
}

export function createProcessMetrics(options: { roles: readonly string[]; onError?: (metric: string, error: unknown) => void }): ProcessMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ roles: options.roles.join(',') });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'otog_http_request_duration_seconds',
      help: 'HTTP answers by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
    judgeQueueWait: new Histogram({
      name: 'otog_judge_queue_wait_seconds',
      help: 'Time a judge task waited in the queue before a worker claimed it',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    addGauge({ name, help, labelNames = [], read }) {
      new Gauge({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        async collect() {
          this.reset();
          try {
            for (const sample of await read()) {
              if (sample.labels) this.set(sample.labels, sample.value);
              else this.set(sample.value);
            }
          } catch (error) {
            options.onError?.(name, error);
          }
        },
      });
    },
  };
}
