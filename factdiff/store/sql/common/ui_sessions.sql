-- Statements of the review pages' sessions.

-- name: insert_ui_session
INSERT INTO ui_sessions (token_hash, key_name, created_at, expires_at)
VALUES (:token_hash, :key_name, :now, :expires_at)

-- name: select_ui_session
-- The key name of a live session: not ended, not expired.
SELECT key_name FROM ui_sessions
WHERE token_hash = :token_hash AND ended_at IS NULL AND expires_at > :now

-- name: end_ui_session
UPDATE ui_sessions SET ended_at = :now WHERE token_hash = :token_hash AND ended_at IS NULL

-- name: delete_expired_ui_sessions
DELETE FROM ui_sessions WHERE expires_at <= :now
