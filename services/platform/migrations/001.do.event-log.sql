-- The system of record: one append-only log of every domain event.
CREATE TABLE event_log (
  gpos            bigserial   NOT NULL,
  txid            xid8        NOT NULL DEFAULT pg_current_xact_id(),
  event_id        uuid        NOT NULL,
  stream_id       text        NOT NULL,
  stream_position integer     NOT NULL CHECK (stream_position > 0),
  type            text        NOT NULL,
  schema_version  integer     NOT NULL CHECK (schema_version > 0),
  scope           text        NOT NULL,
  occurred_at     timestamptz NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  data            jsonb       NOT NULL,
  meta            jsonb       NOT NULL DEFAULT '{}',
  PRIMARY KEY (stream_id, stream_position),
  CONSTRAINT event_log_event_id_key UNIQUE (event_id)
);
-- Readers scan in (txid, gpos) order below the snapshot xmin; see eventstore/event-store.ts readAfter.
CREATE UNIQUE INDEX event_log_read_order ON event_log (txid, gpos);
CREATE INDEX event_log_scope_order ON event_log (scope, txid, gpos);

-- The log is append-only: refuse UPDATE and DELETE at the database, whoever asks.
CREATE FUNCTION event_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'event_log is append-only';
END $$;
CREATE TRIGGER event_log_append_only BEFORE UPDATE OR DELETE ON event_log
  FOR EACH ROW EXECUTE FUNCTION event_log_refuse_change();

-- One row per consumer (projection slot, relay, subscriber group) and source partition.
-- Updated compare-and-set in the same transaction as the consumer's effects; locked FOR UPDATE SKIP LOCKED.
CREATE TABLE consumer_checkpoints (
  consumer     text        NOT NULL,
  source       text        NOT NULL CHECK (source IN ('pglog', 'kafka')),
  part         text        NOT NULL,
  last_txid    xid8        NOT NULL DEFAULT '0',
  last_gpos    bigint      NOT NULL DEFAULT 0,
  kafka_offset bigint,
  status       text        NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'faulted', 'retired')),
  error        jsonb,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, source, part)
);

-- A projection's read-model slots: version N lives in tables rm_<name>_v<N>_*.
CREATE TABLE projection_slots (
  projection  text        NOT NULL,
  version     integer     NOT NULL CHECK (version > 0),
  state       text        NOT NULL CHECK (state IN ('building', 'live', 'retired')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  live_since  timestamptz,
  PRIMARY KEY (projection, version)
);
-- At most one live slot per projection: the one the API reads.
CREATE UNIQUE INDEX projection_slots_one_live ON projection_slots (projection) WHERE state = 'live';
