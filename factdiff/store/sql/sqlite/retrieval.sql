-- Retrieval statements (search indexes, use counts, warm hashes, attestations), SQLite.
-- A statement left empty (comments only) is one this dialect does not need.

-- name: allocate_search_docs
-- :n new doc numbers (the write transaction holds the only write lock).
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :n)
SELECT (SELECT coalesce(max(doc), 0) FROM search_docs) + i FROM n

-- name: insert_search_doc
INSERT INTO search_docs (doc, entry_id) VALUES (:doc, :entry_id)

-- name: insert_fact_keys
-- Many fact keys in one statement: :pairs is a JSON array of [key_hash, doc] (WHERE true:
-- an INSERT ... SELECT with ON CONFLICT needs a WHERE to parse).
INSERT INTO fact_index (key_hash, doc)
SELECT json_extract(p.value, '$[0]'), json_extract(p.value, '$[1]') FROM json_each(:pairs) AS p
WHERE true
ON CONFLICT DO NOTHING

-- name: insert_search_text
INSERT INTO search_text (rowid, source) VALUES (:doc, :text)

-- name: clear_search_text
INSERT INTO search_text (search_text) VALUES ('delete-all')

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

-- name: search_hit_rows
-- The entries :ids (JSON array) as a search shows them: the entry columns (as select_entry),
-- its hot content, warm row, stored hot record and the keys its narrative states.
SELECT e.id, e.agent_id, e.tier, e.status, e.occurred_at, e.created_at, e.last_used_at,
       e.metadata, e.schema_name, e.tags, e.content_hash, e.size_bytes, e.attempt_count,
       e.next_attempt_at, e.error_attempts, e.error_streak, e.occurred_offset,
       h.content, w.narrative, w.record, w.meta, w.attempt_no, w.compressed_at,
       w.encoding, w.dictionary_id, w.identity_ref, w.facts_digest, w.source_codec,
       w.source, w.source_dictionary_id,
       r.record AS hot_record, w.narrative_keys
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
LEFT JOIN hot_records AS r ON r.entry_id = e.id
WHERE e.id IN (SELECT value FROM json_each(:ids))
