-- Moving a store on PostgreSQL: the pages whose order is the text's bytes (COLLATE "C", as
-- SQLite's BINARY), the events insert (their ids kept) and what an import runs last.

-- name: transfer_schema_page
SELECT name, version, hash, definition, source_text, registered_at FROM schemas
WHERE (name COLLATE "C", version) > (:after_name, :after_version)
ORDER BY name COLLATE "C", version LIMIT :limit

-- name: transfer_agent_schema_page
SELECT agent_id, tag, schema_name FROM agent_schemas
WHERE (agent_id, tag COLLATE "C") > (:after_agent_id, :after_tag)
    AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY agent_id, tag COLLATE "C" LIMIT :limit

-- name: transfer_api_key_page
-- Keys' metadata and the SHA-256 of their secret (which cannot sign in; the secret can).
SELECT name, scope, agent_id, key_hash, created_at, revoked_at FROM api_keys
WHERE name COLLATE "C" > :after_name AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY name COLLATE "C" LIMIT :limit

-- name: transfer_extraction_page
SELECT content_hash, schema_hash, extractor_id, record FROM extraction_cache
WHERE (content_hash COLLATE "C", schema_hash COLLATE "C", extractor_id COLLATE "C")
    > (:after_content_hash, :after_schema_hash, :after_extractor_id)
ORDER BY content_hash COLLATE "C", schema_hash COLLATE "C", extractor_id COLLATE "C"
LIMIT :limit

-- name: transfer_event_insert
INSERT INTO events (id, type, entry_id, agent_id, at, payload, packed, then_type,
                    then_payload, then_packed)
OVERRIDING SYSTEM VALUE
VALUES (:id, :event_type, :entry_id, :agent_id, :at, :payload, :packed, :then_type,
        :then_payload, :then_packed)

-- name: transfer_finish_import
-- The events identity goes on after the highest id imported (each new row's id - 1 stays
-- free, as the identity's step of 2 keeps it).
SELECT setval(pg_get_serial_sequence('events', 'id'), max(id)) FROM events HAVING count(*) > 0
