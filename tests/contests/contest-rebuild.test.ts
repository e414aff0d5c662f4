/**
 * `projections rebuild scoreboard --contest <id>`: one contest's rows of the live contest-scores slot are
 * rebuilt from the log, in bulk, equal to what the projector folded event by event, while the other
 * contests' rows stay as they are and the projector keeps folding.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjections, contestScoresProjection } from '@otog/projections';
import { migrate } from '@otog/platform/db/migrate';
import { sql } from '@otog/platform/db/pool';
import type { EventStore, NewEvent } from '@otog/platform/eventstore/event-store';
import { createLogger } from '@otog/platform/log/logger';
import { slotTableName } from '@otog/platform/runner/projection';
import { listSlots } from '@otog/platform/runner/projection-slots';
import { readJournal } from '@otog/projections/contest-scores/journal-log';
import { JOURNAL_EVENT_TYPES, journalOf } from '@otog/projections/contest-scores/rules/journal';
import { runCli, UsageError } from '../../services/api/src/cli/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/test-db.ts';
import { startTestProjector, type TestProjector } from '../support/test-runtime.ts';
import { generateContest, interleave, random, type Contest } from './support/random-contests.ts';

let db: TestDatabase;
let projector: TestProjector;
beforeAll(async () => {
  db = await createTestDatabase();
  projector = await startTestProjector(db, allProjections, { autoCutover: false });
});
afterAll(async () => {
  await projector.stop();
  await db.drop();
});

async function cli(args: string[]): Promise<{ code: number; out: string; progress: string }> {
  const out = new PassThrough();
  const progress = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const bars: string[] = [];
  progress.on('data', (chunk: Buffer) => bars.push(chunk.toString()));
  const code = await runCli(args, {
    pool: db.pool,
    store: projector.store,
    listener: projector.listener,
    projections: allProjections,
    logger: createLogger({ name: 'rebuild-test', level: 'silent' }),
    out,
    progress,
    migrate: () => migrate(db.url),
  });
  return { code, out: chunks.join(''), progress: bars.join('') };
}

async function appendAll(contests: readonly Contest[], extra: readonly [string, NewEvent][] = []): Promise<void> {
  const rng = random(7);
  const drafts = interleave(rng, contests.flatMap((contest) => [...contest.scopes.values()]));
  let last = null;
  for (const { streamId, type, scope, data, occurredAt } of drafts) last = await projector.store.append(streamId, [{ type, scope, data, occurredAt }]);
  for (const [streamId, event] of extra) last = await projector.store.append(streamId, [event]);
  await projector.runner.waitFor(contestScoresProjection.name, { ...last!.lastPosition, scope: 'contest:0' }, 30_000);
}

/** Every row of the live slot's tables that belong to the contest (all contests when null). */
async function rowsOf(contestId: number | null) {
  const live = (await listSlots(db.pool, contestScoresProjection.name)).find((slot) => slot.state === 'live')!;
  const dump: Record<string, unknown> = {};
  for (const table of ['settings', 'entries', 'cells', 'history']) {
    const name = sql.identifier([slotTableName(contestScoresProjection.name, live.generation, table)]);
    const where = contestId === null ? sql.fragment`TRUE` : sql.fragment`contest_id = ${contestId}`;
    dump[table] = await db.pool.any(sql.unsafe`SELECT * FROM ${name} WHERE ${where} ORDER BY 1, 2, 3`);
  }
  return { dump, table: (table: string) => sql.identifier([slotTableName(contestScoresProjection.name, live.generation, table)]) };
}

describe('rebuilding one contest', () => {
  it('restores a damaged contest to exactly what the projector folded, leaving the others alone', async () => {
    const rng = random(99);
    const ids = { next: 1 };
    const shape = { users: 12, submissions: 80, rejudges: 0.3 };
    const contests = [0, 1, 2].map((run) => generateContest(run, rng, ids, shape));
    const [first, second] = contests as [Contest, Contest, Contest];
    // One of the second contest's problems is deleted: its submissions leave the scores.
    const gone = [...second.problemScore.keys()][0]!;
    await appendAll(contests, [[`problem-${gone}`, { type: 'ProblemDeleted', scope: `problem:${gone}`, data: { problemId: gone } }]]);

    const folded = (await rowsOf(first.contestId)).dump;
    expect((folded.cells as unknown[]).length).toBeGreaterThan(0);
    const before = (await rowsOf(null)).dump;

    // Damage the first contest's rows: a lost cell, a wrong score, a stray history row.
    const { table } = await rowsOf(first.contestId);
    await db.pool.query(sql.unsafe`DELETE FROM ${table('cells')} WHERE ctid = (SELECT ctid FROM ${table('cells')} WHERE contest_id = ${first.contestId} LIMIT 1)`);
    await db.pool.query(sql.unsafe`UPDATE ${table('entries')} SET score = 0, status = 'reject' WHERE contest_id = ${first.contestId}`);
    await db.pool.query(sql.unsafe`INSERT INTO ${table('history')} VALUES (999999, ${first.contestId}, 1, 1, 5)`);
    expect((await rowsOf(first.contestId)).dump).not.toEqual(folded);

    const answer = await cli(['projections', 'rebuild', 'scoreboard', '--contest', String(first.contestId)]);
    expect(answer.code).toBe(0);
    expect(answer.out).toMatch(new RegExp(`^contest ${first.contestId}: \\d+ events folded into \\d+ submissions and \\d+ scores\\n$`));
    expect(answer.progress).toContain(`contest ${first.contestId} scores`);
    expect((await rowsOf(null)).dump).toEqual(before);

    // The second contest rebuilt from the log gives what the projector gave too (with its deleted problem).
    await cli(['projections', 'rebuild', 'scoreboard', '--contest', String(second.contestId)]);
    expect((await rowsOf(null)).dump).toEqual(before);
  });

  it('the projector keeps folding afterwards, and a contest with no events ends with no rows', async () => {
    const rng = random(5);
    const late = generateContest(7, rng, { next: 10_000 }, { users: 5, submissions: 20, rejudges: 0.2 });
    await appendAll([late]);
    const folded = (await rowsOf(late.contestId)).dump;
    await cli(['projections', 'rebuild', 'scoreboard', '--contest', String(late.contestId)]);
    expect((await rowsOf(late.contestId)).dump).toEqual(folded);

    expect((await cli(['projections', 'rebuild', 'scoreboard', '--contest', '424242'])).out).toBe('contest 424242: 0 events folded into 0 submissions and 0 scores\n');
    expect((await rowsOf(424_242)).dump).toEqual({ settings: [], entries: [], cells: [], history: [] });
  });

  it('refuses a missing or malformed contest id', async () => {
    for (const args of [['scoreboard'], ['scoreboard', '--contest', 'x'], ['scoreboard', '--contest', '0'], ['problems', '--contest', '1']]) {
      await expect(cli(['projections', 'rebuild', ...args])).rejects.toThrow(UsageError);
    }
  });
});

describe('reading a contest journal from the log', () => {
  it('picks from the log the journal that whole events fold into, as of any moment, page after page', async () => {
    const contest = generateContest(11, random(32), { next: 30_000 }, { users: 8, submissions: 120, rejudges: 0.4 });
    await appendAll([contest]);
    const scope = `contest:${contest.contestId}`;
    const events = await projector.store.readScope(db.pool, scope, JOURNAL_EVENT_TYPES);
    expect(events.some((event) => event.type === 'RejudgeRequested')).toBe(true);
    const moments = [...new Set(events.map((event) => Date.parse(event.occurredAt)))].sort((a, b) => a - b);
    for (const moment of [moments[0]!, moments[Math.floor(moments.length / 3)]!, moments[Math.floor((2 * moments.length) / 3)]!, moments.at(-1)! + 1]) {
      const wanted = journalOf(events.filter((event) => Date.parse(event.occurredAt) <= moment));
      const pages: number[] = [];
      const picked = await readJournal(projector.store, db.pool, scope, { until: new Date(moment), onPage: (read) => pages.push(read), pageSize: 7 });
      expect([...picked.entries()]).toEqual([...wanted.entries()]);
      expect(pages.reduce((sum, read) => sum + read, 0)).toBe(events.filter((event) => Date.parse(event.occurredAt) <= moment).length);
    }
  });

  it('reads a page whole, upcast as usual, when an event in it is stored at another schema version than the fields are picked for', async () => {
    const contest = generateContest(12, random(38), { next: 40_000 }, { users: 8, submissions: 120, rejudges: 0.4 });
    await appendAll([contest]);
    const scope = `contest:${contest.contestId}`;
    let wholePages = 0;
    // The first judged event of the contest as if stored at another schema version than the fields are picked for.
    let relabelled = false;
    const store: EventStore = {
      ...projector.store,
      readScopeFields: async (...args) =>
        (await projector.store.readScopeFields(...args)).map((event) => {
          if (relabelled || event.type !== 'SubmissionJudged') return event;
          relabelled = true;
          return { ...event, schemaVersion: event.schemaVersion + 1, data: { renamed: true } };
        }),
      readScope: (...args) => {
        wholePages += 1;
        return projector.store.readScope(...args);
      },
    };
    const picked = await readJournal(store, db.pool, scope, { pageSize: 10 });
    expect(relabelled).toBe(true);
    expect(wholePages).toBe(1);
    expect([...picked.entries()]).toEqual([...journalOf(await projector.store.readScope(db.pool, scope, JOURNAL_EVENT_TYPES)).entries()]);
  });
});
