-- Retrieval statements (search indexes, use counts, warm hashes, attestations).
-- The statements below read alike in both dialects; sql/<dialect>/retrieval.sql holds the others.

-- name: insert_fact_key
INSERT INTO fact_index (key_hash, doc) VALUES (:key_hash, :doc) ON CONFLICT DO NOTHING

-- name: delete_fact_keys
DELETE FROM fact_index WHERE doc = :doc

-- name: select_fact_keys
SELECT key_hash FROM fact_index WHERE doc = :doc

-- name: delete_fact_key
DELETE FROM fact_index WHERE key_hash = :key_hash AND doc = :doc

-- name: select_search_doc
SELECT doc FROM search_docs WHERE entry_id = :entry_id

-- name: clear_fact_index
DELETE FROM fact_index

-- name: clear_search_docs
DELETE FROM search_docs

-- name: unindexed_record_page
-- Entries missing from the search indexes, with what indexes them without extracting: a hot
-- entry's content and stored fact record (an imported store's), whether a warm entry's
-- narrative keys are stored.
SELECT e.id, e.tier, h.content, r.record AS hot_record,
       CASE WHEN w.narrative_keys IS NULL THEN 0 ELSE 1 END AS narrative_keyed
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN hot_records AS r ON r.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
WHERE e.id > :after AND NOT EXISTS (SELECT 1 FROM search_docs AS d WHERE d.entry_id = e.id)
ORDER BY e.id
LIMIT :limit

-- name: indexed_in_range
-- The indexed entries whose ids lie from :first to :last (a page of unindexed_record_page).
SELECT entry_id FROM search_docs WHERE entry_id >= :first AND entry_id <= :last

-- name: count_unindexed
SELECT count(*) FROM entries AS e
WHERE NOT EXISTS (SELECT 1 FROM search_docs AS d WHERE d.entry_id = e.id)

-- name: search_doc_span
-- The highest doc number: how many entries the indexes hold (numbers are never reused).
SELECT coalesce(max(doc), 0) FROM search_docs

-- name: filter_search_agent
AND e.agent_id = :agent

-- name: filter_search_tier
AND e.tier = :tier

-- name: insert_source_fetch
INSERT INTO source_fetches (entry_id, at) VALUES (:entry_id, :at)

-- name: count_source_fetches
SELECT count(*) FROM source_fetches WHERE entry_id = :entry_id AND at > :since

-- name: delete_source_fetches
DELETE FROM source_fetches WHERE entry_id = :entry_id

-- name: insert_warm_index
-- A warm entry's index columns (part of its warm row).
UPDATE warm_entries SET narrative_hash = :narrative_hash, record_hash = :record_hash,
    narrative_keys = :narrative_keys
WHERE entry_id = :entry_id

-- name: delete_warm_index
UPDATE warm_entries SET narrative_hash = NULL, record_hash = NULL, narrative_keys = NULL
WHERE entry_id = :entry_id

-- name: select_narrative_keys
SELECT narrative_keys FROM warm_entries WHERE entry_id = :entry_id

-- name: warm_index_page
SELECT w.entry_id, w.narrative_hash, w.record_hash
FROM warm_entries AS w
WHERE w.entry_id > :after
ORDER BY w.entry_id
LIMIT :limit

-- name: insert_hot_record
INSERT INTO hot_records (entry_id, record) VALUES (:entry_id, :record)

-- name: delete_hot_record
DELETE FROM hot_records WHERE entry_id = :entry_id

-- name: select_hot_record
SELECT record FROM hot_records WHERE entry_id = :entry_id

-- name: clear_hot_records
DELETE FROM hot_records

-- name: insert_attestation
INSERT INTO attestations (decision_id, agent_id, rendered_hash, digest, attested_at)
VALUES (:decision_id, :agent_id, :rendered_hash, :digest, :at)

-- name: insert_attestation_entry
INSERT INTO attestation_entries (
    decision_id, agent_id, position, entry_id, tier, schema_name, schema_version, source_hash,
    rendered_hash
) VALUES (
    :decision_id, :agent_id, :position, :entry_id, :tier, :schema_name, :schema_version,
    :source_hash, :rendered_hash
)

-- name: select_attestation
-- Decision ids are per agent: the key is (decision_id, agent_id).
SELECT decision_id, agent_id, rendered_hash, digest, attested_at FROM attestations
WHERE decision_id = :decision_id AND agent_id = :agent_id

-- name: attestation_agents
-- The agents holding a decision id (for a caller who sees every agent and names none).
SELECT agent_id FROM attestations WHERE decision_id = :decision_id ORDER BY agent_id LIMIT 3

-- name: select_attestation_entries
SELECT position, entry_id, tier, schema_name, schema_version, source_hash, rendered_hash
FROM attestation_entries WHERE decision_id = :decision_id AND agent_id = :agent_id
ORDER BY position

-- name: attestations_page
SELECT decision_id, agent_id FROM attestations
WHERE decision_id > :after OR (decision_id = :after AND agent_id > :after_agent)
ORDER BY decision_id, agent_id LIMIT :limit

-- name: attestations_of_entry
SELECT decision_id, agent_id FROM attestation_entries WHERE entry_id = :entry_id
ORDER BY decision_id, agent_id

-- name: insert_fact_pending
INSERT INTO fact_pending (entry_id) VALUES (:entry_id)

-- name: delete_fact_pending
DELETE FROM fact_pending WHERE entry_id = :entry_id

-- name: fact_pending_page
SELECT entry_id FROM fact_pending WHERE entry_id > :after ORDER BY entry_id LIMIT :limit

-- name: any_fact_pending
SELECT count(*) FROM (SELECT 1 FROM fact_pending LIMIT 1) AS pending

-- name: clear_fact_pending
DELETE FROM fact_pending
