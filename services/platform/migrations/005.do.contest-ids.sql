-- Contest ids, taken when an admin creates a contest (like problem and announcement ids).
CREATE SEQUENCE contest_ids AS integer;
