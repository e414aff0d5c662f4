/**
 * After-commit notices, through Postgres NOTIFY and through Redis pub/sub: a projection's notices reach
 * subscribers only once its batch committed (a subscriber reading on the notice finds the row), never from
 * a batch that rolled back, and never from a slot readers do not read (a rebuild replaying the log).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@otog/platform/db/pool';
import { createNotificationListener, type NotificationListener } from '@otog/platform/db/listen';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { noticeCollector, packNotices, type Notice, type Notifier } from '@otog/platform/notices/notice';
import { createPgNotifier } from '@otog/platform/notices/pg-notifier';
import { createRedisNotifier } from '@otog/platform/notices/redis-notifier';
import { projectionOver, slotTableName } from '@otog/platform/runner/projection';
import { startProjectionRunner } from '@otog/platform/runner/projection-runner';
import { createRebuildSlot } from '@otog/platform/runner/projection-slots';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { testRegistry, type TestEventMap } from '../support/test-events.ts';
import { until } from '../support/until.ts';

/** Folds of the unlucky event so far: its first fold fails after announcing, so that batch rolls back. */
let unluckyFolds = 0;

/** Counters that announce "counter X changed". */
const counters = projectionOver<TestEventMap>()({
  name: 'noticed_counters',
  version: 1,
  tables: ['totals'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.totals} (counter text PRIMARY KEY, total bigint NOT NULL)`);
  },
  on: {
    async CounterIncremented(tx, { data }, t, context) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.totals} (counter, total) VALUES (${data.counter}, ${data.by})
        ON CONFLICT (counter) DO UPDATE SET total = ${t.totals}.total + excluded.total`);
      if (data.by !== 13) return context.notify({ topic: 'counter', key: data.counter, data: { by: data.by } });
      unluckyFolds += 1;
      context.notify({ topic: 'counter', key: data.counter, data: { by: data.by, fold: unluckyFolds } });
      if (unluckyFolds === 1) throw new Error('unlucky');
    },
  },
});

it('collects one notice per topic and key per batch, the latest position winning, and packs them under the payload limit', () => {
  const collector = noticeCollector();
  collector.contextAt({ txid: 5n, gpos: 1n }).notify({ topic: 'submission', key: '1' });
  collector.contextAt({ txid: 5n, gpos: 2n }).notify({ topic: 'submission', key: '2' });
  collector.contextAt({ txid: 6n, gpos: 3n }).notify({ topic: 'submission', key: '1', data: { userId: 4 } });
  expect(collector.notices()).toEqual([
    { topic: 'submission', key: '1', seq: '6/3', data: { userId: 4 } },
    { topic: 'submission', key: '2', seq: '5/2' },
  ]);
  const many: Notice[] = Array.from({ length: 500 }, (_, i) => ({ topic: 'submission', key: String(i), seq: `1/${i}` }));
  const packs = packNotices(many, 1_000);
  expect(packs.length).toBeGreaterThan(1);
  expect(packs.every((pack) => pack.length <= 1_000)).toBe(true);
  expect(packs.flatMap((pack) => JSON.parse(pack) as Notice[])).toEqual(many);
});

const notifiers: Array<[string, (db: TestDatabase, listener: NotificationListener) => Notifier]> = [
  ['Postgres NOTIFY', (db, listener) => createPgNotifier({ pool: db.pool, listener })],
  ['Redis pub/sub', () => createRedisNotifier({ url: process.env.REDIS_URL! })],
];

for (const [label, makeNotifier] of notifiers) {
  describe(`after-commit notices through ${label}`, () => {
    let db: TestDatabase;
    let listener: NotificationListener;
    let notifier: Notifier;
    beforeAll(async () => {
      db = await createTestDatabase();
      listener = createNotificationListener(db.url);
      notifier = makeNotifier(db, listener);
    });
    afterAll(async () => {
      await notifier?.close();
      await listener?.close();
      await db?.drop();
    });

    it('arrive after the commit, never from a rolled-back batch, and only from the live slot', async () => {
      const store = createEventStore(db.pool, testRegistry);
      const table = sql.identifier([slotTableName(counters.name, 1, 'totals')]);
      const received: Array<Notice & { visible: boolean }> = [];
      const off = notifier.subscribe((notice) => {
        // What a realtime gateway does on a notice: read the read model. It must already hold the change.
        void db.pool
          .maybeOneFirst(sql.unsafe`SELECT total FROM ${table} WHERE counter = ${notice.key}`)
          .then((total) => received.push({ ...notice, visible: total !== null }));
      });
      await notifier.ready();
      const transport = createPgLogTransport({ pool: db.pool, store, listener, pollIntervalMs: 50 });
      const runner = await startProjectionRunner({ pool: db.pool, store, transport, projections: [counters], notifier, autoCutover: false });
      const counted = (by: number) => ({ type: 'CounterIncremented', scope: 'user:1', data: { counter: `c${by}`, by } });
      const keys = () => received.map(({ key, visible, data }) => ({ key, visible, data })).sort((a, b) => a.key.localeCompare(b.key));
      try {
        unluckyFolds = 0;
        const at = await store.append('counters-1', [1, 2, 13].map(counted));
        await runner.waitFor(counters.name, { ...at.lastPosition, scope: 'user:1' }, 10_000);
        await until('the notices of the committed batches arrive', () => received.length >= 3);
        // The first batch announced c1, c2 and c13 (fold 1) and rolled back; only the retries' notices arrive.
        expect(keys()).toEqual([
          { key: 'c1', visible: true, data: { by: 1 } },
          { key: 'c13', visible: true, data: { by: 13, fold: 2 } },
          { key: 'c2', visible: true, data: { by: 2 } },
        ]);

        // A rebuild slot replays the same events: readers do not read it, so it announces nothing.
        const rebuilt = await createRebuildSlot(db.pool, counters);
        await runner.refresh();
        const rebuiltRows = () => db.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM ${sql.identifier([slotTableName(counters.name, rebuilt, 'totals')])}`);
        await until('the rebuild has folded the log', async () => (await rebuiltRows()) === 3);
        const later = await store.append('counters-2', [counted(7)]);
        await runner.waitFor(counters.name, { ...later.lastPosition, scope: 'user:1' }, 10_000);
        await until('the live slot announces c7', () => received.some((notice) => notice.key === 'c7'));
        expect(received).toHaveLength(4);
      } finally {
        off();
        await runner.stop();
      }
    });
  });
}
