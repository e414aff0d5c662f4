/** Data a page opened by its URL can ask for before React has rendered the routes down to it. */
import type { QueryClient } from '@tanstack/react-query';

// index.html's head asks for this page's board early with the same pattern: change both together.
const SCOREBOARD_PATH = /^\/contest\/([1-9]\d{0,15})\/scoreboard\/?$/;

export function preloadFirstPage(queryClient: QueryClient, pathname: string): void {
  const board = SCOREBOARD_PATH.exec(pathname);
  if (board) void import('../features/contests/scoreboard/preload.ts').then((module) => module.preloadScoreboard(queryClient, Number(board[1])));
}
