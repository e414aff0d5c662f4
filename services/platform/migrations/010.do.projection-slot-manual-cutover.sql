-- A slot an operator rebuilt to look at before switching (`projections rebuild --no-cutover`): the runners
-- that fold it leave it building once it has caught up, and only an explicit cutover makes it live. Read
-- only while the slot is building (listSlots).
ALTER TABLE projection_slots ADD COLUMN manual_cutover boolean NOT NULL DEFAULT false;
