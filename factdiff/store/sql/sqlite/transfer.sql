-- Moving a store on SQLite: the pages whose order is the text's bytes (BINARY, as
-- PostgreSQL's COLLATE "C"), the events insert and what an import runs last.

-- name: transfer_schema_page
SELECT name, version, hash, definition, source_text, registered_at FROM schemas
WHERE (name, version) > (:after_name, :after_version)
ORDER BY name, version LIMIT :limit

-- name: transfer_agent_schema_page
SELECT agent_id, tag, schema_name FROM agent_schemas
WHERE (agent_id, tag) > (:after_agent_id, :after_tag)
    AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY agent_id, tag LIMIT :limit

-- name: transfer_api_key_page
-- Keys' metadata and the SHA-256 of their secret (which cannot sign in; the secret can).
SELECT name, scope, agent_id, key_hash, created_at, revoked_at FROM api_keys
WHERE name > :after_name AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY name LIMIT :limit

-- name: transfer_extraction_page
SELECT content_hash, schema_hash, extractor_id, record FROM extraction_cache
WHERE (content_hash, schema_hash, extractor_id)
    > (:after_content_hash, :after_schema_hash, :after_extractor_id)
ORDER BY content_hash, schema_hash, extractor_id LIMIT :limit

-- name: transfer_finish_import
-- Nothing to do: an explicit events id moves SQLite's AUTOINCREMENT counter on its own.
SELECT 1
