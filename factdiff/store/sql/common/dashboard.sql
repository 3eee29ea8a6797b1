-- The dashboard's figures (factdiff.dashboard): attempts, events and model calls, read only.
-- The statements below read alike in both dialects; sql/<dialect>/dashboard.sql holds the others.

-- name: dashboard_outcomes_by_day
-- Attempts per UTC day (days since the epoch) and outcome.
SELECT started_at / 86400000000 AS day, outcome, count(*)
FROM attempts
GROUP BY day, outcome
ORDER BY day, outcome

-- name: dashboard_failure_by_schema
SELECT coalesce(schema_name, ''), coalesce(schema_version, 0), count(*),
       sum(CASE WHEN outcome IN ('failed', 'error') THEN 1 ELSE 0 END)
FROM attempt_rows
GROUP BY coalesce(schema_name, ''), coalesce(schema_version, 0)
ORDER BY 1, 2

-- name: dashboard_failure_by_agent
SELECT e.agent_id, count(*),
       sum(CASE WHEN a.outcome IN ('failed', 'error') THEN 1 ELSE 0 END)
FROM attempts a JOIN entries e ON e.id = a.entry_id
GROUP BY e.agent_id
ORDER BY e.agent_id

-- name: dashboard_lossy_diffs
-- Diffs are packed (or JSON text in attempts written before schema version 9).
SELECT id, diff, packed FROM attempts
WHERE id > :after AND outcome IN ('failed', 'acceptable_with_notes')
ORDER BY id
LIMIT :limit

-- name: dashboard_backlog
-- Entries waiting for an operator (kept-hot entries left out), per agent.
SELECT e.agent_id, count(*), min(e.created_at)
FROM entries e
WHERE e.status = 'review'
  AND NOT EXISTS (SELECT 1 FROM kept_hot k WHERE k.entry_id = e.id)
GROUP BY e.agent_id
ORDER BY e.agent_id

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
