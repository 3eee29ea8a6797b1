-- The store's statements that read alike on SQLite and PostgreSQL, one named block each
-- (`-- name: <key>`); sql/<dialect>/queries.sql holds the others, and a dialect's block wins
-- over a common one of the same name. Parameters are named (:name). `{filters}` marks where
-- optional `filter_*` blocks go. factdiff_now_us() is the database clock on both.

-- name: commit
COMMIT

-- name: rollback
ROLLBACK

-- name: schema_version
SELECT coalesce(max(version), 0) FROM factdiff_migrations

-- name: baseline_name
-- The name of the store's first migration (every store this factdiff opens has 0001_baseline).
SELECT coalesce(max(name), '') FROM factdiff_migrations WHERE version = 1

-- name: record_migration
INSERT INTO factdiff_migrations (version, name) VALUES (:version, :name)

-- name: insert_entry
INSERT INTO entries (
    id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
    schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at, occurred_offset
) VALUES (
    :id, :agent_id, 'hot', 'active', :occurred_at, :created_at, :last_used_at, :metadata,
    :schema_name, :tags, :content_hash, :size_bytes, 0, NULL, :occurred_offset
)

-- name: insert_hot
INSERT INTO hot_content (entry_id, content) VALUES (:id, :content)

-- name: select_entry
SELECT id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
       schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at,
       error_attempts, error_streak, occurred_offset
FROM entries WHERE id = :id

-- name: select_entry_full
-- The entry with its hot content or its warm row, in one statement (one snapshot).
SELECT e.id, e.agent_id, e.tier, e.status, e.occurred_at, e.created_at, e.last_used_at,
       e.metadata, e.schema_name, e.tags, e.content_hash, e.size_bytes, e.attempt_count,
       e.next_attempt_at, e.error_attempts, e.error_streak, e.occurred_offset,
       h.content, w.narrative, w.record, w.meta, w.attempt_no, w.compressed_at,
       w.encoding, w.dictionary_id, w.identity_ref, w.facts_digest, w.source_codec,
       w.source, w.source_dictionary_id
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
WHERE e.id = :id

-- name: select_hot
SELECT content FROM hot_content WHERE entry_id = :id

-- name: select_warm
SELECT narrative, record, meta, attempt_no, compressed_at FROM warm_entries WHERE entry_id = :id

-- name: select_cold
-- A warm entry's archived source: codec, data, the entry's content hash, its dictionary.
SELECT w.source_codec AS codec, w.source AS data, e.content_hash,
       w.source_dictionary_id AS dictionary_id
FROM warm_entries AS w JOIN entries AS e ON e.id = w.entry_id
WHERE w.entry_id = :id

-- name: touch
UPDATE entries SET last_used_at = :now WHERE id = :id

-- name: entries_page
SELECT id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
       schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at,
       error_attempts, error_streak, occurred_offset
FROM entries
WHERE id > :after {filters}
ORDER BY id
LIMIT :limit

-- name: filter_entries_agent
AND agent_id = :agent

-- name: filter_entries_tier
AND tier = :tier

-- name: filter_entries_status
AND status = :status

-- name: entries_count
-- How many entries after :after ('' for all) match the listing's filters.
SELECT count(*) FROM entries WHERE id > :after {filters}

-- name: insert_attempt
INSERT INTO attempts (
    entry_id, attempt_no, rung, budget_words, outcome, diff, summary, started_at, finished_at,
    duration_ms, tokens_in, tokens_out, cost_usd, error, schema_hash, failure_class, must_keep,
    packed, identity_ref
) VALUES (
    :entry_id, :attempt_no, :rung, :budget_words, :outcome, :diff, :summary, :started_at,
    :finished_at, :duration_ms, :tokens_in, :tokens_out, :cost_usd, :error, :schema_hash,
    :failure_class, :must_keep, :packed, :identity_ref
)

-- name: insert_model_call
INSERT INTO model_calls (
    entry_id, attempt_no, role, model, outcome, http_calls, tokens_in, tokens_out, cost_usd,
    duration_ms, at
) VALUES (
    :entry_id, :attempt_no, :role, :model, :outcome, :http_calls, :tokens_in, :tokens_out,
    :cost_usd, :duration_ms, :at
)

-- name: select_model_calls
SELECT attempt_no, role, model, outcome, http_calls, tokens_in, tokens_out, cost_usd, duration_ms
FROM model_calls WHERE entry_id = :id ORDER BY attempt_no, id

-- name: select_last_verified
-- The entry's last attempt that verified a summary (passed or failed), for its must-keep facts.
SELECT outcome, must_keep FROM attempts
WHERE entry_id = :id AND outcome IN ('clean', 'acceptable_with_notes', 'failed')
ORDER BY attempt_no DESC
LIMIT 1

-- name: select_attempts
-- With the warm narrative of the attempt that made the warm row (its summary, stored once).
SELECT a.id, a.entry_id, a.attempt_no, a.rung, a.summarizer, a.extractor, a.method_version,
       a.budget_words, a.outcome, a.diff, a.summary, a.started_at, a.finished_at,
       a.duration_ms, a.tokens_in, a.tokens_out, a.cost_usd, a.error, a.schema_name,
       a.schema_version, a.schema_hash, a.failure_class, a.must_keep, a.packed,
       w.narrative, w.dictionary_id
FROM attempt_rows AS a
LEFT JOIN warm_entries AS w ON w.entry_id = a.entry_id AND w.attempt_no = a.attempt_no
WHERE a.entry_id = :id ORDER BY a.attempt_no

-- name: insert_warm
-- The warm row with the archived source (the cold tier) in its last columns.
INSERT INTO warm_entries (
    entry_id, narrative, record, meta, attempt_no, compressed_at, encoding, dictionary_id,
    identity_ref, facts_digest, source_codec, source_dictionary_id, source
) VALUES (
    :id, :narrative, :record, :meta, :attempt_no, :now, :encoding, :dictionary_id,
    :identity_ref, :facts_digest, :source_codec, :source_dictionary_id, :source
)

-- name: delete_hot
DELETE FROM hot_content WHERE entry_id = :id

-- name: delete_warm
DELETE FROM warm_entries WHERE entry_id = :id

-- name: set_resolved
UPDATE entries SET status = 'active', next_attempt_at = NULL
WHERE id = :id AND status = 'review'

-- name: set_restored
UPDATE entries SET tier = 'hot', last_used_at = :now, next_attempt_at = NULL,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'warm'

-- name: insert_event
INSERT INTO events (type, entry_id, agent_id, at, payload, packed)
VALUES (:type, :entry_id, :agent_id, :at, :payload, :packed)

-- name: insert_event_pair
-- Two events in one row: the first has id `id - 1`, never another row's.
INSERT INTO events (type, entry_id, agent_id, at, payload, packed,
                    then_type, then_payload, then_packed)
VALUES (:type, :entry_id, :agent_id, :at, :payload, :packed,
        :then_type, :then_payload, :then_packed)

-- name: events_page
-- Rows, each one event or two (then_type: ids id - 1 and id); the store expands them.
SELECT id, type, entry_id, agent_id, at, payload, packed, then_type, then_payload, then_packed
FROM events
WHERE id > :after {filters}
ORDER BY id
LIMIT :limit

-- name: filter_events_entry
AND entry_id = :entry_id

-- name: filter_events_agent
AND agent_id = :agent

-- name: filter_events_type
AND (type = :type OR then_type = :type)

-- name: filter_events_since
AND at >= :since

-- name: filter_events_until
AND at < :until

-- name: events_count
-- How many events after :after (0 for all) match the listing's filters: a row's first event
-- counts when its id (id - 1 in a row of two) is after :after and its type matches, its
-- second when its type matches.
SELECT coalesce(sum(
    CASE WHEN (CAST(:type AS TEXT) IS NULL OR type = :type)
              AND (then_type IS NULL OR id - 1 > :after) THEN 1 ELSE 0 END
    + CASE WHEN then_type IS NOT NULL AND (CAST(:type AS TEXT) IS NULL OR then_type = :type)
           THEN 1 ELSE 0 END), 0)
FROM events WHERE id > :after {filters}

-- name: last_escalation
SELECT id, type, entry_id, agent_id, at, payload, packed, then_type, then_payload, then_packed
FROM events
WHERE entry_id = :id AND (type = 'escalated_to_review' OR then_type = 'escalated_to_review')
ORDER BY id DESC
LIMIT 1

-- name: select_schema
SELECT name, version, hash, definition, source_text FROM schemas
WHERE name = :name AND version = :version

-- name: select_latest_schema
SELECT name, version, hash, definition, source_text FROM schemas
WHERE name = :name ORDER BY version DESC LIMIT 1

-- name: insert_schema
INSERT INTO schemas (name, version, hash, definition, source_text, registered_at)
VALUES (:name, :version, :hash, :definition, :source_text, :now)
ON CONFLICT (name, version) DO NOTHING

-- name: upsert_agent_schema
INSERT INTO agent_schemas (agent_id, tag, schema_name) VALUES (:agent, :tag, :schema_name)
ON CONFLICT (agent_id, tag) DO UPDATE SET schema_name = excluded.schema_name

-- name: delete_agent_schema
DELETE FROM agent_schemas WHERE agent_id = :agent AND tag = :tag

-- name: select_agent_schemas
SELECT tag, schema_name FROM agent_schemas WHERE agent_id = :agent

-- name: select_extraction
SELECT record FROM extraction_cache
WHERE content_hash = :content_hash AND schema_hash = :schema_hash
  AND extractor_id = :extractor_id

-- name: insert_extraction
-- Never for the content of an erased entry (a worker may finish after the erasure).
INSERT INTO extraction_cache (content_hash, schema_hash, extractor_id, record)
SELECT :content_hash, :schema_hash, :extractor_id, :record
WHERE NOT EXISTS (SELECT 1 FROM tombstones AS t WHERE t.content_hash = :content_hash)
ON CONFLICT (content_hash, schema_hash, extractor_id) DO NOTHING

-- name: count_entries
SELECT tier, status, count(*) AS n FROM entries GROUP BY tier, status ORDER BY tier, status

-- name: count_attempts
SELECT outcome, count(*) AS n FROM attempts GROUP BY outcome ORDER BY outcome

-- name: count_events
SELECT type, count(*) AS n FROM (
    SELECT type FROM events
    UNION ALL
    SELECT then_type AS type FROM events WHERE then_type IS NOT NULL
) AS e
GROUP BY type ORDER BY type

-- name: failure_by_schema
SELECT schema_name, schema_version, count(*) AS total,
       sum(CASE WHEN outcome IN ('failed', 'error') THEN 1 ELSE 0 END) AS failed
FROM attempt_rows
GROUP BY schema_name, schema_version
ORDER BY schema_name, schema_version

-- name: failure_by_agent
SELECT e.agent_id, count(*) AS total,
       sum(CASE WHEN a.outcome IN ('failed', 'error') THEN 1 ELSE 0 END) AS failed
FROM attempts a JOIN entries e ON e.id = a.entry_id
GROUP BY e.agent_id
ORDER BY e.agent_id

-- name: lossy_diffs_page
SELECT id, diff, packed FROM attempts
WHERE id > :after AND outcome IN ('failed', 'acceptable_with_notes')
ORDER BY id
LIMIT :limit

-- name: hot_page
SELECT h.entry_id, h.content, e.content_hash
FROM hot_content AS h JOIN entries AS e ON e.id = h.entry_id
WHERE h.entry_id > :after
ORDER BY h.entry_id
LIMIT :limit

-- name: cold_page
SELECT w.entry_id, w.source_codec AS codec, w.source AS data, e.content_hash,
       w.source_dictionary_id AS dictionary_id
FROM warm_entries AS w JOIN entries AS e ON e.id = w.entry_id
WHERE w.entry_id > :after
ORDER BY w.entry_id
LIMIT :limit

-- name: tier_violations
SELECT e.id, e.tier,
       h.entry_id IS NOT NULL AS hot, w.entry_id IS NOT NULL AS warm,
       w.source IS NOT NULL AS cold
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
WHERE (e.tier = 'hot' AND (h.entry_id IS NULL OR w.entry_id IS NOT NULL))
   OR (e.tier = 'warm' AND (h.entry_id IS NOT NULL OR w.entry_id IS NULL
                            OR w.source IS NULL))
ORDER BY e.id

-- name: count_cold
SELECT count(*) FROM warm_entries WHERE source IS NOT NULL

-- name: release
UPDATE entries SET lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE lease_token = :token

-- name: select_leases
SELECT id, lease_owner, lease_token, lease_expires_at FROM entries
WHERE lease_token IS NOT NULL ORDER BY id

-- name: db_now
SELECT factdiff_now_us()
