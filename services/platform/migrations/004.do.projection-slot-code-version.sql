-- A slot's number (`version`: its generation, in the names of its rm_<name>_v<N>_* tables and of its
-- projection:<name>:v<N> checkpoint) is no longer the version of the code that folds it: an operator rebuild
-- makes a new generation with the same code, so the code version is kept apart. A node folds only slots of
-- its own code version, so a rolling deploy never folds new logic into old tables or old logic into new ones. The column keeps its name `version` so that nodes still on the
-- previous code go on reading this table during a rolling deploy.
ALTER TABLE projection_slots
  ADD COLUMN code_version integer CHECK (code_version > 0),
  -- The slot's physical tables, recorded when it is made: a retired slot is dropped later, perhaps by code
  -- whose definition has other tables.
  ADD COLUMN tables text[] NOT NULL DEFAULT '{}',
  -- Retiring keeps the tables (readers that looked the slot up just before the cutover still read them);
  -- they are dropped once it has been retired for a grace period.
  ADD COLUMN retired_at timestamptz;

-- Until now slots were numbered by code version, except those of an operator rebuild (numbered above it):
-- an install that rebuilt a projection before this migration should rebuild it once more after it.
-- A slot's tables are those named with its prefix, unless they belong to another projection whose name
-- extends this one's (`a` and `a_v1_b`).
UPDATE projection_slots s
SET code_version = s.version,
    retired_at = CASE WHEN s.state = 'retired' THEN now() END,
    tables = ARRAY(
      SELECT c.relname::text FROM pg_class c
      WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace
        AND left(c.relname, length(format('rm_%s_v%s_', s.projection, s.version))) = format('rm_%s_v%s_', s.projection, s.version)
        AND NOT EXISTS (
          SELECT 1 FROM projection_slots o
          WHERE length(o.projection) > length(s.projection)
            AND left(c.relname, length(format('rm_%s_v%s_', o.projection, o.version))) = format('rm_%s_v%s_', o.projection, o.version))
      ORDER BY 1);

ALTER TABLE projection_slots ALTER COLUMN code_version SET NOT NULL;
