-- A task waits until the judge's problem read model has folded the problem as it was when the judging was
-- asked for: the new test data an admin uploads before a rejudge, the new limits before a problem rejudge.
-- The read model folds apart from the judge-task reactor, each at its own pace, so without this a task
-- could be leased with the package it replaces. The problem stream's position of the last judge-relevant
-- event (score and limits, test data) committed when the task was queued; rows queued before this column
-- existed get it here. (The request's log position now only orders the queue.)
ALTER TABLE judge_tasks ADD COLUMN problem_version integer NOT NULL DEFAULT 0;
UPDATE judge_tasks t SET problem_version = coalesce((
  SELECT max(e.stream_position) FROM event_log e
  WHERE e.stream_id = 'problem-' || t.problem_id AND e.type IN ('ProblemJudgingConfigured', 'ProblemTestdataUploaded')), 0)
WHERE t.state <> 'done';
