-- factdiff store, schema version 3: the UTC offset an entry's occurred_at was given with.
-- occurred_at stays microseconds since the epoch (UTC); occurred_offset is minutes east of
-- UTC, so relative dates resolve against the entry's own local date. NULL (entries added
-- before this version, or without occurred_at) reads as UTC.

ALTER TABLE entries ADD COLUMN occurred_offset INTEGER;
