/**
 * The live and frozen scoreboards of a contest, built once per version of what they show instead of once per
 * request, and kept as ready JSON (compressed once per encoding) with an ETag.
 *
 * - Version: boardVersion (the board's projections' checkpoint rows and the accounts' change counter). A
 *   build reads it and the board in one REPEATABLE READ snapshot, so a kept board is exactly its version.
 * - Freshness: every request reads the version on arrival. It is answered by the kept board when that is of
 *   its version, else by a build that surely sees everything it saw: the running build when that build's
 *   version is the same, else the next build, started when the running one ends (a build that starts after
 *   the request read its version sees at least that). So a request never gets a board older than the one
 *   it would have built itself, and concurrent requests share builds: at most one runs per board, and every
 *   request that arrives meanwhile waits for the same next one.
 * - Changes: each view logs which users' rows every columns answer made for it changed (board-changes.ts),
 *   so a reader that names the answer it has gets those rows and every rank, not the board again. A node's
 *   log knows only the answers that node made (two nodes may name one board differently): a reader sent to
 *   a node that never made the answer it has reads the board whole.
 * - Who may see which board (the policy, frozen or live) is decided per request before the cache is asked;
 *   the cache only keeps content, per contest and view (live, or frozen at a moment).
 * - Memory: the boards of the `boards` views used last are kept (least recently used dropped). One kept
 *   board of 10,000 contestants × 10 problems is ~15 MB: the ranked rows (5.5 MB of heap) and the answers
 *   made of them (OTOG's 4.7 MB and the columns' 1.1 MB of JSON; brotli and gzip of both, 0.5 MB, once
 *   asked for); while its next build runs, that board and the last answers are held beside it. A view's log
 *   holds its newest columns (to compare the next with) and, per answer, the users it changed; a build keeps
 *   4 MB of changes answers, each at most half a board's rows (a few KB for a verdict's update).
 */
import { sql, type DatabasePool, type Queryable } from '@otog/platform/db/pool';
import { createContestQueries, createContestScoreQueries, type ContestRecord } from '@otog/projections';
import { boardCells, boardParticipants, boardResults, boardVersion, type CellColumns } from '@otog/projections/contest-scores/board.queries';
import { scoreCells, type JournalEntry } from '@otog/projections/contest-scores/rules/journal';
import { findProblems } from '@otog/projections/problems/problems.queries';
import { answerOf, createByteCache, weakEtag, type ReadyAnswer } from '../../http/cached-answer.ts';
import type { ScoreboardChanges, ScoreboardColumns } from '@otog/schemas/api/contest';
import { columnsScoreboard, otogScoreboard, scoreboardRows, type BoardUser, type RankedBoard } from './board-answers.ts';
import { boardChanges, createChangeLog, type ChangeLog } from './board-changes.ts';
import { rankBoard } from './scoreboard.ts';

/** The boards the cache keeps: live, or frozen at a moment (ms). Replays are built per request. */
export type KeptView = { readonly kind: 'live' } | { readonly kind: 'frozen'; readonly at: number };
export type BoardShape = 'otog' | 'columns';

/** What the scoring rules need besides a journal: the contest's mode and start, and the problems' full scores. */
export async function scoringSettings(db: Queryable, contest: ContestRecord, journal: readonly JournalEntry[]) {
  return {
    gradingMode: contest.gradingMode,
    contestStart: Date.parse(contest.timeStart),
    problemScores: await createContestScoreQueries(db).problemScores([...new Set(journal.map((entry) => entry.problemId))]),
  };
}

/** The cells as the ranking reads them. */
function cellRows(columns: CellColumns) {
  return columns.userId.map((userId, index) => ({
    userId,
    problemId: columns.problemId[index]!,
    score: columns.score[index]!,
    penalty: columns.penalty[index]!,
    solvedAt: columns.solvedAt[index] ?? null,
  }));
}

/**
 * The board of a view as one snapshot shows it, with the snapshot's version; null when the contest is gone.
 * A frozen board ranks the cells the rules give for the submissions made by the freeze (with their current
 * verdicts), and counts each user's later submissions per problem as pending.
 */
export async function buildBoard(
  pool: DatabasePool,
  contestId: number,
  view: KeptView,
  /** Told the version as soon as the snapshot has read it. */
  onVersion?: (version: string) => void,
): Promise<{ version: string; board: RankedBoard } | null> {
  return pool.transaction(async (tx) => {
    await tx.query(sql.unsafe`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`);
    const version = await boardVersion(tx);
    onVersion?.(version);
    const contests = createContestQueries(tx);
    const contest = await contests.find(contestId);
    if (!contest) return null;
    const problems = await findProblems(tx, (await contests.problems(contestId)).map((problem) => problem.id));
    const people = await boardParticipants(tx, contestId);
    const rated = await boardResults(tx, contestId);
    // Admins take part but are never ranked.
    const users = new Map<number, BoardUser>();
    people.userId.forEach((id, index) => {
      const showName = people.showName[index];
      if (people.role[index] === 'user' && showName != null) users.set(id, { id, showName, role: 'user', rating: people.rating[index] ?? null });
    });
    let cells: Parameters<typeof rankBoard>[2];
    let pending = new Map<string, number>();
    if (view.kind === 'live') {
      cells = cellRows(await boardCells(tx, contestId));
    } else {
      const scores = createContestScoreQueries(tx);
      const journal = await scores.judged(contestId, { until: view.at });
      cells = scoreCells(journal, await scoringSettings(tx, contest, journal));
      pending = new Map((await scores.madeAfter(contestId, view.at)).map((row) => [`${row.userId}:${row.problemId}`, row.count]));
    }
    const ranked = rankBoard(contest.gradingMode, [...users.keys()], cells, new Set(problems.map((problem) => problem.id)), pending);
    const board: RankedBoard = {
      contest,
      problems,
      everyone: people.userId,
      rated,
      rows: scoreboardRows(contestId, ranked, users, rated),
      frozenAt: view.kind === 'frozen' ? new Date(view.at).toISOString() : null,
    };
    return { version, board };
  });
}

/** A built board and the answers made of it so far. */
interface Built {
  readonly version: string;
  answer(shape: BoardShape): ReadyAnswer;
  /** What changed since the columns answer named `since` (ScoreboardChanges), as an answer. */
  changes(since: string): ReadyAnswer;
}

/** What a view keeps across its builds. */
interface ViewHistory {
  /** The newest answer made per shape. */
  readonly last: Map<BoardShape, ReadyAnswer>;
  /** The columns answers made, with what each changed. */
  readonly log: ChangeLog;
}

/** Columns answers a view's change log reaches back over: a minute of live updates at a few per second. */
const LOGGED_ANSWERS = 256;
/** Bytes of changes answers a build keeps, by `since` (its readers have the board before it, now and then an older one). */
const KEPT_CHANGES_BYTES = 4 * 1024 * 1024;

const newHistory = (): ViewHistory => ({ last: new Map(), log: createChangeLog(LOGGED_ANSWERS) });

/**
 * `history.last` holds the newest answer made per shape for this view: a build whose JSON is the same bytes
 * (its version moved for something the board does not show) hands that one out again, with its ETag (a 304
 * for a client that has it) and the compressed forms already made.
 */
function built(contestId: number, view: KeptView, version: string, board: RankedBoard, history: ViewHistory): Built {
  const answers = new Map<BoardShape, ReadyAnswer>();
  let columnsMade: ScoreboardColumns | undefined;
  const columns = () => (columnsMade ??= columnsScoreboard(board));
  /** Changes answers by `since`, for the ETags the log knows (what readers of this view can have). */
  const changeAnswers = createByteCache<ReadyAnswer>(KEPT_CHANGES_BYTES, (kept) => kept.json.length);
  const answer = (shape: BoardShape): ReadyAnswer => {
    let made = answers.get(shape);
    if (!made) {
      // The answers are built to the contract's shapes by board-answers.ts; tests check them against it.
      const json = Buffer.from(JSON.stringify(shape === 'columns' ? columns() : otogScoreboard(board)));
      const previous = history.last.get(shape);
      made = previous?.json.equals(json) ? previous : answerOf(weakEtag('scoreboard', shape, String(contestId), viewKeyOf(view), version), json, 'once');
      answers.set(shape, made);
      history.last.set(shape, made);
      if (shape === 'columns') history.log.record(made.etag, columns());
    }
    return made;
  };
  return {
    version,
    answer,
    changes(since) {
      const now = answer('columns');
      const kept = changeAnswers.get(since);
      if (kept) return kept;
      const users = since === now.etag ? null : history.log.changedBetween(since, now.etag);
      // With half the rows changed, the whole board (one answer for every reader, made already) is as cheap to read.
      const body: ScoreboardChanges = { etag: now.etag, changes: users && users.size * 2 <= columns().userId.length ? boardChanges(columns(), users) : null };
      const made = answerOf(weakEtag('scoreboard-changes', String(contestId), viewKeyOf(view), now.etag, since), Buffer.from(JSON.stringify(body)), 'once');
      // Only a `since` the log knows is kept (a caller could name any), the ones asked for last first.
      if (users !== null || since === now.etag) changeAnswers.set(since, made);
      return made;
    },
  };
}

const viewKeyOf = (view: KeptView) => (view.kind === 'live' ? 'live' : `frozen@${view.at}`);

export class ContestGoneError extends Error {}

interface Running {
  /** Requests whose version read ended by this tick are surely covered by this build. */
  readonly startTick: number;
  /** Its snapshot's version, once read. */
  known: string | undefined;
  /** Settles when the version is read (or the build failed before). */
  readonly versionRead: Promise<void>;
  done: Promise<Built>;
}

interface Slot {
  kept: Built | null;
  readonly history: ViewHistory;
  running: Running | null;
  /** The build that starts when the running one ends, shared by every request waiting for it. */
  next: Promise<Built> | null;
}

export type BoardCache = ReturnType<typeof createBoardCache>;

/** Keeps the `boards` views used last (0: none, every request builds its own). */
export function createBoardCache(pool: DatabasePool, options: { boards: number }) {
  const slots = new Map<string, Slot>();
  let tick = 0;

  const build = async (contestId: number, view: KeptView, history: ViewHistory, onVersion?: (version: string) => void): Promise<Built> => {
    const read = await buildBoard(pool, contestId, view, onVersion);
    if (!read) throw new ContestGoneError(`contest ${contestId} is gone`);
    return built(contestId, view, read.version, read.board, history);
  };

  const start = (slot: Slot, contestId: number, view: KeptView): Running => {
    let versionRead!: () => void;
    const running: Running = {
      startTick: tick,
      known: undefined,
      versionRead: new Promise<void>((resolve) => (versionRead = resolve)),
      done: Promise.resolve(null as never),
    };
    running.done = build(contestId, view, slot.history, (version) => {
      running.known = version;
      versionRead();
    })
      .then((board) => {
        slot.kept = board;
        return board;
      })
      .finally(() => {
        versionRead();
        if (slot.running === running) slot.running = null;
      });
    slot.running = running;
    return running;
  };

  /** A board at least as new as `observed` (read by `ticket`). */
  const cover = async (slot: Slot, contestId: number, view: KeptView, ticket: number, observed: string): Promise<Built> => {
    if (slot.kept?.version === observed) return slot.kept;
    const running = slot.running;
    if (!running || running.startTick >= ticket) return (running ?? start(slot, contestId, view)).done;
    if (running.known === undefined) {
      await running.versionRead;
      // Failed before its snapshot: its error is the answer.
      if (running.known === undefined) return running.done;
      return cover(slot, contestId, view, ticket, observed);
    }
    if (running.known === observed) return running.done;
    // The running build's snapshot may be older than what this request saw: the next build starts after it.
    slot.next ??= running.done
      .then(
        () => {},
        () => {},
      )
      .then(() => {
        slot.next = null;
        return (slot.running ?? start(slot, contestId, view)).done;
      });
    return slot.next;
  };

  /** A contest's kept view, no older than the version read on arrival. */
  const current = async (contestId: number, view: KeptView): Promise<Built> => {
    const observed = await boardVersion(pool);
    tick += 1;
    const ticket = tick;
    if (options.boards <= 0) return build(contestId, view, newHistory());
    const key = `${contestId}:${viewKeyOf(view)}`;
    let slot = slots.get(key);
    if (slot) slots.delete(key);
    slot ??= { kept: null, history: newHistory(), running: null, next: null };
    // Most recently used last; the oldest dropped beyond the bound (its waiters still get their board).
    slots.set(key, slot);
    while (slots.size > options.boards) slots.delete(slots.keys().next().value!);
    return cover(slot, contestId, view, ticket, observed);
  };

  return {
    /** The answer of a contest's kept view, no older than the version read on arrival. */
    answer: async (contestId: number, view: KeptView, shape: BoardShape): Promise<ReadyAnswer> => (await current(contestId, view)).answer(shape),
    /** What that view changed since the columns answer named `since` (ScoreboardChanges). */
    changes: async (contestId: number, view: KeptView, since: string): Promise<ReadyAnswer> => (await current(contestId, view)).changes(since),
  };
}
