-- factdiff store on PostgreSQL, schema version 10: erasure (factdiff forget).
-- An erased entry's row leaves `entries`; `tombstones` keeps its id, agent, when, why and
-- content hash. Its events and attempts stay (their content redacted), so events, attempts
-- and model_calls no longer reference `entries`.
-- Events stay append-only with one audited exception: while an erasure holds its entry in
-- `erasure_pending` (inserted and removed inside the erasing transaction, so no other
-- transaction ever sees it), an event of that entry may have its payload replaced by a
-- redacted one (a JSON object with "redacted": true); its id, type, entry, agent and time never
-- change, and no event is ever deleted. A packed payload (migration 0009) is cleared by that
-- redaction: the redacted payload is JSON text.

CREATE TABLE tombstones (
    entry_id     text COLLATE "C" PRIMARY KEY,
    agent_id     text COLLATE "C" NOT NULL,
    tier         text NOT NULL,
    erased_at    bigint NOT NULL,
    reason       text NOT NULL,
    content_hash text NOT NULL
);

CREATE INDEX tombstones_agent ON tombstones (agent_id, entry_id);
CREATE INDEX tombstones_content ON tombstones (content_hash);

CREATE TABLE erasure_pending (
    entry_id text COLLATE "C" PRIMARY KEY
);

ALTER TABLE attempts DROP CONSTRAINT attempts_entry_id_fkey;
ALTER TABLE model_calls DROP CONSTRAINT model_calls_entry_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_entry_id_fkey;

CREATE FUNCTION factdiff_events_redaction_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM erasure_pending AS p WHERE p.entry_id = OLD.entry_id)
        AND NEW.id = OLD.id AND NEW.type = OLD.type AND NEW.entry_id = OLD.entry_id
        AND NEW.agent_id IS NOT DISTINCT FROM OLD.agent_id AND NEW.at = OLD.at
        AND (NEW.payload::jsonb -> 'redacted') = 'true'::jsonb
        AND NEW.packed IS NULL
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'events are append-only';
END;
$$;

DROP TRIGGER events_no_update ON events;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION factdiff_events_redaction_only();
