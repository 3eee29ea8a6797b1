-- Reporting reads: registered schemas and their users, per-agent memory health, loss
-- patterns of verified attempts.
-- The statements below read alike in both dialects; sql/<dialect>/reports.sql holds the others.

-- name: select_schemas
SELECT name, version, hash, registered_at FROM schemas ORDER BY name, version

-- name: select_all_agent_schemas
SELECT agent_id, tag, schema_name FROM agent_schemas ORDER BY schema_name, agent_id, tag

-- name: agent_recent_attempts
-- An agent's last :limit verified or error attempts, newest first (outcome only).
SELECT a.outcome FROM attempts a JOIN entries e ON e.id = a.entry_id
WHERE e.agent_id = :agent
ORDER BY a.finished_at DESC, a.id DESC
LIMIT :limit

-- name: agents_list
SELECT DISTINCT agent_id FROM entries ORDER BY agent_id

-- name: review_backlog_by_agent
-- Per agent with entries in review: those waiting for an operator, those an operator kept hot
-- (status review, row in kept_hot: decided, not waiting), and the oldest waiting one.
SELECT e.agent_id,
       sum(CASE WHEN k.entry_id IS NULL THEN 1 ELSE 0 END) AS waiting,
       sum(CASE WHEN k.entry_id IS NULL THEN 0 ELSE 1 END) AS kept_hot,
       min(CASE WHEN k.entry_id IS NULL THEN e.created_at END) AS oldest
FROM entries e LEFT JOIN kept_hot k ON k.entry_id = e.id
WHERE e.status = 'review'
GROUP BY e.agent_id
ORDER BY e.agent_id
