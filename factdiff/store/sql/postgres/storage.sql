-- Compact storage statements (identities, zstd dictionaries, re-encoding, sizes), PostgreSQL.

-- name: dictionary_samples
-- The first :limit entries of an agent by id (but :exclude, a JSON array of ids), with
-- their hot content or cold archive and their stored hot record.
SELECT e.id, e.content_hash, h.content, w.source_codec, w.source, w.source_dictionary_id,
       r.record
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
LEFT JOIN hot_records AS r ON r.entry_id = e.id
WHERE e.agent_id = :agent AND e.id NOT IN (SELECT value FROM json_array_elements_text(:exclude::json))
ORDER BY e.id
LIMIT :limit

-- name: storage_bytes
-- Bytes held by each tier (stats' storage object).
SELECT
    (SELECT coalesce(sum(octet_length(content)), 0) FROM hot_content),
    (SELECT coalesce(sum(octet_length(narrative)), 0) FROM warm_entries),
    (SELECT coalesce(sum(octet_length(record)), 0) FROM warm_entries),
    (SELECT coalesce(sum(octet_length(meta) + coalesce(octet_length(facts_digest), 0)
        + 8 * (identity_ref IS NOT NULL)::int), 0)
     FROM warm_entries),
    (SELECT coalesce(sum(octet_length(source)), 0) FROM warm_entries),
    (SELECT coalesce(sum(octet_length(data)), 0) FROM zstd_dictionaries),
    (SELECT coalesce(sum(e.size_bytes), 0) FROM entries AS e WHERE e.tier = 'warm'),
    (SELECT coalesce(sum(octet_length(value)), 0) FROM store_identities),
    (SELECT coalesce(sum(octet_length(record)), 0) FROM hot_records),
    (SELECT coalesce(sum(octet_length(narrative_hash) + octet_length(record_hash)
        + octet_length(narrative_keys)), 0) FROM warm_entries),
    (SELECT count(*) * 16 FROM fact_index)
