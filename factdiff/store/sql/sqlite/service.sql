-- Statements of the HTTP service: API keys, the tag filter, schema listing.

-- name: filter_entries_tag
AND EXISTS (SELECT 1 FROM json_each(tags) WHERE json_each.value = :tag)

-- name: set_warm_reviewed
-- set_warm for an entry in review that an operator approved or edited: back to active.
UPDATE entries
SET tier = 'warm', status = 'active', attempt_count = attempt_count + 1, next_attempt_at = NULL, error_streak = 0,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'hot' AND status = 'review' AND attempt_count = :expected
  AND (:expected_errors IS NULL OR error_attempts = :expected_errors)
  AND CASE WHEN :token IS NULL THEN coalesce(lease_expires_at <= factdiff_now_us(), 1)
           ELSE lease_token = :token AND lease_expires_at > factdiff_now_us() END
RETURNING attempt_count + error_attempts AS attempt_no

-- name: metrics_model_calls
-- Model calls per model, role and outcome ('ok' or the failure class), with tokens and cost.
SELECT model, role, outcome, count(*), coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),
       coalesce(sum(CAST(cost_usd AS REAL)), 0)
FROM model_calls GROUP BY model, role, outcome
