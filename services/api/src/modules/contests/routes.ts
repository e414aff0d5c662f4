/**
 * The contest routes of spec section 7 (OTOG research §3.7): contests and their problems from the contests
 * read model, scores from the contest-scores read model, writes through the contest decider. Who sees what
 * and when is decided by contest-access.ts; frozen and replayed boards are folded by scoreboard.ts.
 */
import type { FastifyInstance } from 'fastify';
import {
  announcementQueries,
  createContestQueries,
  createContestScoreQueries,
  createProblemQueries,
  createRatingQueries,
  toProblem,
  type ContestRecord,
  type ProblemRecord,
} from '@otog/projections';
import { JOURNAL_EVENT_TYPES, judgedEntries, journalOf, scoreCells, type JournalEntry, type JournalRecord } from '@otog/projections/contest-scores/rules/journal';
import { LOG_START } from '@otog/platform/eventstore/position';
import { awardPrizes } from '@otog/projections/contest-scores/rules/prizes';
import {
  contestContract as contract,
  type Contest,
  type ContestInput,
  type ContestPatch,
  type ProblemScoreHistory,
  type ScoreboardQuery,
  type ScoreboardRow,
} from '@otog/schemas/api/contest';
import { contestStateAt } from '@otog/schemas/common/contest';
import type { ContestSettings } from '@otog/schemas/events';
import { caller, isAdmin, type AuthUser } from '../../http/access.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { HIDDEN_PROBLEM_MESSAGE } from '../problems/visibility.ts';
import { findAccount, summariesOf } from '../users/accounts.ts';
import { boardOpenTo, frozenAtFor, NOT_STARTED_MESSAGE, replayOpenTo, SCOREBOARD_HIDDEN_MESSAGE, startedFor, timesOf } from './contest-access.ts';
import { handleContest, nextContestId } from './contest-commands.ts';
import { contestScope, type ContestState } from './contest-decider.ts';
import { existingContest } from './contest-lookup.ts';
import { boardColumns, rankBoard } from './scoreboard.ts';

const PROBLEM_NOT_FOUND = 'Problem not found';
/** Events read per page when a replay folds a contest's log. */
const REPLAY_PAGE = 5_000;

export function toContest(record: ContestRecord): Contest {
  const { id, name, mode, gradingMode, scoreboardPolicy, timeStart, timeEnd, announce, freezeAt } = record;
  return { id, name, mode, gradingMode, scoreboardPolicy, timeStart, timeEnd, announce, freezeAt };
}

const stateToContest = (contestId: number, state: ContestState): Contest => ({ id: contestId, ...state!.settings });

/** The settings a body carries (absent fields stay absent; the decider checks and canonicalises them). */
function settingsOf(body: ContestPatch): Partial<ContestSettings> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as Partial<ContestSettings>;
}

function newSettings(body: ContestInput): ContestSettings {
  return { announce: null, freezeAt: null, ...settingsOf(body) } as ContestSettings;
}

export async function contestsRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const contests = createContestQueries(deps.pool);
  const scores = createContestScoreQueries(deps.pool);
  const ratings = createRatingQueries(deps.pool);
  const problems = createProblemQueries(deps.pool);
  const announcements = announcementQueries(deps.pool);
  const found = (contestId: number) => existingContest(deps.pool, contestId);

  /** The contest's problems as full rows, by id. */
  const problemsOf = async (contestId: number): Promise<ProblemRecord[]> => problems.findMany((await contests.problems(contestId)).map((problem) => problem.id));

  const scoringSettings = async (contest: ContestRecord, journal: readonly JournalEntry[]) => ({
    gradingMode: contest.gradingMode,
    contestStart: Date.parse(contest.timeStart),
    problemScores: await scores.problemScores([...new Set(journal.map((entry) => entry.problemId))]),
  });

  /** The judged journal as it stood at `until`: today's verdicts of the submissions made by then, or the verdicts known then. */
  const journalAt = async (contestId: number, until: number, judged: 'then' | 'now'): Promise<JournalEntry[]> => {
    if (judged === 'now') return scores.judged(contestId, { until });
    const journal = new Map<number, JournalRecord>();
    for (let after = LOG_START; ; ) {
      const page = await deps.store.readScope(deps.pool, contestScope(contestId), JOURNAL_EVENT_TYPES, { after, until: new Date(until), limit: REPLAY_PAGE });
      journalOf(page, journal);
      if (page.length < REPLAY_PAGE) return judgedEntries(journal.values());
      after = page[page.length - 1]!;
    }
  };

  /** The rows of the board: live, frozen at a moment (later submissions pending) or replayed as of a moment. */
  const boardRows = async (
    contest: ContestRecord,
    problemIds: ReadonlySet<number>,
    view: { kind: 'live' } | { kind: 'frozen'; at: number } | { kind: 'replay'; at: number; judged: 'then' | 'now' },
    /** Each rated participant's rating after the contest (empty until it is rated). */
    rated: ReadonlyMap<number, { rating: number }>,
  ): Promise<ScoreboardRow[]> => {
    const participants = await contests.participants(contest.id, { usersOnly: true, ...(view.kind === 'replay' ? { joinedBy: new Date(view.at) } : {}) });
    let cells: Parameters<typeof rankBoard>[2];
    let pending = new Map<string, number>();
    if (view.kind === 'live') {
      cells = await scores.cells(contest.id);
    } else {
      const journal = await journalAt(contest.id, view.at, view.kind === 'frozen' ? 'now' : view.judged);
      cells = scoreCells(journal, await scoringSettings(contest, journal));
      if (view.kind === 'frozen') {
        pending = new Map((await scores.madeAfter(contest.id, view.at)).map((row) => [`${row.userId}:${row.problemId}`, row.count]));
      }
    }
    const users = await summariesOf(deps.pool, participants);
    return rankBoard(contest.gradingMode, participants, cells, problemIds, pending).flatMap((row) => {
      const user = users.get(row.userId);
      if (!user) return [];
      return [
        {
          userId: row.userId,
          contestId: contest.id,
          rank: row.rank,
          ratingAfterUpdate: rated.get(row.userId)?.rating ?? null,
          user: { id: user.id, showName: user.showName, role: user.role, rating: user.rating },
          contestScores: [...row.cells],
          totalScore: row.totalScore,
          maxPenalty: row.maxPenalty,
        },
      ];
    });
  };

  /** A user's scores with their histories: live, or as they stood at a freeze. */
  const scoreHistory = async (contest: ContestRecord, userId: number, frozenAt: number | null): Promise<ProblemScoreHistory[]> => {
    const rows = await scores.history(contest.id, userId);
    const submission = new Map(rows.map((row) => [row.submissionId, row]));
    const cells =
      frozenAt === null
        ? (await scores.cells(contest.id, userId)).map((cell) => ({ ...cell, history: rows.filter((row) => row.problemId === cell.problemId) }))
        : await (async () => {
            const journal = await scores.judged(contest.id, { until: frozenAt, userId });
            return scoreCells(journal, await scoringSettings(contest, journal));
          })();
    return cells.map((cell) => ({
      id: cell.id,
      contestId: contest.id,
      userId,
      problemId: cell.problemId,
      score: cell.score,
      latestSubmission: cell.latestSubmission,
      contestScoreHistory: cell.history.flatMap(({ submissionId, score }) => {
        const row = submission.get(submissionId);
        if (!row) return [];
        const result = row.resultScore === null ? null : { score: row.resultScore, subtaskResults: row.subtasks ?? [] };
        return [{ contestScoreId: cell.id, submissionId, score, submission: { creationDate: row.creationDate, submissionResult: result } }];
      }),
    }));
  };

  const boardRefusal = (contest: ContestRecord, user: AuthUser | null, now: number) => {
    if (!boardOpenTo(timesOf(contest), isAdmin(user), now)) throw forbidden(SCOREBOARD_HIDDEN_MESSAGE);
  };

  serve(app, contract.listContest, async (request) => {
    const { limit, skip, search } = request.query;
    const { data, total } = await contests.list({ search, limit, skip });
    return { data: data.map(toContest), total };
  });

  serve(app, contract.getCurrentContests, async () => (await contests.current(new Date())).map(toContest));

  serve(app, contract.getContest, async (request) => toContest(await found(request.params.contestId)));

  serve(app, contract.getContestDetail, async (request) => {
    const contest = await found(request.params.contestId);
    if (!startedFor(timesOf(contest), isAdmin(request.auth), Date.now())) throw forbidden(NOT_STARTED_MESSAGE);
    const [contestProblems, contestAnnouncements] = await Promise.all([
      contests.problems(contest.id),
      announcements.list({ contestId: contest.id, shownOnly: false }),
    ]);
    return {
      ...toContest(contest),
      contestProblem: contestProblems.map(({ id, name, score }) => ({ problem: { id, name, score } })),
      _count: { announcements: contestAnnouncements.length },
    };
  });

  serve(app, contract.getContestProblem, async (request) => {
    const { contestId, problemId } = request.params;
    const contest = await found(contestId);
    if (!startedFor(timesOf(contest), isAdmin(request.auth), Date.now())) throw forbidden(NOT_STARTED_MESSAGE);
    const problem = (await contests.hasProblem(contestId, problemId)) ? await problems.find(problemId) : null;
    if (!problem) throw notFound(PROBLEM_NOT_FOUND);
    // A hidden problem is the contest's while it runs; once it is over, it is as hidden as any other.
    if (!problem.show && !isAdmin(request.auth) && contestStateAt(timesOf(contest), Date.now()) === 'FINISHED') throw forbidden(HIDDEN_PROBLEM_MESSAGE);
    return toProblem(problem);
  });

  serve(app, contract.getUserContestScores, async (request) => {
    const contest = await found(request.params.contestId);
    if (!request.auth) return [];
    const problemIds = new Set((await contests.problems(contest.id)).map((problem) => problem.id));
    return (await scores.cells(contest.id, request.auth.id))
      .filter((cell) => problemIds.has(cell.problemId))
      .map(({ problemId, score, penalty }) => ({ problemId, score, penalty }));
  });

  serve(app, contract.getUserContestScoreHistory, async (request) => {
    const { contestId, userId } = request.params;
    const contest = await found(contestId);
    const now = Date.now();
    // A contestant always sees their own scores, as /contest/:id/score shows them.
    const own = request.auth?.id === userId;
    if (!own) boardRefusal(contest, request.auth, now);
    return scoreHistory(contest, userId, own ? null : frozenAtFor(timesOf(contest), isAdmin(request.auth), now));
  });

  /** The board the caller may see: refused under the policy (403); live, frozen for them, or a replay they may see. */
  const visibleBoard = async (contestId: number, auth: AuthUser | null, { at, judged }: ScoreboardQuery) => {
    const contest = await found(contestId);
    const admin = isAdmin(auth);
    const now = Date.now();
    boardRefusal(contest, auth, now);
    const times = timesOf(contest);
    const frozenAt = frozenAtFor(times, admin, now);
    let view: Parameters<typeof boardRows>[2];
    if (at !== undefined) {
      const moment = Date.parse(at);
      if (!replayOpenTo(times, admin, moment, now)) throw forbidden(SCOREBOARD_HIDDEN_MESSAGE);
      view = { kind: 'replay', at: moment, judged };
    } else {
      view = frozenAt === null ? { kind: 'live' } : { kind: 'frozen', at: frozenAt };
    }
    const [contestProblems, rated] = await Promise.all([problemsOf(contest.id), ratings.contestResults(contest.id)]);
    const rows = await boardRows(contest, new Set(contestProblems.map((problem) => problem.id)), view, rated);
    return { contest, contestProblems, rated, rows, frozenAt: view.kind === 'frozen' ? new Date(view.at).toISOString() : null };
  };

  serve(app, contract.getContestScoreboard, async (request) => {
    const { contest, contestProblems, rated, rows, frozenAt } = await visibleBoard(request.params.contestId, request.auth, request.query);
    const everyone = await contests.participants(contest.id, { usersOnly: false });
    return {
      contest: {
        ...toContest(contest),
        // Final ranks and ratings once the contest is rated (OTOG's userContest), null before.
        userContest: everyone.map((userId) => ({
          userId,
          contestId: contest.id,
          rank: rated.get(userId)?.rank ?? null,
          ratingAfterUpdate: rated.get(userId)?.rating ?? null,
        })),
        contestProblem: contestProblems.map((problem) => ({ contestId: contest.id, problemId: problem.id, problem: toProblem(problem) })),
      },
      userContest: rows,
      frozenAt,
    };
  });

  serve(app, contract.getContestScoreboardColumns, async (request) => {
    const { contest, contestProblems, rows, frozenAt } = await visibleBoard(request.params.contestId, request.auth, request.query);
    return { contest: toContest(contest), frozenAt, ...boardColumns(rows, contestProblems) };
  });

  serve(app, contract.getContestPrize, async (request) => {
    const contest = await found(request.params.contestId);
    const now = Date.now();
    boardRefusal(contest, request.auth, now);
    const frozenAt = frozenAtFor(timesOf(contest), isAdmin(request.auth), now);
    const [accepted, contestants, contestProblems] = await Promise.all([
      scores.judged(contest.id, { acceptedOnly: true, ...(frozenAt === null ? {} : { until: frozenAt }) }),
      contests.participants(contest.id, { usersOnly: true }),
      contests.problems(contest.id),
    ]);
    const users = new Set(contestants);
    const problemIds = new Set(contestProblems.map((problem) => problem.id));
    const prizes = awardPrizes(accepted.filter((entry) => users.has(entry.userId) && problemIds.has(entry.problemId)));
    const names = await summariesOf(deps.pool, [...new Set([...prizes.firstBlood, ...prizes.oneManSolve].map((prize) => prize.userId))]);
    const present = (winners: typeof prizes.firstBlood) =>
      winners.map(({ submissionId, problemId, userId }) => {
        const user = names.get(userId);
        return { id: submissionId, problem: { id: problemId }, user: user ? { id: user.id, showName: user.showName } : null };
      });
    return { firstBlood: present(prizes.firstBlood), oneManSolve: present(prizes.oneManSolve) };
  });

  serve(app, contract.createContest, async (request) => {
    const contestId = await nextContestId(deps);
    const { after } = await handleContest(deps, caller(request).id, { kind: 'create', contestId, settings: newSettings(request.body) });
    return stateToContest(contestId, after);
  });

  // PUT carries every setting (an omitted announce or freezeAt stays), PATCH some: both merge into the current ones.
  for (const route of [contract.updateContest, contract.patchContest]) {
    serve(app, route, async (request) => {
      const { contestId } = request.params;
      const { after } = await handleContest(deps, caller(request).id, { kind: 'edit', contestId, changes: settingsOf(request.body) });
      return stateToContest(contestId, after);
    });
  }

  serve(app, contract.deleteContest, async (request) => {
    const { contestId } = request.params;
    const { before } = await handleContest(deps, caller(request).id, { kind: 'delete', contestId });
    return stateToContest(contestId, before);
  });

  serve(app, contract.toggleProblemToContest, async (request) => {
    const { contestId, problemId } = request.params;
    const { show } = request.body;
    const actor = caller(request).id;
    if (show) {
      if (!(await problems.find(problemId))) throw notFound(PROBLEM_NOT_FOUND);
      await handleContest(deps, actor, { kind: 'addProblems', contestId, problemIds: [problemId] });
    } else {
      await handleContest(deps, actor, { kind: 'removeProblem', contestId, problemId });
    }
    return { show };
  });

  serve(app, contract.putProblemToContest, async (request) => {
    const { contestId } = request.params;
    const problemIds = [...new Set(request.body.map((item) => item.problemId))];
    const existing = new Set((await problems.findMany(problemIds)).map((problem) => problem.id));
    const missing = problemIds.filter((problemId) => !existing.has(problemId));
    if (missing.length > 0) throw badRequest(`No such problem: ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', ...' : ''}`);
    await handleContest(deps, caller(request).id, { kind: 'addProblems', contestId, problemIds });
    return {};
  });

  serve(app, contract.contestSignUp, async (request) => {
    const { contestId } = request.params;
    const { userId } = request.body;
    if (!(await findAccount(deps.pool, { id: userId }))) throw notFound('User not found');
    await handleContest(deps, caller(request).id, { kind: 'signUp', contestId, userId });
    return { userId, contestId, rank: null, ratingAfterUpdate: null };
  });

  serve(app, contract.revealScoreboard, async (request) => {
    const { contestId } = request.params;
    const { after } = await handleContest(deps, caller(request).id, { kind: 'reveal', contestId });
    return stateToContest(contestId, after);
  });

  serve(app, contract.getContestsForAdmin, async (request) => {
    const { limit, skip, search } = request.query;
    const { data, total } = await contests.list({ search, limit, skip });
    return { data: data.map(toContest), total };
  });

  serve(app, contract.getContestForAdmin, async (request) => {
    const contest = await found(request.params.contestId);
    const contestProblems = (await problemsOf(contest.id)).reverse();
    return {
      ...toContest(contest),
      contestProblem: contestProblems.map((problem) => ({ contestId: contest.id, problemId: problem.id, problem: toProblem(problem) })),
    };
  });
}
