-- Compact storage statements (identities, zstd dictionaries, re-encoding, sizes).
-- The statements below read alike in both dialects; sql/<dialect>/storage.sql holds the others.

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

-- name: count_dictionary_users
-- Warm entries whose record or source uses dictionary :id (found through its agent's entries).
SELECT count(*) FROM zstd_dictionaries AS d
JOIN entries AS e ON e.agent_id = d.agent_id
JOIN warm_entries AS w ON w.entry_id = e.id
WHERE d.id = :id AND (w.dictionary_id = :id OR w.source_dictionary_id = :id)

-- name: dictionary_users_page
-- Warm entries after :after whose record or source uses dictionary :id, in id order.
SELECT e.id AS entry_id FROM zstd_dictionaries AS d
JOIN entries AS e ON e.agent_id = d.agent_id
JOIN warm_entries AS w ON w.entry_id = e.id
WHERE d.id = :id AND e.id > :after
  AND (w.dictionary_id = :id OR w.source_dictionary_id = :id)
ORDER BY e.id
LIMIT :limit

-- name: update_warm_encoding
UPDATE warm_entries SET narrative = :narrative, record = :record, meta = :meta,
    encoding = :encoding,
    dictionary_id = :dictionary_id, identity_ref = :identity_ref, facts_digest = :facts_digest
WHERE entry_id = :id

-- name: update_cold_encoding
UPDATE warm_entries SET source_codec = :codec, source = :data,
    source_dictionary_id = :dictionary_id
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

-- name: select_warm_narrative
SELECT narrative, dictionary_id, attempt_no FROM warm_entries WHERE entry_id = :id

-- name: select_attempt_packed
SELECT packed FROM attempts WHERE entry_id = :id AND attempt_no = :attempt_no

-- name: update_attempt_packed
UPDATE attempts SET packed = :packed WHERE entry_id = :id AND attempt_no = :attempt_no

-- name: packed_attempts_page
SELECT id, entry_id, packed, id FROM attempts
WHERE id > :after AND packed IS NOT NULL ORDER BY id LIMIT :limit

-- name: packed_events_page
-- With the event's id: a row of two holds its first event at id - 1.
SELECT id, entry_id, packed, CASE WHEN then_type IS NULL THEN id ELSE id - 1 END FROM events
WHERE id > :after AND packed IS NOT NULL ORDER BY id LIMIT :limit

-- name: packed_second_events_page
-- The packed payloads of the second events of rows of two.
SELECT id, entry_id, then_packed, id FROM events
WHERE id > :after AND then_packed IS NOT NULL ORDER BY id LIMIT :limit
