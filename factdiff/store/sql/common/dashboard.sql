-- The dashboard's own figures (factdiff.ops.dashboard): outcomes and review decisions per day.
-- The figures it shares with `factdiff stats` and /metrics (failure rates, facts lost, review
-- backlog, model usage) are read by the statements of queries.sql and reports.sql.

-- name: dashboard_outcomes_by_day
-- Attempts per UTC day (days since the epoch) and outcome.
SELECT started_at / 86400000000 AS day, outcome, count(*)
FROM attempts
GROUP BY day, outcome
ORDER BY day, outcome

-- name: dashboard_review_events
-- Review decisions recorded per UTC day.
SELECT at / 86400000000 AS day, type, count(*)
FROM (
    SELECT at, type FROM events
    UNION ALL
    SELECT at, then_type AS type FROM events WHERE then_type IS NOT NULL
) AS e
WHERE type IN ('review_approved', 'review_edited', 'kept_hot', 'review_resolved')
GROUP BY day, type
ORDER BY day, type
