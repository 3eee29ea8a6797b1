-- Every SQL statement the PostgreSQL store runs, one named block each (`-- name: <key>`).
-- Parameters are named (:name) and become %(name)s when loaded. `{filters}` marks where
-- optional `filter_*` blocks go. Times are bigint microseconds since the epoch (UTC);
-- factdiff_now_us() is the database clock (statement_timestamp(), STABLE so that it can
-- bound an index scan), used for every lease.

-- name: setup
SET idle_in_transaction_session_timeout = '{idle_ms}ms'

-- name: setup_read_only
SET default_transaction_read_only = on

-- name: begin_read
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY

-- name: begin_write
SELECT 1

-- name: commit
COMMIT

-- name: rollback
ROLLBACK

-- name: has_migrations_table
SELECT count(*) FROM pg_tables
WHERE schemaname = current_schema() AND tablename = 'factdiff_migrations'

-- name: user_object_count
SELECT (SELECT count(*) FROM pg_class AS c
        JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema())
     + (SELECT count(*) FROM pg_proc AS p
        JOIN pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = current_schema())

-- name: schema_version
SELECT coalesce(max(version), 0) FROM factdiff_migrations

-- name: lock_migrations
SELECT pg_advisory_xact_lock(hashtext(coalesce(current_schema(), '') || '.factdiff'))

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
       w.encoding, w.dictionary_id, w.identity_ref, w.facts_digest, c.codec, c.data,
       c.dictionary_id
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
LEFT JOIN cold_archive AS c ON c.entry_id = e.id
WHERE e.id = :id

-- name: select_hot
SELECT content FROM hot_content WHERE entry_id = :id

-- name: select_warm
SELECT narrative, record, meta, attempt_no, compressed_at FROM warm_entries WHERE entry_id = :id

-- name: select_cold
SELECT codec, data, content_hash, size_bytes, dictionary_id FROM cold_archive
WHERE entry_id = :id

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

-- name: due_page
SELECT id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
       schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at,
       error_attempts, error_streak, occurred_offset
FROM entries
WHERE tier = 'hot' AND status = 'active'
  AND last_used_at <= :threshold
  AND (last_used_at, id) > (:after_used, :after_id)
  AND (next_attempt_at IS NULL OR next_attempt_at <= :now)
ORDER BY last_used_at, id
LIMIT :limit

-- name: due_page_agent
SELECT id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
       schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at,
       error_attempts, error_streak, occurred_offset
FROM entries
WHERE tier = 'hot' AND status = 'active' AND agent_id = :agent
  AND last_used_at <= :threshold
  AND (last_used_at, id) > (:after_used, :after_id)
  AND (next_attempt_at IS NULL OR next_attempt_at <= :now)
ORDER BY last_used_at, id
LIMIT :limit

-- name: insert_attempt
INSERT INTO attempts (
    entry_id, attempt_no, rung, summarizer, extractor, method_version, budget_words, outcome,
    diff, summary, started_at, finished_at, duration_ms, tokens_in, tokens_out, cost_usd, error,
    schema_name, schema_version, schema_hash, failure_class, must_keep, packed
) VALUES (
    :entry_id, :attempt_no, :rung, :summarizer, :extractor, :method_version, :budget_words,
    :outcome, :diff, :summary, :started_at, :finished_at, :duration_ms, :tokens_in, :tokens_out,
    :cost_usd, :error, :schema_name, :schema_version, :schema_hash, :failure_class, :must_keep,
    :packed
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
FROM attempts AS a
LEFT JOIN warm_entries AS w ON w.entry_id = a.entry_id AND w.attempt_no = a.attempt_no
WHERE a.entry_id = :id ORDER BY a.attempt_no

-- name: insert_warm
INSERT INTO warm_entries (
    entry_id, narrative, record, meta, attempt_no, compressed_at, encoding, dictionary_id,
    identity_ref, facts_digest
) VALUES (
    :id, :narrative, :record, :meta, :attempt_no, :now, :encoding, :dictionary_id,
    :identity_ref, :facts_digest
)

-- name: insert_cold
INSERT INTO cold_archive (
    entry_id, codec, data, content_hash, size_bytes, archived_at, dictionary_id
) VALUES (:id, :codec, :data, :content_hash, :size_bytes, :now, :dictionary_id)

-- name: delete_hot
DELETE FROM hot_content WHERE entry_id = :id

-- name: delete_warm
DELETE FROM warm_entries WHERE entry_id = :id

-- name: delete_cold
DELETE FROM cold_archive WHERE entry_id = :id

-- name: set_warm
-- Fenced: with a token the entry must hold that unexpired lease; without, no live lease.
-- The attempt count (and the error attempt count, when given) must be the one read before
-- compressing. Returns the new attempt's number (every attempt row, errors included).
UPDATE entries
SET tier = 'warm', attempt_count = attempt_count + 1, next_attempt_at = NULL, error_streak = 0,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'hot' AND status = 'active' AND attempt_count = :expected
  AND (:expected_errors::integer IS NULL OR error_attempts = :expected_errors)
  AND CASE WHEN :token::text IS NULL THEN coalesce(lease_expires_at <= factdiff_now_us(), TRUE)
           ELSE lease_token = :token AND lease_expires_at > factdiff_now_us() END
RETURNING attempt_count + error_attempts

-- name: set_failed
UPDATE entries
SET attempt_count = attempt_count + 1,
    next_attempt_at = :next_attempt_at::bigint,
    status = CASE WHEN :escalate::boolean THEN 'review' ELSE status END,
    error_streak = 0,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'hot' AND status = 'active' AND attempt_count = :expected
  AND (:expected_errors::integer IS NULL OR error_attempts = :expected_errors)
  AND CASE WHEN :token::text IS NULL THEN coalesce(lease_expires_at <= factdiff_now_us(), TRUE)
           ELSE lease_token = :token AND lease_expires_at > factdiff_now_us() END
RETURNING attempt_count + error_attempts

-- name: set_errored
-- An attempt that verified nothing (provider, model output or internal error): it never
-- counts toward the ladder or max_attempts, only toward the error streak.
UPDATE entries
SET error_attempts = error_attempts + 1,
    error_streak = error_streak + 1,
    next_attempt_at = :next_attempt_at::bigint,
    status = CASE WHEN :escalate::boolean THEN 'review' ELSE status END,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'hot' AND status = 'active' AND attempt_count = :expected
  AND (:expected_errors::integer IS NULL OR error_attempts = :expected_errors)
  AND CASE WHEN :token::text IS NULL THEN coalesce(lease_expires_at <= factdiff_now_us(), TRUE)
           ELSE lease_token = :token AND lease_expires_at > factdiff_now_us() END
RETURNING attempt_count + error_attempts

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

-- name: events_page
SELECT id, type, entry_id, agent_id, at, payload, packed
FROM events
WHERE id > :after {filters}
ORDER BY id
LIMIT :limit

-- name: filter_events_entry
AND entry_id = :entry_id

-- name: filter_events_agent
AND agent_id = :agent

-- name: filter_events_type
AND type = :type

-- name: filter_events_since
AND at >= :since

-- name: filter_events_until
AND at < :until

-- name: events_count
-- How many events after :after (0 for all) match the listing's filters.
SELECT count(*) FROM events WHERE id > :after {filters}

-- name: last_escalation
SELECT payload, packed FROM events
WHERE entry_id = :id AND type = 'escalated_to_review'
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
SELECT tier, status, count(*) FROM entries GROUP BY tier, status ORDER BY tier, status

-- name: count_attempts
SELECT outcome, count(*) FROM attempts GROUP BY outcome ORDER BY outcome

-- name: usage_by_summarizer
-- The cost is NULL (unknown) when some billed attempt has no known price.
SELECT summarizer, count(*), coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),
       CASE WHEN count(*) FILTER (WHERE cost_usd IS NULL
                                   AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0) > 0
            THEN NULL ELSE sum(cost_usd::numeric) END
FROM attempts GROUP BY summarizer ORDER BY summarizer

-- name: usage_by_model
-- Every model call, per model and role; the cost is NULL when a billed call has no price.
SELECT model, role, count(*), coalesce(sum(http_calls), 0),
       count(*) FILTER (WHERE outcome <> 'ok'),
       coalesce(sum(tokens_in), 0), coalesce(sum(tokens_out), 0),
       CASE WHEN count(*) FILTER (WHERE cost_usd IS NULL
                                   AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0) > 0
            THEN NULL ELSE sum(cost_usd::numeric) END
FROM model_calls GROUP BY model, role ORDER BY model, role

-- name: count_events
SELECT type, count(*) FROM events GROUP BY type ORDER BY type

-- name: failure_by_schema
SELECT schema_name, schema_version, count(*),
       sum(CASE WHEN outcome IN ('failed', 'error') THEN 1 ELSE 0 END)
FROM attempts
GROUP BY schema_name, schema_version
ORDER BY schema_name, schema_version

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
SELECT c.entry_id, c.codec, c.data, c.content_hash, e.content_hash, c.dictionary_id
FROM cold_archive AS c JOIN entries AS e ON e.id = c.entry_id
WHERE c.entry_id > :after
ORDER BY c.entry_id
LIMIT :limit

-- name: tier_violations
SELECT e.id, e.tier,
       h.entry_id IS NOT NULL, w.entry_id IS NOT NULL, c.entry_id IS NOT NULL
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
LEFT JOIN cold_archive AS c ON c.entry_id = e.id
WHERE (e.tier = 'hot' AND (h.entry_id IS NULL OR w.entry_id IS NOT NULL
                           OR c.entry_id IS NOT NULL))
   OR (e.tier = 'warm' AND (h.entry_id IS NOT NULL OR w.entry_id IS NULL
                            OR c.entry_id IS NULL))
ORDER BY e.id

-- name: count_cold
SELECT count(*) FROM cold_archive

-- name: claim
-- One statement: pick due, unleased (or expired) entries in due order, skipping rows
-- another claimer has locked, and lease them; committed at once.
WITH due AS (
    SELECT id FROM entries
    WHERE tier = 'hot' AND status = 'active'
      AND last_used_at <= coalesce(:now::bigint, factdiff_now_us()) - :older_than::bigint
      AND (next_attempt_at IS NULL
           OR next_attempt_at <= coalesce(:now::bigint, factdiff_now_us()))
      AND (lease_expires_at IS NULL OR lease_expires_at <= factdiff_now_us())
    ORDER BY last_used_at, id
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
UPDATE entries AS e
SET lease_token = gen_random_uuid()::text,
    lease_owner = :owner,
    lease_expires_at = factdiff_now_us() + :lease::bigint
FROM due
WHERE e.id = due.id
RETURNING e.id, e.agent_id, e.tier, e.status, e.occurred_at, e.created_at, e.last_used_at,
          e.metadata, e.schema_name, e.tags, e.content_hash, e.size_bytes, e.attempt_count,
          e.next_attempt_at, e.error_attempts, e.error_streak, e.occurred_offset,
          e.lease_token, e.lease_expires_at, factdiff_now_us()

-- name: claim_agent
-- One statement: pick due, unleased (or expired) entries in due order, skipping rows
-- another claimer has locked, and lease them; committed at once.
WITH due AS (
    SELECT id FROM entries
    WHERE tier = 'hot' AND status = 'active' AND agent_id = :agent
      AND last_used_at <= coalesce(:now::bigint, factdiff_now_us()) - :older_than::bigint
      AND (next_attempt_at IS NULL
           OR next_attempt_at <= coalesce(:now::bigint, factdiff_now_us()))
      AND (lease_expires_at IS NULL OR lease_expires_at <= factdiff_now_us())
    ORDER BY last_used_at, id
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
)
UPDATE entries AS e
SET lease_token = gen_random_uuid()::text,
    lease_owner = :owner,
    lease_expires_at = factdiff_now_us() + :lease::bigint
FROM due
WHERE e.id = due.id
RETURNING e.id, e.agent_id, e.tier, e.status, e.occurred_at, e.created_at, e.last_used_at,
          e.metadata, e.schema_name, e.tags, e.content_hash, e.size_bytes, e.attempt_count,
          e.next_attempt_at, e.error_attempts, e.error_streak, e.occurred_offset,
          e.lease_token, e.lease_expires_at, factdiff_now_us()

-- name: heartbeat
UPDATE entries SET lease_expires_at = factdiff_now_us() + :lease::bigint
WHERE lease_token = :token AND lease_expires_at > factdiff_now_us()
RETURNING lease_expires_at

-- name: release
UPDATE entries SET lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE lease_token = :token

-- name: select_leases
SELECT id, lease_owner, lease_token, lease_expires_at FROM entries
WHERE lease_token IS NOT NULL ORDER BY id

-- name: db_now
SELECT factdiff_now_us()
