-- factdiff store on PostgreSQL, schema version 11: fewer rows and index entries per warm entry.
-- warm_index moves into warm_entries: its narrative hash, record hash and narrative keys
--   become three nullable columns of the warm row (NULL: not indexed yet), so a warm entry
--   no longer costs a second heap tuple, a second primary key entry and a second entry id.
-- events_type and events_at are dropped: every event paid two index entries for them, and the
--   listings they served (by type, by time) read the events in id order anyway; by entry and
--   by agent stay indexed.
-- Packed attempts and event payloads written from now on are primed frames
--   (factdiff.store.frames); the plain zstd frames written before stay as they are.

ALTER TABLE warm_entries ADD COLUMN narrative_hash bytea,
    ADD COLUMN record_hash bytea,
    ADD COLUMN narrative_keys bytea;

UPDATE warm_entries AS w
SET narrative_hash = h.narrative_hash, record_hash = h.record_hash,
    narrative_keys = h.narrative_keys
FROM warm_index AS h
WHERE h.entry_id = w.entry_id;

DROP TABLE warm_index;

DROP INDEX events_type;

DROP INDEX events_at;
