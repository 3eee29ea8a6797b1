-- factdiff store on PostgreSQL, schema version 13: fewer index bytes per attempt and event.
-- attempts_outcome (outcome, id) indexed every attempt; the listings it served read the
--   attempts that lost facts (failed or acceptable with notes) in id order. A partial index
--   on id of just those attempts serves them, and a clean attempt (most of them) no longer
--   costs an index entry. Counts by outcome read the table, as the other statistics do.
-- events_entry keys on the entry alone: an entry has a few events, read and ordered by id
--   after the index finds them, and equal keys share one index tuple (B-tree
--   deduplication), where (entry_id, id) paid a whole tuple per event. SQLite's index on
--   (entry_id) would hold the same (its rows carry the row id), so it stays.

DROP INDEX attempts_outcome;

CREATE INDEX attempts_losses ON attempts (id)
    WHERE outcome IN ('failed', 'acceptable_with_notes');

DROP INDEX events_entry;

CREATE INDEX events_entry ON events (entry_id);
