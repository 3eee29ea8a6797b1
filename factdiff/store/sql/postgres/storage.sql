-- Compact storage statements (identities, zstd dictionaries, re-encoding, sizes), PostgreSQL.

-- name: insert_identity
INSERT INTO store_identities (kind, value) VALUES (:kind, :value)
ON CONFLICT (kind, value) DO NOTHING

-- name: select_identity_id
SELECT id FROM store_identities WHERE kind = :kind AND value = :value

-- name: select_identity
SELECT kind, value FROM store_identities WHERE id = :id

-- name: select_dictionary
SELECT id, agent_id, version, hash, data, trained_on FROM zstd_dictionaries WHERE id = :id

-- name: select_latest_dictionary
SELECT id FROM zstd_dictionaries WHERE agent_id = :agent ORDER BY version DESC LIMIT 1

-- name: select_agent_dictionaries
SELECT id, version, trained_on FROM zstd_dictionaries WHERE agent_id = :agent ORDER BY version

-- name: insert_dictionary
INSERT INTO zstd_dictionaries (agent_id, version, hash, data, trained_on, created_at)
SELECT :agent, coalesce(max(version), 0) + 1, :hash, :data, :trained_on, :now
FROM zstd_dictionaries WHERE agent_id = :agent
ON CONFLICT (agent_id, version) DO NOTHING

-- name: insert_first_dictionary
-- The agent's first dictionary, unless a concurrent demotion stored one meanwhile.
INSERT INTO zstd_dictionaries (agent_id, version, hash, data, trained_on, created_at)
SELECT :agent, 1, :hash, :data, :trained_on, :now
WHERE NOT EXISTS (SELECT 1 FROM zstd_dictionaries WHERE agent_id = :agent)
ON CONFLICT (agent_id, version) DO NOTHING

-- name: delete_dictionary
DELETE FROM zstd_dictionaries WHERE id = :id

-- name: dictionary_samples
-- The first :limit entries of an agent by id (but :exclude, a JSON array of ids), with
-- their hot content or cold archive and their stored hot record.
SELECT e.id, e.content_hash, h.content, c.codec, c.data, c.dictionary_id, r.record
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN cold_archive AS c ON c.entry_id = e.id
LEFT JOIN hot_records AS r ON r.entry_id = e.id
WHERE e.agent_id = :agent AND e.id NOT IN (SELECT value FROM json_array_elements_text(:exclude::json))
ORDER BY e.id
LIMIT :limit

-- name: count_dictionary_users
SELECT (SELECT count(*) FROM cold_archive WHERE dictionary_id = :id)
     + (SELECT count(*) FROM warm_entries WHERE dictionary_id = :id)

-- name: dictionary_users_page
-- Entries whose archive or warm record uses dictionary :id.
SELECT entry_id FROM cold_archive WHERE dictionary_id = :id
UNION
SELECT entry_id FROM warm_entries WHERE dictionary_id = :id
ORDER BY 1
LIMIT :limit

-- name: recode_page
-- Warm entries still in the old encoding, or with a zlib archive.
SELECT w.entry_id FROM warm_entries AS w
JOIN cold_archive AS c ON c.entry_id = w.entry_id
WHERE w.entry_id > :after AND (w.encoding = 0 OR c.codec = 'zlib')
ORDER BY w.entry_id
LIMIT :limit

-- name: count_recode_pending
SELECT count(*) FROM warm_entries AS w
JOIN cold_archive AS c ON c.entry_id = w.entry_id
WHERE w.encoding = 0 OR c.codec = 'zlib'

-- name: update_warm_encoding
UPDATE warm_entries SET narrative = :narrative, record = :record, meta = :meta,
    encoding = :encoding,
    dictionary_id = :dictionary_id, identity_ref = :identity_ref, facts_digest = :facts_digest
WHERE entry_id = :id

-- name: update_cold_encoding
UPDATE cold_archive SET codec = :codec, data = :data, dictionary_id = :dictionary_id,
    content_hash = :content_hash
WHERE entry_id = :id

-- name: delete_entry_attempts
DELETE FROM attempts WHERE entry_id = :id

-- name: clean_warm_page
-- Warm entries made by a clean attempt that still have attempt rows.
SELECT w.entry_id FROM warm_entries AS w
WHERE w.entry_id > :after
  AND EXISTS (
    SELECT 1 FROM attempts AS a
    WHERE a.entry_id = w.entry_id AND a.attempt_no = w.attempt_no AND a.outcome = 'clean'
  )
ORDER BY w.entry_id
LIMIT :limit

-- name: delete_clean_warm_attempts
-- Inside a transaction: the attempts of a warm entry whose warm row a clean attempt made.
DELETE FROM attempts
WHERE entry_id = :id AND EXISTS (
    SELECT 1 FROM warm_entries AS w
    JOIN attempts AS a ON a.entry_id = w.entry_id AND a.attempt_no = w.attempt_no
    WHERE w.entry_id = :id AND a.outcome = 'clean'
)

-- name: storage_bytes
-- Bytes held by each tier (stats' storage object).
SELECT
    (SELECT coalesce(sum(octet_length(content)), 0) FROM hot_content),
    (SELECT coalesce(sum(octet_length(narrative)), 0) FROM warm_entries),
    (SELECT coalesce(sum(octet_length(record)), 0) FROM warm_entries),
    (SELECT coalesce(sum(octet_length(meta) + coalesce(octet_length(facts_digest), 0)
        + 8 * (identity_ref IS NOT NULL)::int), 0)
     FROM warm_entries),
    (SELECT coalesce(sum(octet_length(data)), 0) FROM cold_archive),
    (SELECT coalesce(sum(octet_length(data)), 0) FROM zstd_dictionaries),
    (SELECT coalesce(sum(e.size_bytes), 0) FROM entries AS e WHERE e.tier = 'warm'),
    (SELECT coalesce(sum(octet_length(value)), 0) FROM store_identities),
    (SELECT coalesce(sum(octet_length(record)), 0) FROM hot_records),
    (SELECT coalesce(sum(octet_length(narrative_hash) + octet_length(record_hash)
        + octet_length(narrative_keys)), 0) FROM warm_entries),
    (SELECT count(*) * 16 FROM fact_index)

-- name: select_warm_narrative
SELECT narrative, dictionary_id, attempt_no FROM warm_entries WHERE entry_id = :id

-- name: select_attempt_packed
SELECT packed FROM attempts WHERE entry_id = :id AND attempt_no = :attempt_no

-- name: update_attempt_packed
UPDATE attempts SET packed = :packed WHERE entry_id = :id AND attempt_no = :attempt_no

-- name: packed_attempts_page
SELECT id, entry_id, packed FROM attempts
WHERE id > :after AND packed IS NOT NULL ORDER BY id LIMIT :limit

-- name: packed_events_page
SELECT id, entry_id, packed FROM events
WHERE id > :after AND packed IS NOT NULL ORDER BY id LIMIT :limit
