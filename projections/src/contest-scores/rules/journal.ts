/**
 * A contest's journal (each contest submission with the result of its current judging) folded from its
 * events, and the cells the scoring rules give for a journal. Pure. The projection applies the same
 * rules event by event; a one-contest rebuild, frozen boards and replays apply them here in one pass.
 */
import { isEvent, type FoldableEvent } from '@otog/platform/eventstore/command';
import type { GradingMode } from '@otog/schemas/common/contest';
import type { JudgedStatus } from '@otog/schemas/common/judging';
import { RejudgeRequested, SubmissionCreated, SubmissionJudged } from '@otog/schemas/events';
import { scoreProblem, type JudgedContestSubmission } from './scoring.ts';

/** A problem's full score before its stream says otherwise (OTOG's default). */
export const DEFAULT_PROBLEM_SCORE = 100;

export interface SubtaskPoints {
  readonly score: number;
  readonly fullScore: number;
}

/** One contest submission with the result of its current judging (none yet: `waiting`). */
export interface JournalRecord {
  readonly submissionId: number;
  readonly userId: number;
  readonly problemId: number;
  /** ms */
  readonly submittedAt: number;
  /** The stream position of the request being judged: the creation, or the latest rejudge. */
  readonly judging: number;
  readonly status: 'waiting' | JudgedStatus;
  readonly score: number | null;
  readonly subtasks: readonly SubtaskPoints[] | null;
}

type JournalEvent = FoldableEvent & { readonly occurredAt: string; readonly streamPosition: number };

/** The event types a journal is folded from. */
export const JOURNAL_EVENT_TYPES: ReadonlySet<string> = new Set([SubmissionCreated.type, RejudgeRequested.type, SubmissionJudged.type]);

/**
 * What the journal takes from one event: a submission made (at its stream position), a rejudge requested
 * (at its stream position), or a judging's result. Decoded events give it (journalStepOf), and so do the
 * few fields a bulk reader picks from the log.
 */
export type JournalStep =
  | { readonly kind: 'created'; readonly submissionId: number; readonly userId: number; readonly problemId: number; readonly submittedAt: number; readonly position: number }
  | { readonly kind: 'rejudged'; readonly submissionId: number; readonly position: number }
  | { readonly kind: 'judged'; readonly submissionId: number; readonly judging: number; readonly status: JudgedStatus; readonly score: number; readonly subtasks: readonly SubtaskPoints[] };

export function journalStepOf(event: JournalEvent): JournalStep | null {
  if (isEvent(event, SubmissionCreated)) {
    const { submissionId, userId, problemId } = event.data;
    return { kind: 'created', submissionId, userId, problemId, submittedAt: Date.parse(event.occurredAt), position: event.streamPosition };
  }
  if (isEvent(event, RejudgeRequested)) return { kind: 'rejudged', submissionId: event.data.submissionId, position: event.streamPosition };
  if (isEvent(event, SubmissionJudged)) {
    const { submissionId, judging, status, score, subtaskResults } = event.data;
    return { kind: 'judged', submissionId, judging, status, score, subtasks: subtaskResults.map((subtask) => ({ score: subtask.score, fullScore: subtask.fullScore })) };
  }
  return null;
}

/**
 * Folds one contest's journal steps, in log order, into its journal (continuing `journal` when given, so a
 * long log folds page by page). A rejudge clears the result until its own judging reports; a report of an
 * older judging, or a repeated event, changes nothing.
 */
export function foldJournal(steps: Iterable<JournalStep>, journal = new Map<number, JournalRecord>()): Map<number, JournalRecord> {
  for (const step of steps) {
    const record = journal.get(step.submissionId);
    if (step.kind === 'created') {
      if (record) continue;
      const { submissionId, userId, problemId, submittedAt, position } = step;
      journal.set(submissionId, { submissionId, userId, problemId, submittedAt, judging: position, status: 'waiting', score: null, subtasks: null });
    } else if (step.kind === 'rejudged') {
      if (record && record.judging < step.position) journal.set(record.submissionId, { ...record, judging: step.position, status: 'waiting', score: null, subtasks: null });
    } else if (record && record.judging === step.judging) {
      journal.set(record.submissionId, { ...record, status: step.status, score: step.score, subtasks: step.subtasks });
    }
  }
  return journal;
}

/** foldJournal over decoded events (other types are skipped). */
export function journalOf(events: readonly JournalEvent[], journal = new Map<number, JournalRecord>()): Map<number, JournalRecord> {
  return foldJournal(
    events.flatMap((event) => journalStepOf(event) ?? []),
    journal,
  );
}

/** A judged contest submission of one user to one problem: what the scoring rules read. */
export interface JournalEntry extends JudgedContestSubmission {
  readonly userId: number;
  readonly problemId: number;
}

/** The entries the scoring rules count: accepted and rejected ones (compile and judge errors never count). */
export function judgedEntries(records: Iterable<JournalRecord>): JournalEntry[] {
  const entries: JournalEntry[] = [];
  for (const { submissionId, userId, problemId, submittedAt, status, score, subtasks } of records) {
    if (status === 'accept' || status === 'reject') entries.push({ submissionId, userId, problemId, submittedAt, status, score: score ?? 0, subtasks: subtasks ?? [] });
  }
  return entries.sort((a, b) => a.submissionId - b.submissionId);
}

/** One user's contest score on one problem (OTOG's contestScore with its penalty). */
export interface Cell {
  /** The smallest submission id of the cell's journal: the same on every replay. */
  readonly id: number;
  readonly userId: number;
  readonly problemId: number;
  readonly score: number;
  readonly penalty: number;
  /** acm: when the problem was first accepted (ms). */
  readonly solvedAt: number | null;
  /** The deciding submission, null when none decided the score. */
  readonly deciding: { readonly submissionId: number; readonly submittedAt: number } | null;
  /** The deciding submission's time (ISO): OTOG's latestSubmission. */
  readonly latestSubmission: string | null;
}

export interface ScoredCell extends Cell {
  /** The contest score right after each judged submission, in journal order. */
  readonly history: readonly { readonly submissionId: number; readonly score: number }[];
}

export interface ScoringSettings {
  readonly gradingMode: GradingMode;
  /** ms */
  readonly contestStart: number;
  /** Full scores by problem id; a problem missing here scores out of DEFAULT_PROBLEM_SCORE. */
  readonly problemScores: ReadonlyMap<number, number>;
}

/** Scores one (user, problem) journal: the cell and its history. */
export function scoreCell(journal: readonly JournalEntry[], settings: ScoringSettings): ScoredCell {
  const { userId, problemId } = journal[0]!;
  const problemScore = settings.problemScores.get(problemId) ?? DEFAULT_PROBLEM_SCORE;
  const outcome = scoreProblem(settings.gradingMode, journal, { problemScore, contestStart: settings.contestStart });
  return {
    id: Math.min(...journal.map((entry) => entry.submissionId)),
    userId,
    problemId,
    score: outcome.score,
    penalty: outcome.penalty,
    solvedAt: outcome.solvedAt,
    deciding: outcome.deciding,
    latestSubmission: outcome.deciding ? new Date(outcome.deciding.submittedAt).toISOString() : null,
    history: outcome.history,
  };
}

/** Scores every (user, problem) of a contest's judged entries. */
export function scoreCells(entries: readonly JournalEntry[], settings: ScoringSettings): ScoredCell[] {
  const byCell = new Map<string, JournalEntry[]>();
  for (const entry of entries) {
    const key = `${entry.userId}:${entry.problemId}`;
    const journal = byCell.get(key);
    if (journal) journal.push(entry);
    else byCell.set(key, [entry]);
  }
  return [...byCell.values()].map((journal) => scoreCell(journal, settings));
}
