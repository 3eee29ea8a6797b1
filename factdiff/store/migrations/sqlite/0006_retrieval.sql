-- factdiff store, schema version 6: retrieval (search, known gaps, use counts, attestations).
-- search_docs gives every entry a small integer (doc) for the two indexes:
--   search_text: FTS5 over the entry's full source text, hot or archived (contentless: the
--     text itself stays in hot_content / cold_archive; bm25 needs detail=full);
--   fact_index: one row per canonical fact key of the entry's fact record (64-bit hash).
-- hot_records keeps a hot entry's fact record (zlib of its canonical JSON; the rules
-- extraction made when it was added), so a search never re-reads a source. warm_index keeps
-- the hash of every warm narrative and fact record (`verify` names an edit made behind the
-- store's back) and the fact keys the narrative states (space-separated). source_fetches
-- counts retrievals of a warm entry's archived source (use promotes). fact_pending lists
-- the hot entries added without their facts (add_many(index_facts=False)): `factdiff index`
-- or the next search indexes them. attestations record the rendered context of a decision
-- (append-only).

CREATE TABLE search_docs (
    doc      INTEGER PRIMARY KEY,
    entry_id TEXT NOT NULL UNIQUE REFERENCES entries (id)
);

CREATE VIRTUAL TABLE search_text USING fts5 (
    source,
    content = '',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE fact_index (
    key_hash INTEGER NOT NULL,
    doc      INTEGER NOT NULL REFERENCES search_docs (doc),
    PRIMARY KEY (key_hash, doc)
) WITHOUT ROWID;

CREATE INDEX fact_index_doc ON fact_index (doc);

CREATE TABLE hot_records (
    entry_id TEXT PRIMARY KEY REFERENCES entries (id),
    record   BLOB NOT NULL
);

CREATE TABLE warm_index (
    entry_id       TEXT PRIMARY KEY REFERENCES entries (id),
    narrative_hash TEXT NOT NULL,
    record_hash    TEXT NOT NULL,
    narrative_keys TEXT NOT NULL
);

CREATE TABLE fact_pending (
    entry_id TEXT PRIMARY KEY REFERENCES entries (id)
);

CREATE TABLE source_fetches (
    entry_id TEXT NOT NULL REFERENCES entries (id),
    at       INTEGER NOT NULL
);

CREATE INDEX source_fetches_entry ON source_fetches (entry_id, at);

CREATE TABLE attestations (
    decision_id   TEXT PRIMARY KEY,
    rendered_hash TEXT NOT NULL,
    digest        TEXT NOT NULL,
    attested_at   INTEGER NOT NULL
);

CREATE TABLE attestation_entries (
    decision_id    TEXT NOT NULL REFERENCES attestations (decision_id),
    position       INTEGER NOT NULL,
    entry_id       TEXT NOT NULL,
    tier           TEXT NOT NULL,
    schema_name    TEXT,
    schema_version INTEGER,
    source_hash    TEXT NOT NULL,
    rendered_hash  TEXT NOT NULL,
    PRIMARY KEY (decision_id, position)
);

CREATE INDEX attestation_entries_entry ON attestation_entries (entry_id);

CREATE TRIGGER attestations_no_update BEFORE UPDATE ON attestations
BEGIN
    SELECT RAISE(ABORT, 'attestations are append-only');
END;

CREATE TRIGGER attestations_no_delete BEFORE DELETE ON attestations
BEGIN
    SELECT RAISE(ABORT, 'attestations are append-only');
END;

CREATE TRIGGER attestation_entries_no_update BEFORE UPDATE ON attestation_entries
BEGIN
    SELECT RAISE(ABORT, 'attestations are append-only');
END;

CREATE TRIGGER attestation_entries_no_delete BEFORE DELETE ON attestation_entries
BEGIN
    SELECT RAISE(ABORT, 'attestations are append-only');
END;
