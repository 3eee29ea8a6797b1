-- factdiff store, schema version 16: decision ids are per agent.
-- An attestation belongs to the agent whose entries it holds ('' when they are several
--   agents', attested by an operator). Its key is (decision_id, agent_id), so one agent's
--   decision ids neither collide with another's nor tell it that they exist.
-- Attestations made before are given the agent of their entries (live, or erased with a
--   tombstone) when those are all one agent's, else ''. The tables are rebuilt for their new
--   keys; the append-only triggers and the entry index are made again.

CREATE TABLE attestations_v16 (
    decision_id   TEXT NOT NULL,
    rendered_hash TEXT NOT NULL,
    digest        TEXT NOT NULL,
    attested_at   INTEGER NOT NULL,
    agent_id      TEXT NOT NULL,
    PRIMARY KEY (decision_id, agent_id)
);

INSERT INTO attestations_v16 (decision_id, rendered_hash, digest, attested_at, agent_id)
SELECT a.decision_id, a.rendered_hash, a.digest, a.attested_at,
       coalesce((
           SELECT CASE WHEN count(DISTINCT o.agent_id) = 1 THEN min(o.agent_id) END
           FROM attestation_entries AS ae
           JOIN (
               SELECT id AS entry_id, agent_id FROM entries
               UNION ALL
               SELECT entry_id, agent_id FROM tombstones
           ) AS o ON o.entry_id = ae.entry_id
           WHERE ae.decision_id = a.decision_id
       ), '')
FROM attestations AS a;

CREATE TABLE attestation_entries_v16 (
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
    FOREIGN KEY (decision_id, agent_id) REFERENCES attestations_v16 (decision_id, agent_id)
);

INSERT INTO attestation_entries_v16 (
    decision_id, position, entry_id, tier, schema_name, schema_version, source_hash,
    rendered_hash, agent_id
)
SELECT ae.decision_id, ae.position, ae.entry_id, ae.tier, ae.schema_name, ae.schema_version,
       ae.source_hash, ae.rendered_hash, a.agent_id
FROM attestation_entries AS ae JOIN attestations_v16 AS a ON a.decision_id = ae.decision_id;

DROP TABLE attestation_entries;

DROP TABLE attestations;

ALTER TABLE attestations_v16 RENAME TO attestations;

ALTER TABLE attestation_entries_v16 RENAME TO attestation_entries;

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
