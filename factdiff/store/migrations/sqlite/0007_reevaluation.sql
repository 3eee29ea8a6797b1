-- factdiff store, schema version 7: re-evaluation of warm entries under a newer schema version.
-- One row per (entry, schema, target version): a durable work item, claimed with a lease
-- (token, owner, expiry on the database clock) like demotion, and finished in the same
-- transaction as its effect on the entry (promoted back to hot, known gaps updated, or meta
-- moved to the new version). result: promoted | annotated | clean | skipped; fields: the
-- fields (JSON list) whose loss caused it; diff: the diff under the new version (JSON).

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
