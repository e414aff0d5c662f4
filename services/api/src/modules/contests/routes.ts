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
import { judgedEntries, scoreCells, type JournalEntry } from '@otog/projections/contest-scores/rules/journal';
import { readJournal } from '@otog/projections/contest-scores/journal-log';
import { awardPrizes } from '@otog/projections/contest-scores/rules/prizes';
import {
  contestContract as contract,
  type Contest,
  type ContestInput,
  type ContestPatch,
  type ProblemScoreHistory,
  type ScoreboardQuery,
} from '@otog/schemas/api/contest';
import { contestStateAt } from '@otog/schemas/common/contest';
import type { ContestSettings } from '@otog/schemas/events';
import { caller, isAdmin, type AuthUser } from '../../http/access.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import { sendCachedAnswer, type ReadyAnswer } from '../../http/cached-answer.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { HIDDEN_PROBLEM_MESSAGE } from '../problems/visibility.ts';
import { findAccount, summariesOf } from '../users/accounts.ts';
import { boardOpenTo, frozenAtFor, NOT_STARTED_MESSAGE, replayOpenTo, SCOREBOARD_HIDDEN_MESSAGE, startedFor, timesOf } from './contest-access.ts';
import { handleContest, nextContestId } from './contest-commands.ts';
import { contestScope, type ContestState } from './contest-decider.ts';
import { CONTEST_NOT_FOUND, existingContest } from './contest-lookup.ts';
import { columnsScoreboard, otogScoreboard, scoreboardRows, toContest, type RankedBoard } from './board-answers.ts';
import { ContestGoneError, createBoardCache, scoringSettings as scoringSettingsOf, type KeptView } from './board-cache.ts';
import { rankBoard } from './scoreboard.ts';

const PROBLEM_NOT_FOUND = 'Problem not found';

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

  const boards = createBoardCache(deps.pool, { boards: deps.settings.scoreboardCacheSize });

  /** The contest's problems as full rows, by id. */
  const problemsOf = async (contestId: number): Promise<ProblemRecord[]> => problems.findMany((await contests.problems(contestId)).map((problem) => problem.id));

  const scoringSettings = (contest: ContestRecord, journal: readonly JournalEntry[]) => scoringSettingsOf(deps.pool, contest, journal);

  /** The judged journal as it stood at `until`: today's verdicts of the submissions made by then, or the verdicts known then. */
  const journalAt = async (contestId: number, until: number, judged: 'then' | 'now'): Promise<JournalEntry[]> => {
    if (judged === 'now') return scores.judged(contestId, { until });
    return judgedEntries((await readJournal(deps.store, deps.pool, contestScope(contestId), { until: new Date(until) })).values());
  };

  /** A replay of the board as of a moment (the live and frozen boards are kept by the board cache). */
  const replayedBoard = async (contest: ContestRecord, at: number, judged: 'then' | 'now'): Promise<RankedBoard> => {
    const [contestProblems, rated, participants, everyone] = await Promise.all([
      problemsOf(contest.id),
      ratings.contestResults(contest.id),
      contests.participants(contest.id, { usersOnly: true, joinedBy: new Date(at) }),
      contests.participants(contest.id, { usersOnly: false }),
    ]);
    const journal = await journalAt(contest.id, at, judged);
    const cells = scoreCells(journal, await scoringSettings(contest, journal));
    const users = await summariesOf(deps.pool, participants);
    const ranked = rankBoard(contest.gradingMode, participants, cells, new Set(contestProblems.map((problem) => problem.id)));
    return { contest, problems: contestProblems, everyone, rated, rows: scoreboardRows(contest.id, ranked, users, rated), frozenAt: null };
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

  /** The board the caller may see without `at`: live, or frozen for them. */
  const keptViewFor = (contest: ContestRecord, auth: AuthUser | null, now: number): KeptView => {
    const frozenAt = frozenAtFor(timesOf(contest), isAdmin(auth), now);
    return frozenAt === null ? { kind: 'live' } : { kind: 'frozen', at: frozenAt };
  };

  /**
   * The board the caller may see: refused under the policy (403); a replay they may see (built per request),
   * or the live board or the one frozen for them (kept by the board cache, which only keeps content: the
   * policy is decided here, per request, before it is asked).
   */
  const visibleBoard = async (
    contestId: number,
    auth: AuthUser | null,
    { at, judged }: ScoreboardQuery,
  ): Promise<{ kind: 'replay'; board: RankedBoard } | { kind: 'kept'; contestId: number; view: KeptView }> => {
    const contest = await found(contestId);
    const admin = isAdmin(auth);
    const now = Date.now();
    boardRefusal(contest, auth, now);
    const times = timesOf(contest);
    if (at !== undefined) {
      const moment = Date.parse(at);
      if (!replayOpenTo(times, admin, moment, now)) throw forbidden(SCOREBOARD_HIDDEN_MESSAGE);
      return { kind: 'replay', board: await replayedBoard(contest, moment, judged) };
    }
    return { kind: 'kept', contestId: contest.id, view: keptViewFor(contest, auth, now) };
  };

  const keptAnswer = async (answer: Promise<ReadyAnswer>) => {
    try {
      return await answer;
    } catch (error) {
      // Deleted between the policy check and the build.
      if (error instanceof ContestGoneError) throw notFound(CONTEST_NOT_FOUND);
      throw error;
    }
  };

  serve(app, contract.getContestScoreboard, async (request, reply) => {
    const visible = await visibleBoard(request.params.contestId, request.auth, request.query);
    if (visible.kind === 'replay') return otogScoreboard(visible.board);
    return sendCachedAnswer(request, reply, await keptAnswer(boards.answer(visible.contestId, visible.view, 'otog')));
  });

  serve(app, contract.getContestScoreboardColumns, async (request, reply) => {
    const visible = await visibleBoard(request.params.contestId, request.auth, request.query);
    if (visible.kind === 'replay') return columnsScoreboard(visible.board);
    return sendCachedAnswer(request, reply, await keptAnswer(boards.answer(visible.contestId, visible.view, 'columns')));
  });

  serve(app, contract.getContestScoreboardChanges, async (request, reply) => {
    const contest = await found(request.params.contestId);
    const now = Date.now();
    boardRefusal(contest, request.auth, now);
    const view = keptViewFor(contest, request.auth, now);
    return sendCachedAnswer(request, reply, await keptAnswer(boards.changes(contest.id, view, request.query.since)));
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
