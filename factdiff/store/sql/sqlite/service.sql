-- Statements of the HTTP service: API keys (schema version 8), the tag filter, schema listing.

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

-- name: filter_entries_tag
AND EXISTS (SELECT 1 FROM json_each(tags) WHERE json_each.value = :tag)

-- name: select_schema_versions
SELECT name, version, hash FROM schemas ORDER BY name, version

-- name: last_event_id
SELECT coalesce(max(id), 0) FROM events
