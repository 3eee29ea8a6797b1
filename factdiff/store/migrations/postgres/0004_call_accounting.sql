-- factdiff store, schema version 4: attempts that verify nothing (provider, model output or
-- internal errors) no longer count toward the ladder; every model call is accounted for.
-- error_attempts: every error attempt so far (attempt rows = attempt_count + error_attempts);
-- error_streak: error attempts since the last verified attempt (the error budget).

ALTER TABLE entries ADD COLUMN error_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE entries ADD COLUMN error_streak integer NOT NULL DEFAULT 0;

ALTER TABLE attempts ADD COLUMN failure_class text;
ALTER TABLE attempts ADD COLUMN must_keep text;

CREATE TABLE model_calls (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    entry_id    text COLLATE "C" NOT NULL REFERENCES entries (id),
    attempt_no  integer NOT NULL,
    role        text NOT NULL,
    model       text NOT NULL,
    outcome     text NOT NULL,
    http_calls  integer NOT NULL,
    tokens_in   integer,
    tokens_out  integer,
    cost_usd    text,
    duration_ms double precision NOT NULL,
    at          bigint NOT NULL
);

CREATE INDEX model_calls_entry ON model_calls (entry_id, attempt_no);
CREATE INDEX model_calls_model ON model_calls (model, role);
