-- factdiff store, schema version 13: clean attempts pay no index entry for their outcome.
-- attempts_outcome (outcome, id) indexed every attempt; the listings it served read the
--   attempts that lost facts (failed or acceptable with notes) in id order. A partial index
--   on id of just those attempts serves them, and a clean attempt (most of them) no longer
--   costs an index entry. Counts by outcome read the table, as the other statistics do.

DROP INDEX attempts_outcome;

CREATE INDEX attempts_losses ON attempts (id)
    WHERE outcome IN ('failed', 'acceptable_with_notes');
