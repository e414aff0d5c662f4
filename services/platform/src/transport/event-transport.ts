import type { Position } from '../eventstore/position.ts';
import type { BatchOutcome, EventConsumer } from '../runner/consumer.ts';

/**
 * The port through which consumers (projections, reactors, subscribers) receive the event log.
 * Every transport gives the same guarantees, checked by one contract suite (tests/contract):
 * - order: events of one scope arrive in log order;
 * - replay: a new consumer name starts from the beginning of the log;
 * - single active member: consumers sharing a name split or hand over the work, never double it;
 * - exactly-once effect: duplicates are dropped by log position against the Postgres checkpoint.
 */
export interface EventTransport {
  readonly kind: 'pglog' | 'kafka';
  subscribe(consumer: EventConsumer, options?: SubscribeOptions): Promise<Subscription>;
}

export interface SubscribeOptions {
  /** Max events per transaction. */
  readonly batchSize?: number;
  /** Handler attempts before the consumer is marked faulted (never skipped silently). */
  readonly maxAttempts?: number;
  /** Called for each batch once it has committed: progress bars, metrics, after-commit notices. */
  readonly onBatch?: (info: BatchOutcome) => void;
  readonly onFault?: (info: { eventId: string | null; message: string }) => void;
}

export interface Subscription {
  readonly consumer: string;
  /**
   * Resolves once this consumer has applied `event` (read-your-writes, tests). Rejects after `timeoutMs`
   * or when the consumer faults. `scope` lets partitioned transports find the partition that carries it.
   */
  waitFor(event: Position & { scope: string }, timeoutMs?: number): Promise<void>;
  /** Why it stopped consuming for good (a Kafka consumer that crashed and will not restart), if it did. */
  failure?(): string | undefined;
  stop(): Promise<void>;
}

export class ConsumerFaultedError extends Error {
  constructor(consumer: string, detail: string) {
    super(`consumer ${consumer} is faulted: ${detail}`);
    this.name = 'ConsumerFaultedError';
  }
}

export class WaitTimeoutError extends Error {
  constructor(consumer: string, timeoutMs: number) {
    super(`consumer ${consumer} did not reach the position within ${timeoutMs} ms`);
    this.name = 'WaitTimeoutError';
  }
}
