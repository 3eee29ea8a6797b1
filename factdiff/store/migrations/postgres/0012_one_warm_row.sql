-- factdiff store on PostgreSQL, schema version 12: one row per warm entry.
-- cold_archive moves into warm_entries: the archived source, its codec and its dictionary
--   become three columns of the warm row (the source last; large sources go to TOAST as
--   before). Every read of a warm row reads its source anyway (a compact fact record keeps
--   spans, not surface text), and a warm entry no longer costs a second heap tuple, a second
--   primary key entry and a second entry id. The archive's hash, size and time repeated the
--   entry's content hash and size and the warm row's compression time: restore now checks
--   the source against the entry's content hash.
-- The two partial indexes by dictionary go: a dictionary belongs to one agent, and its users
--   are found through the agent's entries (entries_agent), in id order.
-- A cold archive without a warm row, or a warm row without one (a damaged store: verify
--   reports it), stops the upgrade.

DO $$
DECLARE
    orphans bigint;
BEGIN
    SELECT (SELECT count(*) FROM cold_archive AS c
            WHERE NOT EXISTS (SELECT 1 FROM warm_entries AS w WHERE w.entry_id = c.entry_id))
         + (SELECT count(*) FROM warm_entries AS w
            WHERE NOT EXISTS (SELECT 1 FROM cold_archive AS c WHERE c.entry_id = w.entry_id))
    INTO orphans;
    IF orphans > 0 THEN
        RAISE EXCEPTION 'schema 12: % warm rows and cold archives are unpaired; run factdiff verify with the previous factdiff version and repair those entries, then migrate', orphans;
    END IF;
END
$$;

ALTER TABLE warm_entries
    ADD COLUMN source_codec text CHECK (source_codec IN ('zlib', 'zstd')),
    ADD COLUMN source_dictionary_id bigint REFERENCES zstd_dictionaries (id),
    ADD COLUMN source bytea;

UPDATE warm_entries AS w
SET source_codec = c.codec, source = c.data, source_dictionary_id = c.dictionary_id
FROM cold_archive AS c
WHERE c.entry_id = w.entry_id;

ALTER TABLE warm_entries
    ALTER COLUMN source_codec SET NOT NULL,
    ALTER COLUMN source SET NOT NULL;

DROP TABLE cold_archive;

DROP INDEX warm_entries_dictionary;
