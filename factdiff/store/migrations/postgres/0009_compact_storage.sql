-- factdiff store, schema version 9: compact warm and cold tiers.
-- store_identities: the identities a warm entry was made with (schema, extractor,
--   summarizer, method; one canonical JSON object, kind 'profile'), stored once and
--   referenced by warm rows (identity_ref).
-- zstd_dictionaries: zstd dictionaries trained per agent from its own entries (versioned,
--   with the SHA-256 of their bytes and the ids of the entries they were trained on, packed).
-- warm_entries: narrative, record and meta become bytes; `encoding` 0 is the text of old
--   rows, 1 the compact form (factdiff.store.compact): narrative and record are zstd frames
--   made with `dictionary_id`, the meta keeps the identities by reference and the source
--   facts digest as 32 bytes. `factdiff migrate` re-encodes old rows (resumable).
-- cold_archive: codec 'zstd' (a plain frame, or one made with `dictionary_id`) besides 'zlib';
--   its content hash as 32 bytes (SQLite rows written before keep their text).
-- attempts and events: `packed` holds a new attempt's diff and summary, or a new event's
--   payload, as a zstd frame of their canonical JSON (their text columns are then empty;
--   events stay append-only: older events keep their JSON text).
-- warm_index: hashes as their 32 bytes, narrative keys as 64-bit integers (rows written
--   before keep their text, as bytes; both forms are read).

CREATE TABLE store_identities (
    id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind  text NOT NULL,
    value text NOT NULL,
    UNIQUE (kind, value)
);

CREATE TABLE zstd_dictionaries (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id   text COLLATE "C" NOT NULL,
    version    integer NOT NULL,
    hash       bytea NOT NULL,
    data       bytea NOT NULL,
    trained_on bytea NOT NULL,
    created_at bigint NOT NULL,
    UNIQUE (agent_id, version)
);

ALTER TABLE warm_entries ALTER COLUMN narrative TYPE bytea USING convert_to(narrative, 'UTF8');
ALTER TABLE warm_entries ALTER COLUMN record TYPE bytea USING convert_to(record, 'UTF8');
ALTER TABLE warm_entries ALTER COLUMN meta TYPE bytea USING convert_to(meta, 'UTF8');
ALTER TABLE warm_entries ADD COLUMN encoding integer NOT NULL DEFAULT 0;
ALTER TABLE warm_entries ADD COLUMN dictionary_id bigint REFERENCES zstd_dictionaries (id);
ALTER TABLE warm_entries ADD COLUMN identity_ref bigint REFERENCES store_identities (id);
ALTER TABLE warm_entries ADD COLUMN facts_digest bytea;

CREATE INDEX warm_entries_dictionary ON warm_entries (dictionary_id)
    WHERE dictionary_id IS NOT NULL;

ALTER TABLE cold_archive DROP CONSTRAINT cold_archive_codec_check;
ALTER TABLE cold_archive ADD CONSTRAINT cold_archive_codec_check
    CHECK (codec IN ('zlib', 'zstd'));
ALTER TABLE cold_archive ADD COLUMN dictionary_id bigint REFERENCES zstd_dictionaries (id);
ALTER TABLE cold_archive ALTER COLUMN content_hash TYPE bytea
    USING decode(substr(content_hash, 8), 'hex');

CREATE INDEX cold_archive_dictionary ON cold_archive (dictionary_id)
    WHERE dictionary_id IS NOT NULL;

ALTER TABLE attempts ADD COLUMN packed bytea;

ALTER TABLE events ADD COLUMN packed bytea;

ALTER TABLE warm_index ALTER COLUMN narrative_hash TYPE bytea
    USING convert_to(narrative_hash, 'UTF8');
ALTER TABLE warm_index ALTER COLUMN record_hash TYPE bytea USING convert_to(record_hash, 'UTF8');
ALTER TABLE warm_index ALTER COLUMN narrative_keys TYPE bytea
    USING convert_to(narrative_keys, 'UTF8');
