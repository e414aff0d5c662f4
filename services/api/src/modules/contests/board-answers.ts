/**
 * The two scoreboard answers, made from a ranked board the same way whether it is built for the cache (live
 * and frozen boards) or per request (replays): OTOG's shape and ours in columns.
 */
import { toProblem, type ContestRecord, type ProblemRecord } from '@otog/projections';
import type { Contest, Scoreboard, ScoreboardColumns, ScoreboardRow } from '@otog/schemas/api/contest';
import type { UserSummary } from '@otog/schemas/api/contract';
import { boardColumns, type BoardRow } from './scoreboard.ts';

export function toContest(record: ContestRecord): Contest {
  const { id, name, mode, gradingMode, scoreboardPolicy, timeStart, timeEnd, announce, freezeAt } = record;
  return { id, name, mode, gradingMode, scoreboardPolicy, timeStart, timeEnd, announce, freezeAt };
}

/** What a row shows of its user. */
export type BoardUser = Pick<UserSummary, 'id' | 'showName' | 'role' | 'rating'>;

/** A ranked board with everything its answers show. */
export interface RankedBoard {
  readonly contest: ContestRecord;
  /** The contest's problems, by id. */
  readonly problems: readonly ProblemRecord[];
  /** Every participant (admins too), by user id: OTOG's contest.userContest. */
  readonly everyone: readonly number[];
  /** Each rated participant's final rank and rating after the contest (empty until it is rated). */
  readonly rated: ReadonlyMap<number, { rank: number; rating: number }>;
  readonly rows: readonly ScoreboardRow[];
  /** When the board is frozen for the caller, the moment it shows (ISO); null for the live board or a replay. */
  readonly frozenAt: string | null;
}

/** OTOG's rows from ranked ones: a row whose user has no account is left out. */
export function scoreboardRows(
  contestId: number,
  ranked: readonly BoardRow[],
  users: ReadonlyMap<number, BoardUser>,
  rated: ReadonlyMap<number, { rating: number }>,
): ScoreboardRow[] {
  return ranked.flatMap((row) => {
    const user = users.get(row.userId);
    if (!user) return [];
    return [
      {
        userId: row.userId,
        contestId,
        rank: row.rank,
        ratingAfterUpdate: rated.get(row.userId)?.rating ?? null,
        user: { id: user.id, showName: user.showName, role: user.role, rating: user.rating },
        contestScores: [...row.cells],
        totalScore: row.totalScore,
        maxPenalty: row.maxPenalty,
      },
    ];
  });
}

/** GET /contest/:id/scoreboard (OTOG's shape: every field OTOG's client reads, with its types). */
export function otogScoreboard(board: RankedBoard): Scoreboard {
  const { contest, rated } = board;
  return {
    contest: {
      ...toContest(contest),
      // Final ranks and ratings once the contest is rated (OTOG's userContest), null before.
      userContest: board.everyone.map((userId) => ({
        userId,
        contestId: contest.id,
        rank: rated.get(userId)?.rank ?? null,
        ratingAfterUpdate: rated.get(userId)?.rating ?? null,
      })),
      contestProblem: board.problems.map((problem) => ({ contestId: contest.id, problemId: problem.id, problem: toProblem(problem) })),
    },
    userContest: [...board.rows],
    frozenAt: board.frozenAt,
  };
}

/** GET /contest/:id/scoreboard/columns [ours]: the same board in columns. */
export function columnsScoreboard(board: RankedBoard): ScoreboardColumns {
  return { contest: toContest(board.contest), frozenAt: board.frozenAt, ...boardColumns(board.rows, board.problems) };
}
