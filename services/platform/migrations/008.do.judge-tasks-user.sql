-- Fair judging: the queue takes one task per user in turn, so one contestant's burst (or a sleep loop
-- resubmitted ten times) cannot hold every judge. Rows queued before this column existed have no user;
-- each of them counts as a user of its own.
ALTER TABLE judge_tasks ADD COLUMN user_id integer;
UPDATE judge_tasks t SET user_id = (e.data->>'userId')::int
FROM event_log e
WHERE t.state <> 'done' AND e.stream_id = 'submission-' || t.submission_id AND e.stream_position = 1 AND e.type = 'SubmissionCreated';
