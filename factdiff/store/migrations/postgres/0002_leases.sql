-- factdiff store, schema version 2: leases for workers (claim, heartbeat, fenced commit).
-- lease_expires_at is microseconds since the epoch on the database clock: factdiff_now_us()
-- is statement_timestamp() (STABLE: one value per statement, usable as an index bound).

CREATE FUNCTION factdiff_now_us() RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT (extract(epoch FROM statement_timestamp()) * 1000000)::bigint
$$;

ALTER TABLE entries ADD COLUMN lease_token text COLLATE "C";
ALTER TABLE entries ADD COLUMN lease_owner text;
ALTER TABLE entries ADD COLUMN lease_expires_at bigint;

CREATE UNIQUE INDEX entries_lease ON entries (lease_token)
    WHERE lease_token IS NOT NULL;
