-- The SQLite store's own statements, one named block each (`-- name: <key>`); those
-- that read alike in both dialects are in sql/common/queries.sql.
-- Parameters are named (:name). `{filters}` marks where optional `filter_*` blocks go.
-- The due queries name their partial index: without ANALYZE statistics the planner would
-- otherwise prefer entries_tier_status and sort the whole hot tier.

-- name: setup
PRAGMA journal_mode = WAL;
PRAGMA synchronous = FULL;
PRAGMA foreign_keys = ON;
PRAGMA busy_timeout = {busy_timeout_ms};

-- name: setup_read_only
-- A read-only connection leaves the journal mode as the file has it.
PRAGMA foreign_keys = ON;
PRAGMA busy_timeout = {busy_timeout_ms};

-- name: selected_schema
-- A file is the store: no schema to select or create (the PostgreSQL dialect's own).
SELECT 'main', '', ''

-- name: create_schema
SELECT 1

-- name: begin_read
BEGIN DEFERRED

-- name: begin_write
BEGIN IMMEDIATE

-- name: has_migrations_table
SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'factdiff_migrations'

-- name: user_object_count
SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'

-- name: lock_migrations
-- BEGIN IMMEDIATE already serialises migrations on SQLite.
SELECT 1

-- name: due_page
SELECT id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
       schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at,
       error_attempts, error_streak, occurred_offset
FROM entries INDEXED BY entries_due
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
FROM entries INDEXED BY entries_due_agent
WHERE tier = 'hot' AND status = 'active' AND agent_id = :agent
  AND last_used_at <= :threshold
  AND (last_used_at, id) > (:after_used, :after_id)
  AND (next_attempt_at IS NULL OR next_attempt_at <= :now)
ORDER BY last_used_at, id
LIMIT :limit

-- name: set_warm
-- Fenced: with a token the entry must hold that unexpired lease; without, no live lease.
-- The attempt count (and the error attempt count, when given) must be the one read before
-- compressing. Returns the new attempt's number (every attempt row, errors included).
UPDATE entries
SET tier = 'warm', attempt_count = attempt_count + 1, next_attempt_at = NULL, error_streak = 0,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'hot' AND status = 'active' AND attempt_count = :expected
  AND (:expected_errors IS NULL OR error_attempts = :expected_errors)
  AND CASE WHEN :token IS NULL THEN coalesce(lease_expires_at <= factdiff_now_us(), 1)
           ELSE lease_token = :token AND lease_expires_at > factdiff_now_us() END
RETURNING attempt_count + error_attempts AS attempt_no

-- name: set_failed
UPDATE entries
SET attempt_count = attempt_count + 1,
    next_attempt_at = :next_attempt_at,
    status = CASE WHEN :escalate THEN 'review' ELSE status END,
    error_streak = 0,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'hot' AND status = 'active' AND attempt_count = :expected
  AND (:expected_errors IS NULL OR error_attempts = :expected_errors)
  AND CASE WHEN :token IS NULL THEN coalesce(lease_expires_at <= factdiff_now_us(), 1)
           ELSE lease_token = :token AND lease_expires_at > factdiff_now_us() END
RETURNING attempt_count + error_attempts AS attempt_no

-- name: set_errored
-- An attempt that verified nothing (provider, model output or internal error): it never
-- counts toward the ladder or max_attempts, only toward the error streak.
UPDATE entries
SET error_attempts = error_attempts + 1,
    error_streak = error_streak + 1,
    next_attempt_at = :next_attempt_at,
    status = CASE WHEN :escalate THEN 'review' ELSE status END,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id AND tier = 'hot' AND status = 'active' AND attempt_count = :expected
  AND (:expected_errors IS NULL OR error_attempts = :expected_errors)
  AND CASE WHEN :token IS NULL THEN coalesce(lease_expires_at <= factdiff_now_us(), 1)
           ELSE lease_token = :token AND lease_expires_at > factdiff_now_us() END
RETURNING attempt_count + error_attempts AS attempt_no

-- name: usage_by_summarizer
-- The cost is NULL (unknown) when some billed attempt has no known price.
SELECT summarizer, count(*) AS attempts, coalesce(sum(tokens_in), 0) AS tokens_in,
       coalesce(sum(tokens_out), 0) AS tokens_out,
       CASE WHEN count(*) FILTER (WHERE cost_usd IS NULL
                                   AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0) > 0
            THEN NULL ELSE sum(CAST(cost_usd AS REAL)) END AS cost_usd
FROM attempt_rows GROUP BY summarizer ORDER BY summarizer

-- name: usage_by_model
-- Every model call, per model and role; the cost is NULL when a billed call has no price.
SELECT model, role, count(*) AS calls, coalesce(sum(http_calls), 0) AS http_calls,
       count(*) FILTER (WHERE outcome <> 'ok') AS failed_calls,
       coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
       CASE WHEN count(*) FILTER (WHERE cost_usd IS NULL
                                   AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0) > 0
            THEN NULL ELSE sum(CAST(cost_usd AS REAL)) END AS cost_usd
FROM model_calls GROUP BY model, role ORDER BY model, role

-- name: claim
-- One statement: pick due, unleased (or expired) entries in due order and lease them.
UPDATE entries
SET lease_token = lower(hex(randomblob(16))),
    lease_owner = :owner,
    lease_expires_at = factdiff_now_us() + :lease
WHERE id IN (
    SELECT id FROM entries INDEXED BY entries_due
    WHERE tier = 'hot' AND status = 'active'
      AND last_used_at <= coalesce(:now, factdiff_now_us()) - :older_than
      AND (next_attempt_at IS NULL OR next_attempt_at <= coalesce(:now, factdiff_now_us()))
      AND (lease_expires_at IS NULL OR lease_expires_at <= factdiff_now_us())
    ORDER BY last_used_at, id
    LIMIT :limit
)
RETURNING id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
          schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at,
          error_attempts, error_streak, occurred_offset, lease_token, lease_expires_at, factdiff_now_us() AS claimed_at

-- name: claim_agent
-- One statement: pick due, unleased (or expired) entries in due order and lease them.
UPDATE entries
SET lease_token = lower(hex(randomblob(16))),
    lease_owner = :owner,
    lease_expires_at = factdiff_now_us() + :lease
WHERE id IN (
    SELECT id FROM entries INDEXED BY entries_due_agent
    WHERE tier = 'hot' AND status = 'active' AND agent_id = :agent
      AND last_used_at <= coalesce(:now, factdiff_now_us()) - :older_than
      AND (next_attempt_at IS NULL OR next_attempt_at <= coalesce(:now, factdiff_now_us()))
      AND (lease_expires_at IS NULL OR lease_expires_at <= factdiff_now_us())
    ORDER BY last_used_at, id
    LIMIT :limit
)
RETURNING id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
          schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at,
          error_attempts, error_streak, occurred_offset, lease_token, lease_expires_at, factdiff_now_us() AS claimed_at

-- name: heartbeat
UPDATE entries SET lease_expires_at = factdiff_now_us() + :lease
WHERE lease_token = :token AND lease_expires_at > factdiff_now_us()
RETURNING lease_expires_at

-- name: insert_event_pair
-- Two events in one row: the row takes id max + 2, so its first event's
-- id (id - 1) is never another row's (one writer at a time; events are never deleted).
INSERT INTO events (id, type, entry_id, agent_id, at, payload, packed,
                    then_type, then_payload, then_packed)
VALUES ((SELECT coalesce(max(id), 0) + 2 FROM events), :type, :entry_id, :agent_id, :at,
        :payload, :packed, :then_type, :then_payload, :then_packed)
