-- factdiff store, schema version 14: two events of one write, one row.
-- A write that appends events for an entry appends them in twos: a demotion's verification
--   event and its `demoted`, a failure and its escalation. Each event row paid its own id,
--   entry, agent, time and three index entries for a payload of a few bytes. A row may now
--   hold a second event (then_type, then_payload, then_packed) of the same entry, agent and
--   time: its first event has id `id - 1`, its second `id`. A row is given such an id
--   (`max(id) + 2`), so `id - 1` is never another row's. Rows written before stay as they
--   are; the listings expand rows into events, so ids, order and types read as before.

ALTER TABLE events ADD COLUMN then_type TEXT;
ALTER TABLE events ADD COLUMN then_payload TEXT;
ALTER TABLE events ADD COLUMN then_packed BLOB;

DROP TRIGGER events_no_update;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
WHEN NOT EXISTS (SELECT 1 FROM erasure_pending AS p WHERE p.entry_id = OLD.entry_id)
    OR NEW.id IS NOT OLD.id OR NEW.type IS NOT OLD.type
    OR NEW.entry_id IS NOT OLD.entry_id OR NEW.agent_id IS NOT OLD.agent_id
    OR NEW.at IS NOT OLD.at OR json_extract(NEW.payload, '$.redacted') IS NOT 1
    OR NEW.packed IS NOT NULL
    OR NEW.then_type IS NOT OLD.then_type OR NEW.then_packed IS NOT NULL
    OR CASE WHEN OLD.then_type IS NULL THEN NEW.then_payload IS NOT NULL
            ELSE json_extract(NEW.then_payload, '$.redacted') IS NOT 1 END
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
