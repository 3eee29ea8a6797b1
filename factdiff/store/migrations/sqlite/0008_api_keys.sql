-- factdiff store, schema version 8: API keys for `factdiff serve`.
-- A key is stored only as the SHA-256 of its secret (hex); the secret is printed once by
-- `factdiff keys create`. scope is 'agent' (reads and writes one agent's entries) or
-- 'operator' (every agent, reviews, schemas, demotion). revoked_at is set once, never cleared.

CREATE TABLE api_keys (
    name       TEXT PRIMARY KEY,
    scope      TEXT NOT NULL CHECK (scope IN ('agent', 'operator')),
    agent_id   TEXT,
    key_hash   TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    CHECK ((scope = 'agent') = (agent_id IS NOT NULL))
);

-- Entries an operator decided to keep hot for good (their status stays 'review', so
-- demotion never takes them; the review queue leaves them out).
CREATE TABLE kept_hot (
    entry_id TEXT PRIMARY KEY REFERENCES entries (id),
    kept_at  INTEGER NOT NULL,
    key_name TEXT NOT NULL,
    reason   TEXT NOT NULL
);
