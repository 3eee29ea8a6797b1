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
