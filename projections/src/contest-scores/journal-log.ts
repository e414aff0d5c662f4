/**
 * A contest's journal read from the log in bulk, for replays as of a moment and one-contest rebuilds.
 * Only the fields the journal folds are picked in SQL: each submission's source code and each result's
 * test verdicts stay in Postgres instead of being sent, parsed and checked (reading 200,000 events this
 * way took a third to a half of the time of reading them whole). A page holding an event stored at an older
 * schema version than this code's is read whole instead, upcast as usual.
 */
import { z } from 'zod';
import { sql, type Queryable } from '@otog/platform/db/pool';
import type { EventStore, PickedEvent } from '@otog/platform/eventstore/event-store';
import { LOG_START } from '@otog/platform/eventstore/position';
import { JudgedStatusSchema } from '@otog/schemas/common/judging';
import { RejudgeRequested, SubmissionCreated, SubmissionJudged } from '@otog/schemas/events';
import { foldJournal, JOURNAL_EVENT_TYPES, journalStepOf, type JournalRecord, type JournalStep } from './rules/journal.ts';

const PAGE = 5_000;

/** The fields of each journal event's data that the journal folds, as JSON (names as in the events). */
const JOURNAL_FIELDS = sql.fragment`CASE type
  WHEN ${SubmissionJudged.type} THEN jsonb_build_object(
    'submissionId', data->'submissionId', 'judging', data->'judging', 'status', data->'status', 'score', data->'score',
    -- (a path query is three times cheaper than rebuilding the subtask objects)
    'scores', jsonb_path_query_array(data, '$.subtaskResults[*].score'),
    'fullScores', jsonb_path_query_array(data, '$.subtaskResults[*].fullScore'))
  ELSE jsonb_build_object('submissionId', data->'submissionId', 'userId', data->'userId', 'problemId', data->'problemId') END`;

/** The schema version JOURNAL_FIELDS reads, per type: this code's. */
const FIELDS_VERSION = new Map<string, number>([SubmissionCreated, RejudgeRequested, SubmissionJudged].map((definition) => [definition.type, definition.version]));

const id = z.number().int().positive();
const CreatedFields = z.object({ submissionId: id, userId: id, problemId: id });
const RejudgedFields = z.object({ submissionId: id });
const JudgedFields = z.object({
  submissionId: id,
  judging: id,
  status: JudgedStatusSchema,
  score: z.number().int().nonnegative(),
  scores: z.array(z.number().nonnegative()),
  fullScores: z.array(z.number().nonnegative()),
}).refine((fields) => fields.scores.length === fields.fullScores.length, 'every subtask has a score and a full score');

function stepOfFields(event: PickedEvent): JournalStep {
  if (event.type === SubmissionCreated.type) {
    return { kind: 'created', ...CreatedFields.parse(event.data), submittedAt: Date.parse(event.occurredAt), position: event.streamPosition };
  }
  if (event.type === RejudgeRequested.type) return { kind: 'rejudged', ...RejudgedFields.parse(event.data), position: event.streamPosition };
  const { scores, fullScores, ...judged } = JudgedFields.parse(event.data);
  return { kind: 'judged', ...judged, subtasks: scores.map((score, i) => ({ score, fullScore: fullScores[i]! })) };
}

/** The contest scope's journal, folded from its events that occurred by `until` (all when not given). */
export async function readJournal(
  store: EventStore,
  db: Queryable,
  scope: string,
  options: { readonly until?: Date; readonly onPage?: (events: number) => void; readonly pageSize?: number } = {},
): Promise<Map<number, JournalRecord>> {
  const { pageSize = PAGE } = options;
  const journal = new Map<number, JournalRecord>();
  for (let after = LOG_START; ; ) {
    const read = { after, limit: pageSize, ...(options.until ? { until: options.until } : {}) };
    const picked = await store.readScopeFields(db, scope, JOURNAL_EVENT_TYPES, JOURNAL_FIELDS, read);
    // Paged on by what was folded: the whole page may hold more events than the picked one when an append committed in between.
    const whole = picked.every((event) => FIELDS_VERSION.get(event.type) === event.schemaVersion) ? null : await store.readScope(db, scope, JOURNAL_EVENT_TYPES, read);
    foldJournal(whole ? whole.flatMap((event) => journalStepOf(event) ?? []) : picked.map(stepOfFields), journal);
    const page = whole ?? picked;
    options.onPage?.(page.length);
    if (page.length < pageSize) return journal;
    after = page[page.length - 1]!;
  }
}
