-- factdiff store, schema version 15: an attempt names its identities by reference, and a
-- warm row's index hashes are fingerprints.
-- Every attempt row repeated its summarizer, extractor, method version and schema name as
--   text (about 36 bytes, as much as the rest of a clean attempt). An attempt row now names
--   them once, in `store_identities` (kind `attempt`: the compact JSON array [summarizer,
--   extractor, method version, schema name, schema version]), by `identity_ref`; its own
--   columns are then '' (summarizer, extractor, method version) and NULL (schema).
--   `attempt_rows` reads every attempt with its identities, whichever way it was written;
--   rows written before keep their text.
-- A warm row's `narrative_hash` and `record_hash` tell `verify` that the narrative and the
--   record are the ones indexed, unchanged behind the store's back. Nothing in the same
--   row can stop someone who rewrites the hash too, so the first 8 bytes of each SHA-256
--   serve as well as 32 (a chance edit matches one in 2^64); the rows already written are
--   cut to 8 bytes here.

ALTER TABLE attempts ADD COLUMN identity_ref INTEGER REFERENCES store_identities (id);

CREATE VIEW attempt_rows AS
SELECT a.id, a.entry_id, a.attempt_no, a.rung,
       CASE WHEN a.identity_ref IS NULL THEN a.summarizer
            ELSE json_extract(i.value, '$[0]') END AS summarizer,
       CASE WHEN a.identity_ref IS NULL THEN a.extractor
            ELSE json_extract(i.value, '$[1]') END AS extractor,
       CASE WHEN a.identity_ref IS NULL THEN a.method_version
            ELSE json_extract(i.value, '$[2]') END AS method_version,
       a.budget_words, a.outcome, a.diff, a.summary, a.started_at, a.finished_at,
       a.duration_ms, a.tokens_in, a.tokens_out, a.cost_usd, a.error,
       CASE WHEN a.identity_ref IS NULL THEN a.schema_name
            ELSE json_extract(i.value, '$[3]') END AS schema_name,
       CASE WHEN a.identity_ref IS NULL THEN a.schema_version
            ELSE json_extract(i.value, '$[4]') END AS schema_version,
       a.schema_hash, a.failure_class, a.must_keep, a.packed
FROM attempts AS a
LEFT JOIN store_identities AS i ON i.id = a.identity_ref;

UPDATE warm_entries
SET narrative_hash = substr(narrative_hash, 1, 8), record_hash = substr(record_hash, 1, 8)
WHERE typeof(narrative_hash) = 'blob' AND length(narrative_hash) = 32
  AND typeof(record_hash) = 'blob' AND length(record_hash) = 32;
