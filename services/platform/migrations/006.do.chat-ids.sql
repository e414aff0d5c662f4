-- Chat message ids, taken when a valid message is posted.
CREATE SEQUENCE chat_ids AS integer;
