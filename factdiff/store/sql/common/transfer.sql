-- Moving a store (factdiff.store.transfer): every record family's count, its pages in a
-- deterministic order (keyset: :after_<column> and :limit) and its insert. CAST(:agent AS
-- TEXT) IS NULL: every agent; otherwise only that agent's rows. Autoincrement ids serve as
-- page keys only (never exported, except events'): the rows they stand for are inserted in
-- page order, so a re-export lists them alike. sql/<dialect>/transfer.sql holds the pages
-- whose text order needs the dialect (PostgreSQL's COLLATE "C"), the events insert (ids
-- kept) and what an import runs last.

-- name: transfer_target_rows
-- 1 when the store holds any record an import would write.
SELECT CASE WHEN EXISTS (SELECT 1 FROM entries) OR EXISTS (SELECT 1 FROM tombstones)
    OR EXISTS (SELECT 1 FROM events) OR EXISTS (SELECT 1 FROM schemas)
    OR EXISTS (SELECT 1 FROM agent_schemas) OR EXISTS (SELECT 1 FROM api_keys)
    OR EXISTS (SELECT 1 FROM attempts) OR EXISTS (SELECT 1 FROM model_calls)
    OR EXISTS (SELECT 1 FROM zstd_dictionaries) OR EXISTS (SELECT 1 FROM store_identities)
    OR EXISTS (SELECT 1 FROM attestations) OR EXISTS (SELECT 1 FROM extraction_cache)
    OR EXISTS (SELECT 1 FROM reevaluations) OR EXISTS (SELECT 1 FROM source_fetches)
    THEN 1 ELSE 0 END

-- name: transfer_identity_count
SELECT count(*) FROM store_identities

-- name: transfer_identity_page
SELECT id, kind, value FROM store_identities WHERE id > :after_id ORDER BY id LIMIT :limit

-- name: transfer_identity_insert
INSERT INTO store_identities (kind, value) VALUES (:kind, :value)

-- name: transfer_schema_count
SELECT count(*) FROM schemas

-- name: transfer_schema_insert
INSERT INTO schemas (name, version, hash, definition, source_text, registered_at)
VALUES (:name, :version, :hash, :definition, :source_text, :registered_at)

-- name: transfer_agent_schema_count
SELECT count(*) FROM agent_schemas WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_agent_schema_insert
INSERT INTO agent_schemas (agent_id, tag, schema_name) VALUES (:agent_id, :tag, :schema_name)

-- name: transfer_api_key_count
SELECT count(*) FROM api_keys WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_api_key_insert
INSERT INTO api_keys (name, scope, agent_id, key_hash, created_at, revoked_at)
VALUES (:name, :scope, :agent_id, :key_hash, :created_at, :revoked_at)

-- name: transfer_dictionary_count
SELECT count(*) FROM zstd_dictionaries
WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_dictionary_page
SELECT id, agent_id, version, hash, data, trained_on, created_at
FROM zstd_dictionaries
WHERE id > :after_id AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY id LIMIT :limit

-- name: transfer_dictionary_insert
INSERT INTO zstd_dictionaries (agent_id, version, hash, data, trained_on, created_at)
VALUES (:agent_id, :version, :hash, :data, :trained_on, :created_at)

-- name: transfer_entry_count
SELECT count(*) FROM entries WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_entry_page
-- An entry with its hot content, or its warm row and cold archive (dictionaries and
-- identities by their natural keys), and its keep-hot mark. Leases are not exported.
SELECT e.id, e.agent_id, e.tier, e.status, e.occurred_at, e.created_at, e.last_used_at,
       e.metadata, e.schema_name, e.tags, e.content_hash, e.size_bytes, e.attempt_count,
       e.next_attempt_at, e.occurred_offset, e.error_attempts, e.error_streak,
       h.content,
       w.narrative AS warm_narrative, w.record AS warm_record, w.meta AS warm_meta,
       w.attempt_no AS warm_attempt_no, w.compressed_at AS warm_compressed_at,
       w.encoding AS warm_encoding, d.agent_id AS warm_dictionary_agent,
       d.version AS warm_dictionary_version, i.kind AS warm_identity_kind,
       i.value AS warm_identity_value, w.facts_digest AS warm_facts_digest,
       w.narrative_hash AS warm_narrative_hash, w.record_hash AS warm_record_hash,
       w.narrative_keys AS warm_narrative_keys,
       w.source_codec AS cold_codec, s.agent_id AS cold_dictionary_agent,
       s.version AS cold_dictionary_version, w.source AS cold_source,
       k.kept_at, k.key_name AS kept_key_name, k.reason AS kept_reason
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
LEFT JOIN zstd_dictionaries AS d ON d.id = w.dictionary_id
LEFT JOIN zstd_dictionaries AS s ON s.id = w.source_dictionary_id
LEFT JOIN store_identities AS i ON i.id = w.identity_ref
LEFT JOIN kept_hot AS k ON k.entry_id = e.id
WHERE e.id > :after_id AND (CAST(:agent AS TEXT) IS NULL OR e.agent_id = :agent)
ORDER BY e.id LIMIT :limit

-- name: transfer_entry_insert
INSERT INTO entries (
    id, agent_id, tier, status, occurred_at, created_at, last_used_at, metadata,
    schema_name, tags, content_hash, size_bytes, attempt_count, next_attempt_at,
    occurred_offset, error_attempts, error_streak
) VALUES (
    :id, :agent_id, :tier, :status, :occurred_at, :created_at, :last_used_at, :metadata,
    :schema_name, :tags, :content_hash, :size_bytes, :attempt_count, :next_attempt_at,
    :occurred_offset, :error_attempts, :error_streak
)

-- name: transfer_hot_insert
INSERT INTO hot_content (entry_id, content) VALUES (:id, :content)

-- name: transfer_warm_insert
INSERT INTO warm_entries (
    entry_id, narrative, record, meta, attempt_no, compressed_at, encoding, dictionary_id,
    identity_ref, facts_digest, narrative_hash, record_hash, narrative_keys, source_codec,
    source_dictionary_id, source
) VALUES (
    :id, :warm_narrative, :warm_record, :warm_meta, :warm_attempt_no, :warm_compressed_at,
    :warm_encoding,
    (SELECT id FROM zstd_dictionaries
     WHERE agent_id = :warm_dictionary_agent AND version = :warm_dictionary_version),
    (SELECT id FROM store_identities
     WHERE kind = :warm_identity_kind AND value = :warm_identity_value),
    :warm_facts_digest, :warm_narrative_hash, :warm_record_hash, :warm_narrative_keys,
    :cold_codec,
    (SELECT id FROM zstd_dictionaries
     WHERE agent_id = :cold_dictionary_agent AND version = :cold_dictionary_version),
    :cold_source
)

-- name: transfer_kept_insert
INSERT INTO kept_hot (entry_id, kept_at, key_name, reason)
VALUES (:id, :kept_at, :kept_key_name, :kept_reason)

-- name: transfer_hot_record_count
SELECT count(*) FROM hot_records AS r JOIN entries AS e ON e.id = r.entry_id
WHERE (CAST(:agent AS TEXT) IS NULL OR e.agent_id = :agent)

-- name: transfer_hot_record_page
-- A hot entry's fact record as stored (the packed rules extraction of its source that its
-- fact keys come from): an import indexes it as it is instead of extracting it again.
SELECT r.entry_id, r.record FROM hot_records AS r JOIN entries AS e ON e.id = r.entry_id
WHERE r.entry_id > :after_entry_id AND (CAST(:agent AS TEXT) IS NULL OR e.agent_id = :agent)
ORDER BY r.entry_id LIMIT :limit

-- name: transfer_hot_record_insert
INSERT INTO hot_records (entry_id, record) VALUES (:entry_id, :record)

-- name: transfer_source_fetch_count
SELECT count(*) FROM (
    SELECT f.entry_id, f.at FROM source_fetches AS f
    WHERE (CAST(:agent AS TEXT) IS NULL
        OR f.entry_id IN (SELECT id FROM entries WHERE agent_id = :agent))
    GROUP BY f.entry_id, f.at
) AS fetched

-- name: transfer_source_fetch_page
-- Uses of an entry's cold source, one record per (entry, time) with how many.
SELECT f.entry_id, f.at, count(*) AS times FROM source_fetches AS f
WHERE (f.entry_id, f.at) > (:after_entry_id, :after_at)
    AND (CAST(:agent AS TEXT) IS NULL
        OR f.entry_id IN (SELECT id FROM entries WHERE agent_id = :agent))
GROUP BY f.entry_id, f.at
ORDER BY f.entry_id, f.at LIMIT :limit

-- name: transfer_source_fetch_insert
INSERT INTO source_fetches (entry_id, at) VALUES (:entry_id, :at)

-- name: transfer_attempt_count
SELECT count(*) FROM attempts AS a
WHERE (CAST(:agent AS TEXT) IS NULL OR a.entry_id IN (
    SELECT id FROM entries WHERE agent_id = :agent
    UNION ALL SELECT entry_id FROM tombstones WHERE agent_id = :agent))

-- name: transfer_attempt_page
SELECT a.id, a.entry_id, a.attempt_no, a.rung, a.budget_words, a.outcome, a.diff,
       a.summary, a.started_at, a.finished_at, a.duration_ms, a.tokens_in, a.tokens_out,
       a.cost_usd, a.error, a.schema_hash, a.failure_class, a.must_keep, a.packed,
       i.kind AS identity_kind, i.value AS identity_value
FROM attempts AS a JOIN store_identities AS i ON i.id = a.identity_ref
WHERE a.id > :after_id AND (CAST(:agent AS TEXT) IS NULL OR a.entry_id IN (
    SELECT id FROM entries WHERE agent_id = :agent
    UNION ALL SELECT entry_id FROM tombstones WHERE agent_id = :agent))
ORDER BY a.id LIMIT :limit

-- name: transfer_attempt_insert
INSERT INTO attempts (
    entry_id, attempt_no, rung, budget_words, outcome, diff, summary, started_at,
    finished_at, duration_ms, tokens_in, tokens_out, cost_usd, error, schema_hash,
    failure_class, must_keep, packed, identity_ref
) VALUES (
    :entry_id, :attempt_no, :rung, :budget_words, :outcome, :diff, :summary, :started_at,
    :finished_at, :duration_ms, :tokens_in, :tokens_out, :cost_usd, :error, :schema_hash,
    :failure_class, :must_keep, :packed,
    (SELECT id FROM store_identities WHERE kind = :identity_kind AND value = :identity_value)
)

-- name: transfer_model_call_count
SELECT count(*) FROM model_calls AS m
WHERE (CAST(:agent AS TEXT) IS NULL OR m.entry_id IN (
    SELECT id FROM entries WHERE agent_id = :agent
    UNION ALL SELECT entry_id FROM tombstones WHERE agent_id = :agent))

-- name: transfer_model_call_page
SELECT m.id, m.entry_id, m.attempt_no, m.role, m.model, m.outcome, m.http_calls,
       m.tokens_in, m.tokens_out, m.cost_usd, m.duration_ms, m.at
FROM model_calls AS m
WHERE m.id > :after_id AND (CAST(:agent AS TEXT) IS NULL OR m.entry_id IN (
    SELECT id FROM entries WHERE agent_id = :agent
    UNION ALL SELECT entry_id FROM tombstones WHERE agent_id = :agent))
ORDER BY m.id LIMIT :limit

-- name: transfer_model_call_insert
INSERT INTO model_calls (
    entry_id, attempt_no, role, model, outcome, http_calls, tokens_in, tokens_out,
    cost_usd, duration_ms, at
) VALUES (
    :entry_id, :attempt_no, :role, :model, :outcome, :http_calls, :tokens_in, :tokens_out,
    :cost_usd, :duration_ms, :at
)

-- name: transfer_reevaluation_count
SELECT count(*) FROM reevaluations WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_reevaluation_page
-- Leases are not exported (a claimed re-evaluation is pending again in the new store).
SELECT id, entry_id, agent_id, schema_name, from_version, to_version, status, result,
       fields, diff, enqueued_at, finished_at
FROM reevaluations
WHERE id > :after_id AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY id LIMIT :limit

-- name: transfer_reevaluation_insert
INSERT INTO reevaluations (
    entry_id, agent_id, schema_name, from_version, to_version, status, result, fields, diff,
    enqueued_at, finished_at
) VALUES (
    :entry_id, :agent_id, :schema_name, :from_version, :to_version, :status, :result,
    :fields, :diff, :enqueued_at, :finished_at
)

-- name: transfer_tombstone_count
SELECT count(*) FROM tombstones WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_tombstone_page
SELECT entry_id, agent_id, tier, erased_at, reason, content_hash
FROM tombstones
WHERE entry_id > :after_entry_id AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY entry_id LIMIT :limit

-- name: transfer_tombstone_insert
INSERT INTO tombstones (entry_id, agent_id, tier, erased_at, reason, content_hash)
VALUES (:entry_id, :agent_id, :tier, :erased_at, :reason, :content_hash)

-- name: transfer_event_count
SELECT count(*) FROM events WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_event_page
-- The record's type is `event`, the event's own type its event_type. Events keep their ids:
-- they are the event cursor (`factdiff events --after`, the API's), and a row of two holds
-- events id - 1 and id.
SELECT id, type AS event_type, entry_id, agent_id, at, payload, packed, then_type,
       then_payload, then_packed
FROM events
WHERE id > :after_id AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY id LIMIT :limit

-- name: transfer_event_insert
INSERT INTO events (id, type, entry_id, agent_id, at, payload, packed, then_type,
                    then_payload, then_packed)
VALUES (:id, :event_type, :entry_id, :agent_id, :at, :payload, :packed, :then_type,
        :then_payload, :then_packed)

-- name: transfer_attestation_count
SELECT count(*) FROM attestations WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_attestation_page
SELECT decision_id, agent_id, rendered_hash, digest, attested_at
FROM attestations
WHERE (decision_id, agent_id) > (:after_decision_id, :after_agent_id)
    AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY decision_id, agent_id LIMIT :limit

-- name: transfer_attestation_insert
INSERT INTO attestations (decision_id, rendered_hash, digest, attested_at, agent_id)
VALUES (:decision_id, :rendered_hash, :digest, :attested_at, :agent_id)

-- name: transfer_attestation_entry_count
SELECT count(*) FROM attestation_entries
WHERE (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)

-- name: transfer_attestation_entry_page
SELECT decision_id, agent_id, position, entry_id, tier, schema_name, schema_version,
       source_hash, rendered_hash
FROM attestation_entries
WHERE (decision_id, agent_id, position) > (:after_decision_id, :after_agent_id, :after_position)
    AND (CAST(:agent AS TEXT) IS NULL OR agent_id = :agent)
ORDER BY decision_id, agent_id, position LIMIT :limit

-- name: transfer_attestation_entry_insert
INSERT INTO attestation_entries (
    decision_id, position, entry_id, tier, schema_name, schema_version, source_hash,
    rendered_hash, agent_id
) VALUES (
    :decision_id, :position, :entry_id, :tier, :schema_name, :schema_version, :source_hash,
    :rendered_hash, :agent_id
)

-- name: transfer_extraction_count
SELECT count(*) FROM extraction_cache

-- name: transfer_extraction_insert
INSERT INTO extraction_cache (content_hash, schema_hash, extractor_id, record)
VALUES (:content_hash, :schema_hash, :extractor_id, :record)
