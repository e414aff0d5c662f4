/**
 * The EventTransport contract: one suite, run against every transport (pglog.test.ts, kafka.test.ts,
 * kafka-testcontainers.test.ts). Each test gets a harness of its own (fresh database, and for Kafka fresh
 * topics and consumer groups), so no test sees another's events.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { AppendedEvent, EventStore } from '@otog/platform/eventstore/event-store';
import { comparePositions } from '@otog/platform/eventstore/position';
import type { EventConsumer } from '@otog/platform/runner/consumer';
import { ConsumerFaultedError, type EventTransport, type Subscription } from '@otog/platform/transport/event-transport';

export interface ContractHarness {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly transport: EventTransport;
  /**
   * The same transport with its own read positions forgotten but the same Postgres checkpoints
   * (Kafka: a consumer group with no committed offsets, so it re-reads every partition from offset 0).
   */
  rewound(): EventTransport;
  /** True when a rewound transport re-reads its source from the start (Kafka); false when it reads after the checkpoint (pglog). */
  readonly rewindRedelivers: boolean;
  /** True when instances sharing a name split the work (Kafka partitions); false when one is active at a time (pglog). */
  readonly splitsWork: boolean;
  /** Publishes every event of the log again and resolves when done; returns how many copies of each event the transport now holds. */
  republish(): Promise<number>;
  close(): Promise<void>;
}

/** Generous: a Kafka group join takes ~3 s on the mock and a rebalance ~1.5 s. */
const WAIT_MS = 30_000;

interface AppliedRow {
  n: bigint;
  instance: string;
  event_id: string;
  scope: string;
  seq: number;
  txid: bigint;
  gpos: bigint;
}

interface Written {
  readonly scope: string;
  readonly seq: number;
  readonly event: AppendedEvent;
}

export function eventTransportContract(name: string, createHarness: () => Promise<ContractHarness>): void {
  describe(`EventTransport contract: ${name}`, () => {
    let h: ContractHarness;
    const subscriptions: Subscription[] = [];

    beforeEach(async () => {
      h = await createHarness();
      // n is the application order: per scope, every application happens in one sequence of transactions.
      await h.pool.query(sql.unsafe`
        CREATE TABLE contract_applied (
          n        bigserial PRIMARY KEY,
          consumer text   NOT NULL,
          instance text   NOT NULL,
          event_id uuid   NOT NULL,
          scope    text   NOT NULL,
          seq      int    NOT NULL,
          txid     bigint NOT NULL,
          gpos     bigint NOT NULL
        )`);
    });
    afterEach(async () => {
      await Promise.allSettled(subscriptions.splice(0).map((subscription) => subscription.stop()));
      await h.close();
    });

    /** A consumer that records every application; throws on events with `by: 13` when told to. */
    const recorder = (consumer: string, instance = 'main', options: { poison?: boolean } = {}): EventConsumer => ({
      name: consumer,
      async handle(tx, events) {
        const data = events.map((event) => event.data as { by: number; seq: number });
        const poisoned = events.find((_, i) => options.poison && data[i]!.by === 13);
        if (poisoned) throw new Error(`poison event ${poisoned.eventId}`);
        await tx.query(sql.unsafe`
          INSERT INTO contract_applied (consumer, instance, event_id, scope, seq, txid, gpos)
          SELECT * FROM ${sql.unnest(
            events.map((event, i) => [consumer, instance, event.eventId, event.scope, data[i]!.seq, event.txid.toString(), event.gpos.toString()]),
            ['text', 'text', 'uuid', 'text', 'int4', 'int8', 'int8'],
          )}`);
      },
    });

    const subscribe = async (transport: EventTransport, consumer: EventConsumer, options?: Parameters<EventTransport['subscribe']>[1]) => {
      const subscription = await transport.subscribe(consumer, options);
      subscriptions.push(subscription);
      return subscription;
    };
    const stop = async (subscription: Subscription) => {
      subscriptions.splice(subscriptions.indexOf(subscription), 1);
      await subscription.stop();
    };

    /**
     * One writer per scope, all concurrent, each appending its scope's events in order in appends of 1-3
     * events: the log interleaves the scopes, while each scope's log order is its seq order.
     */
    const write = async (scopes: readonly string[], from: number, count: number, by: (scope: string, seq: number) => number = () => 1) => {
      const perScope = await Promise.all(
        scopes.map(async (scope) => {
          const written: Written[] = [];
          for (let seq = from; seq < from + count; ) {
            const size = Math.min(1 + (seq % 3), from + count - seq);
            const seqs = Array.from({ length: size }, (_, i) => seq + i);
            const result = await h.store.append(
              scope,
              seqs.map((s) => ({ type: 'CounterIncremented', scope, data: { counter: scope, by: by(scope, s), seq: s } })),
            );
            result.events.forEach((event, i) => written.push({ scope, seq: seqs[i]!, event }));
            seq += size;
          }
          return written;
        }),
      );
      return perScope.flat();
    };

    /** Waits until the subscription has applied the last written event of every scope (so every partition in play). */
    const waitForAll = async (subscription: Subscription, written: readonly Written[]) => {
      const last = new Map<string, Written>();
      for (const entry of written) {
        const seen = last.get(entry.scope);
        if (!seen || comparePositions(entry.event, seen.event) > 0) last.set(entry.scope, entry);
      }
      await Promise.all([...last.values()].map((entry) => subscription.waitFor({ ...entry.event, scope: entry.scope }, WAIT_MS)));
    };

    const applied = async (consumer: string): Promise<AppliedRow[]> =>
      [...((await h.pool.any(sql.unsafe`
        SELECT n, instance, event_id, scope, seq, txid, gpos FROM contract_applied WHERE consumer = ${consumer} ORDER BY n`)) as readonly AppliedRow[])];

    /** Every event exactly once, and per scope in seq (= log) order with rising positions. */
    const expectExactlyOnceInOrder = (rows: readonly AppliedRow[], written: readonly Written[]) => {
      expect(rows.map((row) => row.event_id).sort()).toEqual(written.map((entry) => entry.event.eventId).sort());
      const scopes = [...new Set(written.map((entry) => entry.scope))];
      for (const scope of scopes) {
        const mine = rows.filter((row) => row.scope === scope);
        const expected = written.filter((entry) => entry.scope === scope).map((entry) => entry.seq).sort((a, b) => a - b);
        expect(mine.map((row) => row.seq), `order of ${scope}`).toEqual(expected);
        for (let i = 1; i < mine.length; i += 1) {
          expect(comparePositions({ txid: mine[i - 1]!.txid, gpos: mine[i - 1]!.gpos }, mine[i]!)).toBe(-1);
        }
      }
    };

    /** Polls a condition with a deadline (for effects no position can express). */
    const until = async (what: string, condition: () => boolean | Promise<boolean>, timeoutMs = WAIT_MS) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await condition())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    const kinds = ['user', 'contest', 'chat'];

    it('delivers each scope in log order, with many scopes interleaved, on catch-up and live', async () => {
      const scopes = kinds.flatMap((kind) => [1, 2, 3].map((i) => `${kind}:order${i}`));
      const before = await write(scopes, 0, 20);
      // Small batches: ordering must hold across batch boundaries too.
      const subscription = await subscribe(h.transport, recorder('contract:order'), { batchSize: 7 });
      const live = await write(scopes, 20, 10);
      await waitForAll(subscription, [...before, ...live]);
      const rows = await applied('contract:order');
      expect(rows).toHaveLength(9 * 30);
      expectExactlyOnceInOrder(rows, [...before, ...live]);
    });

    it('replays the whole log, from the start, to a new consumer name', async () => {
      const scopes = kinds.map((kind) => `${kind}:replay`);
      const written = await write(scopes, 0, 12);
      const first = await subscribe(h.transport, recorder('contract:first'));
      await waitForAll(first, written);
      await stop(first);
      const later = await subscribe(h.transport, recorder('contract:replay'));
      await waitForAll(later, written);
      expect(await applied('contract:first')).toHaveLength(36);
      const rows = await applied('contract:replay');
      expect(rows).toHaveLength(36);
      expectExactlyOnceInOrder(rows, written);
    });

    it('hands the work over between two instances of one consumer without doubling it', async () => {
      const scopes = kinds.flatMap((kind) => [`${kind}:ho1`, `${kind}:ho2`]);
      const a = await subscribe(h.transport, recorder('contract:handover', 'A'));
      const b = await subscribe(h.transport, recorder('contract:handover', 'B'));
      const round1 = await write(scopes, 0, 6);
      await waitForAll(b, round1);
      // Stop A while the next events are being written and consumed.
      const stopping = stop(a);
      const round2 = await write(scopes, 6, 6);
      await stopping;
      const round3 = await write(scopes, 12, 6);
      await waitForAll(b, [...round2, ...round3]);

      const rows = await applied('contract:handover');
      expect(rows).toHaveLength(6 * 18);
      if (h.splitsWork) {
        // Both were assigned partitions while both ran, so the handover really moved work from A to B.
        const firstRound = new Set(round1.map((entry) => entry.event.eventId));
        const instances = new Set(rows.filter((row) => firstRound.has(row.event_id)).map((row) => row.instance));
        expect([...instances].sort()).toEqual(['A', 'B']);
      }
      expectExactlyOnceInOrder(rows, [...round1, ...round2, ...round3]);
      const afterStop = new Set(round3.map((entry) => entry.event.eventId));
      const byInstance = rows.filter((row) => afterStop.has(row.event_id)).map((row) => row.instance);
      expect(byInstance).toEqual(Array(round3.length).fill('B'));
    });

    it('drops redelivered and republished events by position', async () => {
      const scopes = kinds.map((kind) => `${kind}:dup`);
      const written = await write(scopes, 0, 8);
      const first = await subscribe(h.transport, recorder('contract:dedup'));
      await waitForAll(first, written);
      await stop(first);
      expect(await applied('contract:dedup')).toHaveLength(24);

      // Every event again on the transport, and a consumer that has lost its transport-side read positions.
      const copies = await h.republish();
      const counts = { applied: 0, duplicates: 0 };
      const again = await subscribe(h.rewound(), recorder('contract:dedup', 'again'), {
        onBatch: ({ applied: n, duplicates }) => {
          counts.applied += n;
          counts.duplicates += duplicates;
        },
      });
      const fresh = await write([scopes[0]!], 8, 1);
      await waitForAll(again, fresh);
      const expectedDuplicates = h.rewindRedelivers ? copies * written.length : 0;
      // onBatch may run just after the commit that waitFor saw: wait for the counts too, then demand exact ones.
      await until(`${expectedDuplicates} duplicates`, () => counts.applied >= 1 && counts.duplicates >= expectedDuplicates);
      expect(counts).toEqual({ applied: 1, duplicates: expectedDuplicates });

      const rows = await applied('contract:dedup');
      expect(rows).toHaveLength(25);
      expectExactlyOnceInOrder(rows, [...written, ...fresh]);
      expect(rows.filter((row) => row.instance === 'again').map((row) => row.event_id)).toEqual([fresh[0]!.event.eventId]);
    });

    it('marks a consumer whose handler keeps throwing faulted with the event id, and skips nothing', async () => {
      const poisonScope = 'user:poison';
      const written = await write([poisonScope, 'user:fine'], 0, 6, (scope, seq) => (scope === poisonScope && seq === 3 ? 13 : 1));
      const poison = written.find((entry) => entry.scope === poisonScope && entry.seq === 3)!;
      const faults: Array<{ eventId: string | null; message: string }> = [];
      const subscription = await subscribe(h.transport, recorder('contract:fault', 'main', { poison: true }), {
        maxAttempts: 3,
        onFault: (fault) => faults.push(fault),
      });

      const waiting = subscription.waitFor({ ...poison.event, scope: poisonScope }, WAIT_MS);
      await expect(waiting).rejects.toBeInstanceOf(ConsumerFaultedError);
      await expect(waiting).rejects.toThrow(poison.event.eventId);

      const checkpoints = (await h.pool.any(sql.unsafe`
        SELECT status, error FROM consumer_checkpoints WHERE consumer = 'contract:fault' AND status = 'faulted'`)) as readonly {
        status: string;
        error: { eventId: string; attempts: number; message: string };
      }[];
      expect(checkpoints).toHaveLength(1);
      expect(checkpoints[0]).toMatchObject({ status: 'faulted', error: { eventId: poison.event.eventId, attempts: 3 } });
      expect(checkpoints[0]!.error.message).toContain('poison event');
      await until('the fault callback', () => faults.length > 0);
      expect(faults).toHaveLength(1);
      expect(faults[0]).toMatchObject({ eventId: poison.event.eventId, message: expect.stringContaining('poison event') });
      // Before the poison: applied, in order. The poison and what follows it in its scope: not applied.
      const rows = await applied('contract:fault');
      expect(rows.filter((row) => row.scope === poisonScope).map((row) => row.seq)).toEqual([0, 1, 2]);
    });
  });
}
