-- Re-evaluation of warm entries under a newer schema version.
-- Work items live in reevaluations. The schema an entry was compressed under is its meta's
-- schema reference: in the row's identities (store_identities, a compact row of schema
-- version 9) or in the meta JSON itself (an older row).
-- The statements below read alike in both dialects; sql/<dialect>/reevaluation.sql holds the others.

-- name: release_reevaluation
UPDATE reevaluations SET lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE lease_token = :token AND status = 'pending'

-- name: finish_reevaluation
-- Fenced by the item's unexpired lease; the first statement of the finishing transaction.
UPDATE reevaluations
SET status = 'done', result = :result, fields = :fields, diff = :diff, finished_at = :now,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND status = 'pending' AND lease_token = :token AND lease_expires_at > factdiff_now_us()
RETURNING id

-- name: set_rehydrated_due
-- A warm entry back to hot for recompression: due at once, its dormancy clock unchanged.
UPDATE entries SET tier = 'hot', next_attempt_at = NULL,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'warm'

-- name: reevaluation_by_agent
-- Finished items and promotions (re-evaluation failures) per agent.
SELECT agent_id, count(*) AS n, sum(CASE WHEN result = 'promoted' THEN 1 ELSE 0 END) AS promoted
FROM reevaluations WHERE status = 'done' AND result <> 'skipped'
GROUP BY agent_id ORDER BY agent_id
