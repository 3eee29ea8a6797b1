-- factdiff store, schema version 17: sessions of the review pages, ended on the server.
-- A signed-in session of the `/ui` pages is a row; its cookie carries a random token, kept
-- here only as its SHA-256 (hex). Signing out sets ended_at, so the cookie is refused from
-- then on by every process of `factdiff serve`. Rows past expires_at are deleted at the next
-- sign-in. (Version 16 is left to another migration.)

CREATE TABLE ui_sessions (
    token_hash text PRIMARY KEY,
    key_name   text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    ended_at   bigint
);

CREATE INDEX ui_sessions_expiry ON ui_sessions (expires_at);
