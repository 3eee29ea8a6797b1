-- factdiff store on PostgreSQL, schema version 14: two events of one write, one row.
-- A write that appends events for an entry appends them in twos: a demotion's verification
--   event and its `demoted`, a failure and its escalation. Each event row paid a tuple
--   header, its id, entry, agent and time, and three index entries, for a payload of a few
--   bytes. A row may now hold a second event (then_type, then_payload, then_packed) of the
--   same entry, agent and time: its first event has id `id - 1`, its second `id`.
-- Event ids now step by 2 and start past every id given so far, so `id - 1` is never another
--   row's. Rows written before stay as they are; the listings expand rows into events, so
--   ids, order and types read as before.

ALTER TABLE events
    ADD COLUMN then_type text,
    ADD COLUMN then_payload text,
    ADD COLUMN then_packed bytea;

ALTER TABLE events ALTER COLUMN id SET INCREMENT BY 2;

SELECT setval(
    pg_get_serial_sequence('events', 'id'),
    greatest(
        coalesce((SELECT max(id) FROM events), 0),
        coalesce(pg_sequence_last_value(pg_get_serial_sequence('events', 'id')::regclass), 0)
    ) + 2,
    false
);

CREATE OR REPLACE FUNCTION factdiff_events_redaction_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM erasure_pending AS p WHERE p.entry_id = OLD.entry_id)
        AND NEW.id = OLD.id AND NEW.type = OLD.type AND NEW.entry_id = OLD.entry_id
        AND NEW.agent_id IS NOT DISTINCT FROM OLD.agent_id AND NEW.at = OLD.at
        AND (NEW.payload::jsonb -> 'redacted') = 'true'::jsonb
        AND NEW.packed IS NULL
        AND NEW.then_type IS NOT DISTINCT FROM OLD.then_type AND NEW.then_packed IS NULL
        AND ((OLD.then_type IS NULL AND NEW.then_payload IS NULL)
            OR (OLD.then_type IS NOT NULL
                AND (NEW.then_payload::jsonb -> 'redacted') = 'true'::jsonb))
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'events are append-only';
END;
$$;
