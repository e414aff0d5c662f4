/**
 * A scoreboard opened by its URL (a bookmark, a reload, a shared link) asks for the board while the app is
 * still starting: the data and the page's chunks load side by side instead of one after another (app →
 * contest section → contest layout → its data → scoreboard chunk → board).
 */
import type { QueryClient } from '@tanstack/react-query';
import { contestContract } from '@otog/schemas/api/contest';
import { apiQuery } from '../../../lib/query.ts';
import { boardQuery } from './board-query.ts';

export function preloadScoreboard(queryClient: QueryClient, contestId: number): void {
  const params = { params: { contestId } };
  void import('../ContestLayout.tsx');
  void import('./ScoreboardPage.tsx');
  // The same keys the pages read, so they find the answers waiting.
  void queryClient.prefetchQuery(apiQuery(contestContract.getContestDetail, params));
  void queryClient.prefetchQuery(apiQuery(contestContract.getContest, params));
  void queryClient.prefetchQuery(boardQuery(contestId));
}
