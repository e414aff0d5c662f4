/**
 * A finished contest's final ranking as the ratings read it: the scoreboard's own rules (each cell from its
 * journal, only the contest's current problems counted, ties sharing a competition rank), over the
 * scoreboard's participants (role-user members: signed up or submitted). Pure.
 */
import type { GradingMode } from '@otog/schemas/common/contest';
import { scoreCells, type JournalEntry } from '../../contest-scores/rules/journal.ts';
import { rankContestants } from '../../contest-scores/rules/ranking.ts';
import type { Standing } from './elo-mmr.ts';

export interface FinishedContest {
  readonly gradingMode: GradingMode;
  /** ms */
  readonly contestStart: number;
  readonly problemIds: ReadonlySet<number>;
  readonly problemScores: ReadonlyMap<number, number>;
  /** Role-user members, each once. */
  readonly participants: readonly number[];
  /** Judged entries of the contest, in submission order. */
  readonly entries: readonly JournalEntry[];
}

export function finalStandings(contest: FinishedContest): Standing[] {
  const members = new Set(contest.participants);
  const counted = contest.entries.filter((entry) => members.has(entry.userId) && contest.problemIds.has(entry.problemId));
  const cells = scoreCells(counted, { gradingMode: contest.gradingMode, contestStart: contest.contestStart, problemScores: contest.problemScores });
  const cellsOf = new Map<number, Array<(typeof cells)[number]>>([...members].map((userId) => [userId, []]));
  for (const cell of cells) cellsOf.get(cell.userId)!.push(cell);
  return rankContestants(
    contest.gradingMode,
    [...cellsOf].map(([userId, own]) => ({ userId, cells: own })),
  ).map(({ userId, rank }) => ({ userId, rank }));
}
