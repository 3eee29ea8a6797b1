-- factdiff store, schema version 2: leases for workers (claim, heartbeat, fenced commit).
-- lease_expires_at is microseconds since the epoch on the database clock.

ALTER TABLE entries ADD COLUMN lease_token TEXT;
ALTER TABLE entries ADD COLUMN lease_owner TEXT;
ALTER TABLE entries ADD COLUMN lease_expires_at INTEGER;

CREATE UNIQUE INDEX entries_lease ON entries (lease_token)
    WHERE lease_token IS NOT NULL;
