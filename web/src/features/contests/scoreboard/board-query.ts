/** The board's read, shared by the page and the preload at boot so both use one key and one check. */
import { contestContract, parseScoreboardColumns } from '@otog/schemas/api/contest';
import { apiKey, apiQuery } from '../../../lib/query.ts';

/**
 * The live board (no `at`) or the board as it stood at `at` with the verdicts known then. The live board is
 * read conditionally: read again unchanged (a notice for something it does not show, the room joined after
 * the first read), it keeps its rows without parsing 1 MB again.
 */
export function boardQuery(contestId: number, at: string | null = null) {
  return {
    ...apiQuery(contestContract.getContestScoreboardColumns, { params: { contestId }, query: at ? { at, judged: 'then' } : {} }, { parse: parseScoreboardColumns, conditional: at === null }),
    // Every row is rebuilt from the columns anyway: comparing 10,000 rows with the last answer buys nothing,
    // and the query keeps the very answer whose ETag the next read names.
    structuralSharing: false,
  };
}

/** Every board of the contest, live and replayed: what a scoreboard notice or a reveal makes stale. */
export const boardsOf = (contestId: number) => apiKey(contestContract.getContestScoreboardColumns, { params: { contestId } }).slice(0, 3);
