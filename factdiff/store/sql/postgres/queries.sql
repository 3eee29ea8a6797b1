-- The PostgreSQL store's own statements, one named block each (`-- name: <key>`); those
-- that read alike in both dialects are in sql/common/queries.sql.
-- Parameters are named (:name) and become %(name)s when loaded. `{filters}` marks where
-- optional `filter_*` blocks go. Times are bigint microseconds since the epoch (UTC);
-- factdiff_now_us() is the database clock (statement_timestamp(), STABLE so that it can
-- bound an index scan), used for every lease.

-- name: setup
SET idle_in_transaction_session_timeout = '{idle_ms}ms'

-- name: setup_read_only
SET default_transaction_read_only = on

-- name: selected_schema
-- The schema tables go to (NULL: no schema of the search_path exists), the search_path
-- as set, and the role (backends.pg_schema).
SELECT current_schema(), current_setting('search_path'), current_user

-- name: create_schema
CREATE SCHEMA IF NOT EXISTS {schema}

-- name: begin_read
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY

-- name: begin_write
SELECT 1

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

-- name: lock_migrations
SELECT pg_advisory_xact_lock(hashtext(coalesce(current_schema(), '') || '.factdiff'))

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
RETURNING attempt_count + error_attempts AS attempt_no

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
RETURNING attempt_count + error_attempts AS attempt_no

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
RETURNING attempt_count + error_attempts AS attempt_no

-- name: usage_by_summarizer
-- The cost is NULL (unknown) when some billed attempt has no known price.
SELECT summarizer, count(*) AS attempts, coalesce(sum(tokens_in), 0) AS tokens_in,
       coalesce(sum(tokens_out), 0) AS tokens_out,
       CASE WHEN count(*) FILTER (WHERE cost_usd IS NULL
                                   AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0) > 0
            THEN NULL ELSE sum(cost_usd::numeric) END AS cost_usd
FROM attempt_rows GROUP BY summarizer ORDER BY summarizer

-- name: usage_by_model
-- Every model call, per model and role; the cost is NULL when a billed call has no price.
SELECT model, role, count(*) AS calls, coalesce(sum(http_calls), 0) AS http_calls,
       count(*) FILTER (WHERE outcome <> 'ok') AS failed_calls,
       coalesce(sum(tokens_in), 0) AS tokens_in, coalesce(sum(tokens_out), 0) AS tokens_out,
       CASE WHEN count(*) FILTER (WHERE cost_usd IS NULL
                                   AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0) > 0
            THEN NULL ELSE sum(cost_usd::numeric) END AS cost_usd
FROM model_calls GROUP BY model, role ORDER BY model, role

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
          e.lease_token, e.lease_expires_at, factdiff_now_us() AS claimed_at

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
          e.lease_token, e.lease_expires_at, factdiff_now_us() AS claimed_at

-- name: heartbeat
UPDATE entries SET lease_expires_at = factdiff_now_us() + :lease::bigint
WHERE lease_token = :token AND lease_expires_at > factdiff_now_us()
RETURNING lease_expires_at
