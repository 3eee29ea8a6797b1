-- Erasure and correction statements (factdiff forget / factdiff correct).
-- The statements below read alike in both dialects; sql/<dialect>/erasure.sql holds the others.

-- name: erase_guard_open
INSERT INTO erasure_pending (entry_id) VALUES (:entry_id)

-- name: erase_guard_close
DELETE FROM erasure_pending WHERE entry_id = :entry_id

-- name: erase_attempt_rows
SELECT id, diff, summary, error, must_keep, packed FROM attempts WHERE entry_id = :entry_id
ORDER BY id

-- name: erase_redact_attempt
-- The packed diff and summary are cleared: the redacted ones are JSON text.
UPDATE attempts
SET diff = :diff, summary = :summary, error = :error, must_keep = :must_keep, packed = NULL
WHERE id = :id

-- name: erase_event_rows
SELECT id, payload, packed, then_type, then_payload, then_packed FROM events
WHERE entry_id = :entry_id ORDER BY id

-- name: erase_redact_event
-- A packed payload is cleared: the redacted payload is JSON text. A row's
-- second event, when it has one, is redacted alike (else stays NULL).
UPDATE events SET payload = :payload, packed = NULL, then_payload = :then_payload,
    then_packed = NULL
WHERE id = :id

-- name: erase_extraction_cache
DELETE FROM extraction_cache WHERE content_hash = :content_hash

-- name: erase_search_doc
DELETE FROM search_docs WHERE doc = :doc

-- name: erase_kept_hot
-- The keep-hot decision's reason may quote the entry.
DELETE FROM kept_hot WHERE entry_id = :entry_id

-- name: erase_reevaluations
-- Re-evaluation work items quote the entry's facts in their diffs.
DELETE FROM reevaluations WHERE entry_id = :entry_id

-- name: erase_entry
DELETE FROM entries WHERE id = :id

-- name: insert_tombstone
INSERT INTO tombstones (entry_id, agent_id, tier, erased_at, reason, content_hash)
VALUES (:entry_id, :agent_id, :tier, :erased_at, :reason, :content_hash)

-- name: select_tombstone
SELECT entry_id, agent_id, tier, erased_at, reason, content_hash FROM tombstones
WHERE entry_id = :entry_id

-- name: count_agent_tombstones
SELECT count(*) FROM tombstones WHERE agent_id = :agent

-- name: agent_entry_ids
SELECT id FROM entries WHERE agent_id = :agent AND id > :after ORDER BY id LIMIT :limit

-- name: correct_hot
UPDATE hot_content SET content = :content WHERE entry_id = :id

-- name: correct_entry
-- The corrected entry is due again: active, no scheduled retry, no lease, no error streak.
UPDATE entries
SET content_hash = :content_hash, size_bytes = :size_bytes, status = 'active',
    next_attempt_at = NULL, error_streak = 0,
    lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL
WHERE id = :id
