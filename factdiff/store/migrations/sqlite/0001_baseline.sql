-- factdiff store on SQLite, schema version 1: the baseline of factdiff 0.1.
-- Every table, index, view and trigger of a new store, written once here; a later change
-- of the schema is a migration numbered after it (NNNN_name.sql), never an edit of it.
-- A store made before this baseline is refused when opened (factdiff.store.migrate).

CREATE TABLE factdiff_migrations (
    version INTEGER PRIMARY KEY,
    name    TEXT NOT NULL
);

CREATE TABLE entries (
    id              TEXT PRIMARY KEY,
    agent_id        TEXT NOT NULL,
    tier            TEXT NOT NULL DEFAULT 'hot' CHECK (tier IN ('hot', 'warm')),
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'review')),
    occurred_at     INTEGER,
    created_at      INTEGER NOT NULL,
    last_used_at    INTEGER NOT NULL,
    metadata        TEXT NOT NULL DEFAULT '{}',
    schema_name     TEXT,
    tags            TEXT NOT NULL DEFAULT '[]',
    content_hash    TEXT NOT NULL,
    size_bytes      INTEGER NOT NULL CHECK (size_bytes >= 0),
    attempt_count   INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    next_attempt_at INTEGER,
    lease_token     TEXT,
    lease_owner     TEXT,
    lease_expires_at INTEGER,
    occurred_offset INTEGER,
    error_attempts  INTEGER NOT NULL DEFAULT 0,
    error_streak    INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX entries_agent ON entries (agent_id, id);
CREATE INDEX entries_tier_status ON entries (tier, status, id);
CREATE INDEX entries_due ON entries (last_used_at, id)
    WHERE tier = 'hot' AND status = 'active';
CREATE INDEX entries_due_agent ON entries (agent_id, last_used_at, id)
    WHERE tier = 'hot' AND status = 'active';

CREATE UNIQUE INDEX entries_lease ON entries (lease_token)
    WHERE lease_token IS NOT NULL;

CREATE TABLE hot_content (
    entry_id TEXT PRIMARY KEY REFERENCES entries (id),
    content  BLOB NOT NULL
);

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

CREATE TABLE warm_entries (
    entry_id       TEXT PRIMARY KEY REFERENCES entries (id),
    narrative      BLOB NOT NULL,
    record         BLOB NOT NULL,
    meta           BLOB NOT NULL,
    attempt_no     INTEGER NOT NULL,
    compressed_at  INTEGER NOT NULL,
    encoding       INTEGER NOT NULL DEFAULT 0,
    dictionary_id  INTEGER REFERENCES zstd_dictionaries (id),
    identity_ref   INTEGER REFERENCES store_identities (id),
    facts_digest   BLOB,
    narrative_hash BLOB,
    record_hash    BLOB,
    narrative_keys BLOB,
    source_codec   TEXT NOT NULL CHECK (source_codec = 'zstd'),
    source_dictionary_id INTEGER REFERENCES zstd_dictionaries (id),
    source         BLOB NOT NULL
);

CREATE TABLE attempts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id       TEXT NOT NULL,
    attempt_no     INTEGER NOT NULL CHECK (attempt_no >= 1),
    rung           INTEGER NOT NULL,
    budget_words   INTEGER,
    outcome        TEXT NOT NULL
        CHECK (outcome IN ('clean', 'acceptable_with_notes', 'failed', 'error')),
    diff           TEXT NOT NULL,
    summary        TEXT NOT NULL,
    started_at     INTEGER NOT NULL,
    finished_at    INTEGER NOT NULL,
    duration_ms    REAL NOT NULL,
    tokens_in      INTEGER,
    tokens_out     INTEGER,
    cost_usd       TEXT,
    error          TEXT,
    schema_hash    TEXT,
    failure_class  TEXT,
    must_keep      TEXT,
    packed         BLOB,
    identity_ref   INTEGER NOT NULL REFERENCES store_identities (id),
    UNIQUE (entry_id, attempt_no)
);

CREATE INDEX attempts_losses ON attempts (id)
    WHERE outcome IN ('failed', 'acceptable_with_notes');

-- Every attempt with its identities (a store_identities row of kind 'attempt').
CREATE VIEW attempt_rows AS
SELECT a.id, a.entry_id, a.attempt_no, a.rung,
       json_extract(i.value, '$[0]') AS summarizer,
       json_extract(i.value, '$[1]') AS extractor,
       json_extract(i.value, '$[2]') AS method_version,
       a.budget_words, a.outcome, a.diff, a.summary, a.started_at, a.finished_at,
       a.duration_ms, a.tokens_in, a.tokens_out, a.cost_usd, a.error,
       json_extract(i.value, '$[3]') AS schema_name,
       json_extract(i.value, '$[4]') AS schema_version,
       a.schema_hash, a.failure_class, a.must_keep, a.packed
FROM attempts AS a
JOIN store_identities AS i ON i.id = a.identity_ref;

-- A row holds one event, or two of one write (then_type: ids id - 1 and id).
CREATE TABLE events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    type     TEXT NOT NULL,
    entry_id TEXT,
    agent_id TEXT,
    at       INTEGER NOT NULL,
    payload  TEXT NOT NULL,
    packed   BLOB,
    then_type    TEXT,
    then_payload TEXT,
    then_packed  BLOB
);

CREATE INDEX events_entry ON events (entry_id, id);
CREATE INDEX events_agent ON events (agent_id, id);

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

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TABLE schemas (
    name          TEXT NOT NULL,
    version       INTEGER NOT NULL,
    hash          TEXT NOT NULL,
    definition    TEXT NOT NULL,
    source_text   TEXT,
    registered_at INTEGER NOT NULL,
    PRIMARY KEY (name, version)
);

CREATE TABLE agent_schemas (
    agent_id    TEXT NOT NULL,
    tag         TEXT NOT NULL DEFAULT '',
    schema_name TEXT NOT NULL,
    PRIMARY KEY (agent_id, tag)
);

CREATE TABLE extraction_cache (
    content_hash TEXT NOT NULL,
    schema_hash  TEXT NOT NULL,
    extractor_id TEXT NOT NULL,
    record       TEXT NOT NULL,
    PRIMARY KEY (content_hash, schema_hash, extractor_id)
);

CREATE TABLE model_calls (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id    TEXT NOT NULL,
    attempt_no  INTEGER NOT NULL,
    role        TEXT NOT NULL,
    model       TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    http_calls  INTEGER NOT NULL,
    tokens_in   INTEGER,
    tokens_out  INTEGER,
    cost_usd    TEXT,
    duration_ms REAL NOT NULL,
    at          INTEGER NOT NULL
);

CREATE INDEX model_calls_entry ON model_calls (entry_id, attempt_no);
CREATE INDEX model_calls_model ON model_calls (model, role);

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

CREATE TABLE fact_pending (
    entry_id TEXT PRIMARY KEY REFERENCES entries (id)
);

CREATE TABLE source_fetches (
    entry_id TEXT NOT NULL REFERENCES entries (id),
    at       INTEGER NOT NULL
);

CREATE INDEX source_fetches_entry ON source_fetches (entry_id, at);

CREATE TABLE attestations (
    decision_id   TEXT NOT NULL,
    rendered_hash TEXT NOT NULL,
    digest        TEXT NOT NULL,
    attested_at   INTEGER NOT NULL,
    agent_id      TEXT NOT NULL,
    PRIMARY KEY (decision_id, agent_id)
);

CREATE TABLE attestation_entries (
    decision_id    TEXT NOT NULL,
    position       INTEGER NOT NULL,
    entry_id       TEXT NOT NULL,
    tier           TEXT NOT NULL,
    schema_name    TEXT,
    schema_version INTEGER,
    source_hash    TEXT NOT NULL,
    rendered_hash  TEXT NOT NULL,
    agent_id       TEXT NOT NULL,
    PRIMARY KEY (decision_id, agent_id, position),
    FOREIGN KEY (decision_id, agent_id) REFERENCES attestations (decision_id, agent_id)
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

CREATE TABLE reevaluations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id         TEXT NOT NULL REFERENCES entries (id),
    agent_id         TEXT NOT NULL,
    schema_name      TEXT NOT NULL,
    from_version     INTEGER NOT NULL,
    to_version       INTEGER NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    result           TEXT CHECK (result IN ('promoted', 'annotated', 'clean', 'skipped')),
    fields           TEXT NOT NULL DEFAULT '[]',
    diff             TEXT,
    enqueued_at      INTEGER NOT NULL,
    finished_at      INTEGER,
    lease_token      TEXT,
    lease_owner      TEXT,
    lease_expires_at INTEGER,
    UNIQUE (entry_id, schema_name, to_version)
);

CREATE INDEX reevaluations_pending ON reevaluations (id) WHERE status = 'pending';
CREATE INDEX reevaluations_schema ON reevaluations (schema_name, to_version, status);
CREATE INDEX reevaluations_agent ON reevaluations (agent_id, status);
CREATE UNIQUE INDEX reevaluations_lease ON reevaluations (lease_token)
    WHERE lease_token IS NOT NULL;

CREATE TABLE tombstones (
    entry_id     TEXT PRIMARY KEY,
    agent_id     TEXT NOT NULL,
    tier         TEXT NOT NULL,
    erased_at    INTEGER NOT NULL,
    reason       TEXT NOT NULL,
    content_hash TEXT NOT NULL
);

CREATE INDEX tombstones_agent ON tombstones (agent_id, entry_id);
CREATE INDEX tombstones_content ON tombstones (content_hash);

CREATE TABLE erasure_pending (
    entry_id TEXT PRIMARY KEY
);

CREATE TABLE api_keys (
    name       TEXT PRIMARY KEY,
    scope      TEXT NOT NULL CHECK (scope IN ('agent', 'operator')),
    agent_id   TEXT,
    key_hash   TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    CHECK ((scope = 'agent') = (agent_id IS NOT NULL))
);

CREATE TABLE kept_hot (
    entry_id TEXT PRIMARY KEY REFERENCES entries (id),
    kept_at  INTEGER NOT NULL,
    key_name TEXT NOT NULL,
    reason   TEXT NOT NULL
);

CREATE TABLE ui_sessions (
    token_hash TEXT PRIMARY KEY,
    key_name   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    ended_at   INTEGER
);

CREATE INDEX ui_sessions_expiry ON ui_sessions (expires_at);
