-- factdiff store, schema version 10: erasure (factdiff forget).
-- An erased entry's row leaves `entries`; `tombstones` keeps its id, agent, when, why and
-- content hash. Its events and attempts stay (their content redacted), so events, attempts
-- and model_calls no longer reference `entries` (the tables are rebuilt without that
-- foreign key: SQLite cannot drop one in place).
-- Events stay append-only with one audited exception: while an erasure holds its entry in
-- `erasure_pending` (inserted and removed inside the erasing transaction), an event of that
-- entry may have its payload replaced by a redacted one (a JSON object with "redacted": true);
-- its id, type, entry, agent and time never change, and no event is ever deleted. A packed
-- payload (migration 0009) is cleared by that redaction: the redacted payload is JSON text.
-- The rebuilt attempts and events keep 0009's `packed` column.

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

CREATE TEMP TABLE attempts_copy AS SELECT * FROM attempts;
DROP TABLE attempts;
CREATE TABLE attempts (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id       TEXT NOT NULL,
    attempt_no     INTEGER NOT NULL CHECK (attempt_no >= 1),
    rung           INTEGER NOT NULL,
    summarizer     TEXT NOT NULL,
    extractor      TEXT NOT NULL,
    method_version TEXT NOT NULL,
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
    schema_name    TEXT,
    schema_version INTEGER,
    schema_hash    TEXT,
    failure_class  TEXT,
    must_keep      TEXT,
    packed         BLOB,
    UNIQUE (entry_id, attempt_no)
);
INSERT INTO attempts SELECT * FROM attempts_copy;
DROP TABLE attempts_copy;
CREATE INDEX attempts_outcome ON attempts (outcome, id);

CREATE TEMP TABLE model_calls_copy AS SELECT * FROM model_calls;
DROP TABLE model_calls;
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
INSERT INTO model_calls SELECT * FROM model_calls_copy;
DROP TABLE model_calls_copy;
CREATE INDEX model_calls_entry ON model_calls (entry_id, attempt_no);
CREATE INDEX model_calls_model ON model_calls (model, role);

CREATE TEMP TABLE events_copy AS SELECT * FROM events;
DROP TABLE events;
CREATE TABLE events (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    type     TEXT NOT NULL,
    entry_id TEXT,
    agent_id TEXT,
    at       INTEGER NOT NULL,
    payload  TEXT NOT NULL,
    packed   BLOB
);
INSERT INTO events SELECT * FROM events_copy;
DROP TABLE events_copy;
CREATE INDEX events_entry ON events (entry_id, id);
CREATE INDEX events_agent ON events (agent_id, id);
CREATE INDEX events_type ON events (type, id);
CREATE INDEX events_at ON events (at, id);

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
WHEN NOT EXISTS (SELECT 1 FROM erasure_pending AS p WHERE p.entry_id = OLD.entry_id)
    OR NEW.id IS NOT OLD.id OR NEW.type IS NOT OLD.type
    OR NEW.entry_id IS NOT OLD.entry_id OR NEW.agent_id IS NOT OLD.agent_id
    OR NEW.at IS NOT OLD.at OR json_extract(NEW.payload, '$.redacted') IS NOT 1
    OR NEW.packed IS NOT NULL
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
