-- A counter moved by every change of what other reads show of an account (its names and role), in the
-- changing transaction: a cache of such reads (a contest's scoreboard) is keyed by it. The accounts table is
-- written by commands directly, not folded from the log, so no projection checkpoint covers it.
--
-- Moved by a statement trigger, so a statement that changes many rows moves it once; the row is locked
-- from the change until the transaction ends, which serialises concurrent account changes for that long
-- (registrations and renames, rare and short). Password, avatar and timestamp updates leave it alone.
CREATE TABLE accounts_version (
  one      boolean PRIMARY KEY DEFAULT true CHECK (one),
  version  bigint  NOT NULL
);
INSERT INTO accounts_version (version) VALUES (0);

CREATE FUNCTION accounts_version_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE accounts_version SET version = version + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER accounts_version_insert_delete AFTER INSERT OR DELETE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION accounts_version_move();
CREATE TRIGGER accounts_version_update AFTER UPDATE OF username, show_name, role ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION accounts_version_move();
