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
    id    INTEGER PRIMARY KEY,
    kind  TEXT NOT NULL,
    value TEXT NOT NULL,
    UNIQUE (kind, value)
);

CREATE TABLE zstd_dictionaries (
    id         INTEGER PRIMARY KEY,
    agent_id   TEXT NOT NULL,
    version    INTEGER NOT NULL,
    hash       BLOB NOT NULL,
    data       BLOB NOT NULL,
    trained_on BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (agent_id, version)
);

CREATE TABLE warm_entries_v9 (
    entry_id       TEXT PRIMARY KEY REFERENCES entries (id),
    narrative      BLOB NOT NULL,
    record         BLOB NOT NULL,
    meta           BLOB NOT NULL,
    attempt_no     INTEGER NOT NULL,
    compressed_at  INTEGER NOT NULL,
    encoding       INTEGER NOT NULL DEFAULT 0,
    dictionary_id  INTEGER REFERENCES zstd_dictionaries (id),
    identity_ref   INTEGER REFERENCES store_identities (id),
    facts_digest   BLOB
);

INSERT INTO warm_entries_v9 (entry_id, narrative, record, meta, attempt_no, compressed_at)
SELECT entry_id, narrative, CAST(record AS BLOB), CAST(meta AS BLOB), attempt_no, compressed_at
FROM warm_entries;

DROP TABLE warm_entries;

ALTER TABLE warm_entries_v9 RENAME TO warm_entries;

CREATE INDEX warm_entries_dictionary ON warm_entries (dictionary_id)
    WHERE dictionary_id IS NOT NULL;

CREATE TABLE cold_archive_v9 (
    entry_id      TEXT PRIMARY KEY REFERENCES entries (id),
    codec         TEXT NOT NULL CHECK (codec IN ('zlib', 'zstd')),
    data          BLOB NOT NULL,
    content_hash  BLOB NOT NULL,
    size_bytes    INTEGER NOT NULL,
    archived_at   INTEGER NOT NULL,
    dictionary_id INTEGER REFERENCES zstd_dictionaries (id)
);

INSERT INTO cold_archive_v9 (entry_id, codec, data, content_hash, size_bytes, archived_at)
SELECT entry_id, codec, data, content_hash, size_bytes, archived_at FROM cold_archive;

DROP TABLE cold_archive;

ALTER TABLE cold_archive_v9 RENAME TO cold_archive;

CREATE INDEX cold_archive_dictionary ON cold_archive (dictionary_id)
    WHERE dictionary_id IS NOT NULL;

ALTER TABLE attempts ADD COLUMN packed BLOB;

ALTER TABLE events ADD COLUMN packed BLOB;

CREATE TABLE warm_index_v9 (
    entry_id       TEXT PRIMARY KEY REFERENCES entries (id),
    narrative_hash BLOB NOT NULL,
    record_hash    BLOB NOT NULL,
    narrative_keys BLOB NOT NULL
);

INSERT INTO warm_index_v9 SELECT entry_id, narrative_hash, record_hash, narrative_keys
FROM warm_index;

DROP TABLE warm_index;

ALTER TABLE warm_index_v9 RENAME TO warm_index;
