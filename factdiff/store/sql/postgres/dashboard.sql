-- The dashboard's figures (factdiff.dashboard): attempts, events and model calls, read only.

-- name: dashboard_cost
-- Model calls per model and role; the last column counts billed calls without a price.
SELECT model, role, count(*),
       coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),
       sum(cost_usd::numeric),
       sum(CASE WHEN cost_usd IS NULL
                 AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0 THEN 1 ELSE 0 END)
FROM model_calls
GROUP BY model, role
ORDER BY model, role
