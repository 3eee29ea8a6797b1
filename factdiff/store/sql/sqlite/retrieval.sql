-- Retrieval statements (search indexes, use counts, warm hashes, attestations), SQLite.
-- A statement left empty (comments only) is one this dialect does not need.

-- name: allocate_search_docs
-- :n new doc numbers (the write transaction holds the only write lock).
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :n)
SELECT (SELECT coalesce(max(doc), 0) FROM search_docs) + i FROM n

-- name: insert_search_doc
INSERT INTO search_docs (doc, entry_id) VALUES (:doc, :entry_id)

-- name: insert_search_text
INSERT INTO search_text (rowid, source) VALUES (:doc, :text)

-- name: insert_fact_key
INSERT INTO fact_index (key_hash, doc) VALUES (:key_hash, :doc) ON CONFLICT DO NOTHING

-- name: delete_fact_keys
DELETE FROM fact_index WHERE doc = :doc

-- name: select_search_doc
SELECT doc FROM search_docs WHERE entry_id = :entry_id

-- name: clear_fact_index
DELETE FROM fact_index

-- name: clear_search_text
INSERT INTO search_text (search_text) VALUES ('delete-all')

-- name: clear_search_docs
DELETE FROM search_docs

-- name: unindexed_page
SELECT e.id FROM entries AS e
WHERE e.id > :after AND NOT EXISTS (SELECT 1 FROM search_docs AS d WHERE d.entry_id = e.id)
ORDER BY e.id
LIMIT :limit

-- name: count_unindexed
SELECT count(*) FROM entries AS e
WHERE NOT EXISTS (SELECT 1 FROM search_docs AS d WHERE d.entry_id = e.id)

-- name: search_doc_span
-- The highest doc number: how many entries the indexes hold (numbers are never reused).
SELECT coalesce(max(doc), 0) FROM search_docs

-- name: search_term_counts
-- How many entries hold each query word of :terms (JSON array of letters-and-digits words),
-- counted up to :cap (the text index's own stemming).
SELECT t.value, (
    SELECT count(*) FROM (
        SELECT rowid FROM search_text WHERE search_text MATCH '"' || t.value || '"' LIMIT :cap
    )
) FROM json_each(:terms) AS t

-- name: search_text
-- The best entries for a text query: (doc, score), higher is better (bm25 over the source;
-- :weights is used by the PostgreSQL dialect only).
SELECT rowid, -bm25(search_text) FROM search_text
WHERE search_text MATCH :query
ORDER BY bm25(search_text)
LIMIT :limit

-- name: search_text_filtered
SELECT search_text.rowid, -bm25(search_text) FROM search_text
JOIN search_docs AS d ON d.doc = search_text.rowid
JOIN entries AS e ON e.id = d.entry_id
WHERE search_text MATCH :query {filters}
ORDER BY bm25(search_text)
LIMIT :limit

-- name: filter_search_agent
AND e.agent_id = :agent

-- name: filter_search_tier
AND e.tier = :tier

-- name: search_text_scores
-- The text scores of the docs :docs (JSON array) for a text query.
SELECT rowid, -bm25(search_text) FROM search_text
WHERE search_text MATCH :query AND rowid IN (SELECT value FROM json_each(:docs))

-- name: search_fact_counts
-- How many entries hold each fact key of :keys (JSON array), counted up to :cap.
SELECT k.value, (
    SELECT count(*) FROM (SELECT doc FROM fact_index WHERE key_hash = k.value LIMIT :cap)
) FROM json_each(:keys) AS k

-- name: search_fact_docs
-- The docs holding the fact keys :keys (JSON array).
SELECT key_hash, doc FROM fact_index WHERE key_hash IN (SELECT value FROM json_each(:keys))

-- name: search_fact_hits
-- Which of the fact keys :keys (JSON array) each of the docs :docs (JSON array) holds.
SELECT key_hash, doc FROM fact_index
WHERE key_hash IN (SELECT value FROM json_each(:keys))
  AND doc IN (SELECT value FROM json_each(:docs))

-- name: search_docs_entries
-- The entries of the docs :docs (JSON array): doc, id, agent, tier.
SELECT d.doc, e.id, e.agent_id, e.tier FROM search_docs AS d
JOIN entries AS e ON e.id = d.entry_id
WHERE d.doc IN (SELECT value FROM json_each(:docs))

-- name: insert_source_fetch
INSERT INTO source_fetches (entry_id, at) VALUES (:entry_id, :at)

-- name: count_source_fetches
SELECT count(*) FROM source_fetches WHERE entry_id = :entry_id AND at > :since

-- name: delete_source_fetches
DELETE FROM source_fetches WHERE entry_id = :entry_id

-- name: insert_warm_index
-- A warm entry's index columns (schema version 11: they are part of its warm row).
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
INSERT INTO attestations (decision_id, rendered_hash, digest, attested_at)
VALUES (:decision_id, :rendered_hash, :digest, :at)

-- name: insert_attestation_entry
INSERT INTO attestation_entries (
    decision_id, position, entry_id, tier, schema_name, schema_version, source_hash,
    rendered_hash
) VALUES (
    :decision_id, :position, :entry_id, :tier, :schema_name, :schema_version, :source_hash,
    :rendered_hash
)

-- name: select_attestation
SELECT decision_id, rendered_hash, digest, attested_at FROM attestations
WHERE decision_id = :decision_id

-- name: select_attestation_entries
SELECT position, entry_id, tier, schema_name, schema_version, source_hash, rendered_hash
FROM attestation_entries WHERE decision_id = :decision_id ORDER BY position

-- name: attestations_page
SELECT decision_id FROM attestations WHERE decision_id > :after ORDER BY decision_id LIMIT :limit

-- name: attestations_of_entry
SELECT decision_id FROM attestation_entries WHERE entry_id = :entry_id ORDER BY decision_id

-- name: search_hit_rows
-- The entries :ids (JSON array) as a search shows them: the entry columns (as select_entry),
-- its hot content, warm row, stored hot record and the keys its narrative states.
SELECT e.id, e.agent_id, e.tier, e.status, e.occurred_at, e.created_at, e.last_used_at,
       e.metadata, e.schema_name, e.tags, e.content_hash, e.size_bytes, e.attempt_count,
       e.next_attempt_at, e.error_attempts, e.error_streak, e.occurred_offset,
       h.content, w.narrative, w.record, w.meta, w.attempt_no, w.compressed_at,
       w.encoding, w.dictionary_id, w.identity_ref, w.facts_digest, c.codec, c.data,
       c.dictionary_id,
       r.record, w.narrative_keys
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
LEFT JOIN cold_archive AS c ON c.entry_id = e.id
LEFT JOIN hot_records AS r ON r.entry_id = e.id
WHERE e.id IN (SELECT value FROM json_each(:ids))

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
