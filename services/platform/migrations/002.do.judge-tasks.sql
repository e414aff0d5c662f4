-- Command-side rows of judging (DESIGN.md section 7). Written by the judge-task reactor (one row per
-- submission, keyed by submission id: idempotent under redelivery) and by the internal judge API
-- (leases, attempts). Rows are kept when done: a rejudge re-queues the same row with its source.
CREATE TABLE judge_tasks (
  submission_id   integer     PRIMARY KEY CHECK (submission_id > 0),
  -- Stream position of the event that asked for this judging (SubmissionCreated = 1, or a RejudgeRequested).
  judging         integer     NOT NULL CHECK (judging > 0),
  state           text        NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'leased', 'done')),
  problem_id      integer     NOT NULL CHECK (problem_id > 0),
  language        text        NOT NULL,
  contest         boolean     NOT NULL,
  -- The SubmissionCreated event's scope: the judging events of this submission are appended with it.
  scope           text        NOT NULL,
  source_code     text        NOT NULL,
  file_name       text,
  -- Log position of the requesting event: queue order, and how far the problem read model must have
  -- folded before "this problem has no test data" is believed.
  requested_txid  xid8        NOT NULL,
  requested_gpos  bigint      NOT NULL,
  -- Leased: who holds it and until when. Done: the worker that completed it (null when the server ended it).
  lease_owner     text,
  lease_until     timestamptz,
  -- Leases taken for the current judging (reset by a rejudge).
  attempts        integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CHECK (state <> 'leased' OR (lease_owner IS NOT NULL AND lease_until IS NOT NULL))
);
-- Claiming: queued tasks in log order, and leases past their time.
CREATE INDEX judge_tasks_queued ON judge_tasks (requested_txid, requested_gpos) WHERE state = 'queued';
CREATE INDEX judge_tasks_leased ON judge_tasks (lease_until) WHERE state = 'leased';

-- Judge workers and their bearer tokens. Only the token's sha256 is stored (tokens are 256-bit random,
-- so a plain hash is enough); a revoked worker is refused at once.
CREATE TABLE judge_workers (
  name          text        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$'),
  token_sha256  bytea       NOT NULL CHECK (length(token_sha256) = 32),
  created_at    timestamptz NOT NULL DEFAULT now(),
  revoked_at    timestamptz
);
