/** The board's read, shared by the page and the preload at boot so both use one key and one check. */
import { queryOptions } from '@tanstack/react-query';
import { contestContract, parseScoreboardChanges, parseScoreboardColumns } from '@otog/schemas/api/contest';
import { ApiError, callApi, etagOf } from '../../../lib/api.ts';
import { apiKey } from '../../../lib/query.ts';
import { applyBoardChanges, shownBoardOf, type ShownBoard } from './board.ts';

/**
 * The live board (no `at`) or the board as it stood at `at` with the verdicts known then. The live board,
 * read again (a scoreboard notice, the room joined, the poll), asks what changed since the board it has: a
 * live update reads the rows that changed and every rank, not 1 MB of board, and keeps the rows that did not
 * change. When the server cannot tell (it no longer knows that board, new problems), the board is read whole.
 */
export function boardQuery(contestId: number, at: string | null = null) {
  const params = { contestId };
  const query = at ? { at, judged: 'then' as const } : {};
  return queryOptions<ShownBoard>({
    queryKey: apiKey(contestContract.getContestScoreboardColumns, { params, query }),
    queryFn: async ({ signal, client, queryKey }) => {
      const previous = at === null ? client.getQueryData<ShownBoard>(queryKey) : undefined;
      if (previous?.etag) {
        // A refusal is the whole read's to give (an API node without the route during an upgrade answers 404).
        const answer = await callApi(contestContract.getContestScoreboardChanges, { params, query: { since: previous.etag }, signal }, { parse: parseScoreboardChanges }).catch((error: unknown) => {
          if (error instanceof ApiError) return null;
          throw error;
        });
        if (answer?.etag === previous.etag) return previous;
        const changed = answer?.changes && applyBoardChanges(previous, answer.changes, answer.etag);
        if (changed) return changed;
      }
      const columns = await callApi(contestContract.getContestScoreboardColumns, { params, query, signal }, { parse: parseScoreboardColumns });
      return shownBoardOf(columns, at === null ? (etagOf(columns) ?? null) : null);
    },
    // The rows are new where they changed and the same objects where not: comparing 10,000 rows again buys nothing.
    structuralSharing: false,
  });
}

/** Every board of the contest, live and replayed: what a scoreboard notice or a reveal makes stale. */
export const boardsOf = (contestId: number) => apiKey(contestContract.getContestScoreboardColumns, { params: { contestId } }).slice(0, 3);
