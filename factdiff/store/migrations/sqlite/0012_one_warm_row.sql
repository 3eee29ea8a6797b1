-- factdiff store, schema version 12: one row per warm entry.
-- cold_archive moves into warm_entries: the archived source, its codec and its dictionary
--   become three columns of the warm row (the source last, so reading a warm row's other
--   columns does not read it). Every read of a warm row reads its source anyway (a compact
--   fact record keeps spans, not surface text), and a warm entry no longer costs a second
--   row, a second primary key entry and a second entry id. The archive's hash, size and
--   time repeated the entry's content hash and size and the warm row's compression time:
--   restore now checks the source against the entry's content hash.
-- The two partial indexes by dictionary go: a dictionary belongs to one agent, and its users
--   are found through the agent's entries (entries_agent), in id order.
-- A cold archive without a warm row, or a warm row without one (a damaged store: verify
--   reports it), stops the upgrade.

CREATE TEMP TABLE migration_0012_guard (orphans INTEGER NOT NULL);

CREATE TEMP TRIGGER migration_0012_orphans BEFORE INSERT ON migration_0012_guard
WHEN NEW.orphans > 0
BEGIN
    SELECT RAISE(ABORT, 'schema 12: some warm rows and cold archives are unpaired; run factdiff verify with the previous factdiff version and repair those entries, then migrate');
END;

INSERT INTO migration_0012_guard (orphans)
SELECT (SELECT count(*) FROM cold_archive AS c
        WHERE NOT EXISTS (SELECT 1 FROM warm_entries AS w WHERE w.entry_id = c.entry_id))
     + (SELECT count(*) FROM warm_entries AS w
        WHERE NOT EXISTS (SELECT 1 FROM cold_archive AS c WHERE c.entry_id = w.entry_id));

DROP TABLE migration_0012_guard;

ALTER TABLE warm_entries ADD COLUMN source_codec TEXT CHECK (source_codec IN ('zlib', 'zstd'));

ALTER TABLE warm_entries ADD COLUMN source_dictionary_id INTEGER REFERENCES zstd_dictionaries (id);

ALTER TABLE warm_entries ADD COLUMN source BLOB;

UPDATE warm_entries
SET source_codec = c.codec, source = c.data, source_dictionary_id = c.dictionary_id
FROM cold_archive AS c
WHERE c.entry_id = warm_entries.entry_id;

DROP TABLE cold_archive;

DROP INDEX warm_entries_dictionary;
