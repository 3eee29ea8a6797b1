-- Statements of the HTTP service: API keys, the tag filter, schema listing.
-- The statements below read alike in both dialects; sql/<dialect>/service.sql holds the others.

-- name: insert_api_key
INSERT INTO api_keys (name, scope, agent_id, key_hash, created_at)
VALUES (:name, :scope, :agent_id, :key_hash, :now)
ON CONFLICT (name) DO NOTHING

-- name: select_api_key_by_hash
SELECT name, scope, agent_id, created_at, revoked_at FROM api_keys WHERE key_hash = :key_hash

-- name: select_api_keys
SELECT name, scope, agent_id, created_at, revoked_at FROM api_keys ORDER BY created_at, name

-- name: revoke_api_key
UPDATE api_keys SET revoked_at = :now WHERE name = :name AND revoked_at IS NULL

-- name: select_schema_versions
SELECT name, version, hash FROM schemas ORDER BY name, version

-- name: last_event_id
SELECT coalesce(max(id), 0) FROM events

-- name: filter_entries_unkept
AND NOT EXISTS (SELECT 1 FROM kept_hot AS k WHERE k.entry_id = entries.id)

-- name: insert_kept_hot
INSERT INTO kept_hot (entry_id, kept_at, key_name, reason)
VALUES (:id, :now, :key_name, :reason)
ON CONFLICT (entry_id) DO NOTHING

-- name: select_kept_hot
SELECT kept_at, key_name, reason FROM kept_hot WHERE entry_id = :id

-- name: delete_kept_hot
DELETE FROM kept_hot WHERE entry_id = :id

-- name: metrics_outcomes
-- Attempts per schema name and version, agent and outcome (Prometheus metrics).
SELECT coalesce(a.schema_name, ''), coalesce(a.schema_version, 0), e.agent_id, a.outcome, count(*)
FROM attempt_rows AS a JOIN entries AS e ON e.id = a.entry_id
GROUP BY a.schema_name, a.schema_version, e.agent_id, a.outcome

-- name: metrics_due_hot
-- Hot, active entries unused since :threshold whose backoff has passed at :now.
SELECT count(*) FROM entries
WHERE tier = 'hot' AND status = 'active' AND last_used_at <= :threshold
  AND (next_attempt_at IS NULL OR next_attempt_at <= :now)
