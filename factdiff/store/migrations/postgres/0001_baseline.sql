-- factdiff store on PostgreSQL, schema version 1: the baseline of factdiff 0.1.
-- Every table, index, view and trigger of a new store, written once here; a later change
-- of the schema is a migration numbered after it (NNNN_name.sql), never an edit of it.
-- A store made before this baseline is refused when opened (factdiff.store.migrate).

CREATE FUNCTION factdiff_now_us() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT (extract(epoch FROM statement_timestamp()) * 1000000)::bigint
$$;

CREATE TABLE factdiff_migrations (
    version integer PRIMARY KEY,
    name    text NOT NULL
);

CREATE TABLE entries (
    id              text COLLATE "C" PRIMARY KEY,
    agent_id        text COLLATE "C" NOT NULL,
    tier            text NOT NULL DEFAULT 'hot' CHECK (tier IN ('hot', 'warm')),
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'review')),
    occurred_at     bigint,
    created_at      bigint NOT NULL,
    last_used_at    bigint NOT NULL,
    metadata        text NOT NULL DEFAULT '{}',
    schema_name     text,
    tags            text NOT NULL DEFAULT '[]',
    content_hash    text NOT NULL,
    size_bytes      bigint NOT NULL CHECK (size_bytes >= 0),
    attempt_count   integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    next_attempt_at bigint,
    lease_token     text COLLATE "C",
    lease_owner     text,
    lease_expires_at bigint,
    occurred_offset integer,
    error_attempts  integer NOT NULL DEFAULT 0,
    error_streak    integer NOT NULL DEFAULT 0
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
    entry_id text COLLATE "C" PRIMARY KEY REFERENCES entries (id),
    content  bytea NOT NULL
);

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

CREATE TABLE warm_entries (
    entry_id       text COLLATE "C" PRIMARY KEY REFERENCES entries (id),
    narrative      bytea NOT NULL,
    record         bytea NOT NULL,
    meta           bytea NOT NULL,
    attempt_no     integer NOT NULL,
    compressed_at  bigint NOT NULL,
    encoding       integer NOT NULL DEFAULT 0,
    dictionary_id  bigint REFERENCES zstd_dictionaries (id),
    identity_ref   bigint REFERENCES store_identities (id),
    facts_digest   bytea,
    narrative_hash bytea,
    record_hash    bytea,
    narrative_keys bytea,
    source_codec   text NOT NULL CHECK (source_codec = 'zstd'),
    source_dictionary_id bigint REFERENCES zstd_dictionaries (id),
    source         bytea NOT NULL
);

CREATE TABLE attempts (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    entry_id       text COLLATE "C" NOT NULL,
    attempt_no     integer NOT NULL CHECK (attempt_no >= 1),
    rung           integer NOT NULL,
    budget_words   integer,
    outcome        text NOT NULL
        CHECK (outcome IN ('clean', 'acceptable_with_notes', 'failed', 'error')),
    diff           text NOT NULL,
    summary        text NOT NULL,
    started_at     bigint NOT NULL,
    finished_at    bigint NOT NULL,
    duration_ms    double precision NOT NULL,
    tokens_in      integer,
    tokens_out     integer,
    cost_usd       text,
    error          text,
    schema_hash    text,
    failure_class  text,
    must_keep      text,
    packed         bytea,
    identity_ref   bigint NOT NULL REFERENCES store_identities (id),
    UNIQUE (entry_id, attempt_no)
);

CREATE INDEX attempts_losses ON attempts (id)
    WHERE outcome IN ('failed', 'acceptable_with_notes');

-- Every attempt with its identities (a store_identities row of kind 'attempt').
CREATE VIEW attempt_rows AS
SELECT a.id, a.entry_id, a.attempt_no, a.rung,
       i.value::jsonb ->> 0 AS summarizer,
       i.value::jsonb ->> 1 AS extractor,
       i.value::jsonb ->> 2 AS method_version,
       a.budget_words, a.outcome, a.diff, a.summary, a.started_at, a.finished_at,
       a.duration_ms, a.tokens_in, a.tokens_out, a.cost_usd, a.error,
       i.value::jsonb ->> 3 AS schema_name,
       (i.value::jsonb ->> 4)::integer AS schema_version,
       a.schema_hash, a.failure_class, a.must_keep, a.packed
FROM attempts AS a
JOIN store_identities AS i ON i.id = a.identity_ref;

-- A row holds one event, or two of one write (then_type: ids id - 1 and id).
CREATE TABLE events (
    id       bigint GENERATED ALWAYS AS IDENTITY (START WITH 2 INCREMENT BY 2) PRIMARY KEY,
    type     text NOT NULL,
    entry_id text COLLATE "C",
    agent_id text COLLATE "C",
    at       bigint NOT NULL,
    payload  text NOT NULL,
    packed   bytea,
    then_type    text,
    then_payload text,
    then_packed  bytea
);

CREATE INDEX events_entry ON events (entry_id);
CREATE INDEX events_agent ON events (agent_id, id);

CREATE FUNCTION factdiff_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END;
$$;

CREATE FUNCTION factdiff_events_redaction_only() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION factdiff_events_redaction_only();

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION factdiff_events_append_only();

CREATE TABLE schemas (
    name          text NOT NULL,
    version       integer NOT NULL,
    hash          text NOT NULL,
    definition    text NOT NULL,
    source_text   text,
    registered_at bigint NOT NULL,
    PRIMARY KEY (name, version)
);

CREATE TABLE agent_schemas (
    agent_id    text COLLATE "C" NOT NULL,
    tag         text NOT NULL DEFAULT '',
    schema_name text NOT NULL,
    PRIMARY KEY (agent_id, tag)
);

CREATE TABLE extraction_cache (
    content_hash text NOT NULL,
    schema_hash  text NOT NULL,
    extractor_id text NOT NULL,
    record       text NOT NULL,
    PRIMARY KEY (content_hash, schema_hash, extractor_id)
);

CREATE TABLE model_calls (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    entry_id    text COLLATE "C" NOT NULL,
    attempt_no  integer NOT NULL,
    role        text NOT NULL,
    model       text NOT NULL,
    outcome     text NOT NULL,
    http_calls  integer NOT NULL,
    tokens_in   integer,
    tokens_out  integer,
    cost_usd    text,
    duration_ms double precision NOT NULL,
    at          bigint NOT NULL
);

CREATE INDEX model_calls_entry ON model_calls (entry_id, attempt_no);
CREATE INDEX model_calls_model ON model_calls (model, role);

-- English stemming without a stop-word list, like FTS5's porter tokenizer on SQLite: how many
-- entries hold a word decides whether it is searched, so "only" or "same" still count.
CREATE TEXT SEARCH DICTIONARY factdiff_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION factdiff_text (COPY = english);
ALTER TEXT SEARCH CONFIGURATION factdiff_text
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
    WITH factdiff_stem;

CREATE TABLE search_docs (
    doc      bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    entry_id text COLLATE "C" NOT NULL UNIQUE REFERENCES entries (id),
    body     tsvector NOT NULL
);

CREATE INDEX search_docs_body ON search_docs USING gin (body);

CREATE TABLE fact_index (
    key_hash bigint NOT NULL,
    doc      bigint NOT NULL REFERENCES search_docs (doc),
    PRIMARY KEY (key_hash, doc)
);

CREATE INDEX fact_index_doc ON fact_index (doc);

CREATE TABLE hot_records (
    entry_id text COLLATE "C" PRIMARY KEY REFERENCES entries (id),
    record   bytea NOT NULL
);

CREATE TABLE fact_pending (
    entry_id text COLLATE "C" PRIMARY KEY REFERENCES entries (id)
);

CREATE TABLE source_fetches (
    entry_id text COLLATE "C" NOT NULL REFERENCES entries (id),
    at       bigint NOT NULL
);

CREATE INDEX source_fetches_entry ON source_fetches (entry_id, at);

CREATE TABLE attestations (
    decision_id   text COLLATE "C" NOT NULL,
    rendered_hash text NOT NULL,
    digest        text NOT NULL,
    attested_at   bigint NOT NULL,
    agent_id      text COLLATE "C" NOT NULL,
    PRIMARY KEY (decision_id, agent_id)
);

CREATE TABLE attestation_entries (
    decision_id    text COLLATE "C" NOT NULL,
    position       integer NOT NULL,
    entry_id       text COLLATE "C" NOT NULL,
    tier           text NOT NULL,
    schema_name    text,
    schema_version integer,
    source_hash    text NOT NULL,
    rendered_hash  text NOT NULL,
    agent_id       text COLLATE "C" NOT NULL,
    PRIMARY KEY (decision_id, agent_id, position),
    FOREIGN KEY (decision_id, agent_id) REFERENCES attestations (decision_id, agent_id)
);

CREATE INDEX attestation_entries_entry ON attestation_entries (entry_id);

CREATE FUNCTION factdiff_attestations_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'attestations are append-only';
END;
$$;

CREATE TRIGGER attestations_no_update BEFORE UPDATE ON attestations
    FOR EACH ROW EXECUTE FUNCTION factdiff_attestations_append_only();

CREATE TRIGGER attestations_no_delete BEFORE DELETE ON attestations
    FOR EACH ROW EXECUTE FUNCTION factdiff_attestations_append_only();

CREATE TRIGGER attestation_entries_no_update BEFORE UPDATE ON attestation_entries
    FOR EACH ROW EXECUTE FUNCTION factdiff_attestations_append_only();

CREATE TRIGGER attestation_entries_no_delete BEFORE DELETE ON attestation_entries
    FOR EACH ROW EXECUTE FUNCTION factdiff_attestations_append_only();

CREATE TABLE reevaluations (
    id               bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    entry_id         text COLLATE "C" NOT NULL REFERENCES entries (id),
    agent_id         text NOT NULL,
    schema_name      text NOT NULL,
    from_version     integer NOT NULL,
    to_version       integer NOT NULL,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    result           text CHECK (result IN ('promoted', 'annotated', 'clean', 'skipped')),
    fields           text NOT NULL DEFAULT '[]',
    diff             text,
    enqueued_at      bigint NOT NULL,
    finished_at      bigint,
    lease_token      text COLLATE "C",
    lease_owner      text,
    lease_expires_at bigint,
    UNIQUE (entry_id, schema_name, to_version)
);

CREATE INDEX reevaluations_pending ON reevaluations (id) WHERE status = 'pending';
CREATE INDEX reevaluations_schema ON reevaluations (schema_name, to_version, status);
CREATE INDEX reevaluations_agent ON reevaluations (agent_id, status);
CREATE UNIQUE INDEX reevaluations_lease ON reevaluations (lease_token)
    WHERE lease_token IS NOT NULL;

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

CREATE TABLE api_keys (
    name       text PRIMARY KEY,
    scope      text NOT NULL CHECK (scope IN ('agent', 'operator')),
    agent_id   text,
    key_hash   text NOT NULL UNIQUE,
    created_at bigint NOT NULL,
    revoked_at bigint,
    CHECK ((scope = 'agent') = (agent_id IS NOT NULL))
);

CREATE TABLE kept_hot (
    entry_id text PRIMARY KEY REFERENCES entries (id),
    kept_at  bigint NOT NULL,
    key_name text NOT NULL,
    reason   text NOT NULL
);

CREATE TABLE ui_sessions (
    token_hash text PRIMARY KEY,
    key_name   text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    ended_at   bigint
);

CREATE INDEX ui_sessions_expiry ON ui_sessions (expires_at);
