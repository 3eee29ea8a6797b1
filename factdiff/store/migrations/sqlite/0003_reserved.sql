-- factdiff store, schema version 3: reserved for a change made in parallel (an occurred_at
-- offset column); it takes this number when both are merged, and this file goes away.
SELECT 1;
