-- factdiff store, schema version 4: attempts that verify nothing (provider, model output or
-- internal errors) no longer count toward the ladder; every model call is accounted for.
-- error_attempts: every error attempt so far (attempt rows = attempt_count + error_attempts);
-- error_streak: error attempts since the last verified attempt (the error budget).

ALTER TABLE entries ADD COLUMN error_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN error_streak INTEGER NOT NULL DEFAULT 0;

ALTER TABLE attempts ADD COLUMN failure_class TEXT;
ALTER TABLE attempts ADD COLUMN must_keep TEXT;

CREATE TABLE model_calls (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    entry_id    TEXT NOT NULL REFERENCES entries (id),
    attempt_no  INTEGER NOT NULL,
    role        TEXT NOT NULL,
    model       TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    http_calls  INTEGER NOT NULL,
    tokens_in   INTEGER,
    tokens_out  INTEGER,
    cost_usd    TEXT,
    duration_ms REAL NOT NULL,
    at          INTEGER NOT NULL
);

CREATE INDEX model_calls_entry ON model_calls (entry_id, attempt_no);
CREATE INDEX model_calls_model ON model_calls (model, role);
