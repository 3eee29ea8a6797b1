-- Re-evaluation of warm entries under a newer schema version.
-- Work items live in reevaluations. The schema an entry was compressed under is its meta's
-- schema reference, in the warm row's identities (store_identities).

-- name: warm_schema_versions
-- How many warm entries (of :agent, when given) each version of :schema_name compressed.
SELECT w.schema_version AS version, count(*)
FROM (SELECT w.entry_id, json_extract(json_extract(i.value, '$.schema'), '$.name') AS schema_name,
        CAST(json_extract(json_extract(i.value, '$.schema'), '$.version') AS INTEGER) AS schema_version
      FROM warm_entries w LEFT JOIN store_identities i ON i.id = w.identity_ref) AS w
JOIN entries e ON e.id = w.entry_id
WHERE w.schema_name = :schema_name AND (:agent IS NULL OR e.agent_id = :agent)
GROUP BY w.schema_version
ORDER BY 1

-- name: enqueue_reevaluations
-- Every warm entry compressed under :schema_name version :from_version becomes a pending
-- item for :to_version; an item already there (pending or done) is kept.
INSERT INTO reevaluations (entry_id, agent_id, schema_name, from_version, to_version,
                           enqueued_at)
SELECT w.entry_id, e.agent_id, :schema_name, :from_version, :to_version, :now
FROM (SELECT w.entry_id, json_extract(json_extract(i.value, '$.schema'), '$.name') AS schema_name,
        CAST(json_extract(json_extract(i.value, '$.schema'), '$.version') AS INTEGER) AS schema_version
      FROM warm_entries w LEFT JOIN store_identities i ON i.id = w.identity_ref) AS w
JOIN entries e ON e.id = w.entry_id
WHERE w.schema_name = :schema_name AND w.schema_version = :from_version
  AND (:agent IS NULL OR e.agent_id = :agent)
ORDER BY w.entry_id
ON CONFLICT DO NOTHING

-- name: warm_candidates_page
-- Warm entries compressed under :schema_name version :from_version (for a dry run).
SELECT w.entry_id FROM (SELECT w.entry_id, json_extract(json_extract(i.value, '$.schema'), '$.name') AS schema_name,
        CAST(json_extract(json_extract(i.value, '$.schema'), '$.version') AS INTEGER) AS schema_version
      FROM warm_entries w LEFT JOIN store_identities i ON i.id = w.identity_ref) AS w
JOIN entries e ON e.id = w.entry_id
WHERE w.schema_name = :schema_name AND w.schema_version = :from_version
  AND (:agent IS NULL OR e.agent_id = :agent) AND w.entry_id > :after
ORDER BY w.entry_id
LIMIT :limit

-- name: claim_reevaluations
-- One statement: lease pending, unleased (or expired) items in id order.
UPDATE reevaluations
SET lease_token = lower(hex(randomblob(16))), lease_owner = :owner, lease_expires_at = factdiff_now_us() + :lease
WHERE id IN (
    SELECT id FROM reevaluations INDEXED BY reevaluations_pending
    WHERE status = 'pending'
      AND (:schema_name IS NULL OR schema_name = :schema_name)
      AND (:agent IS NULL OR agent_id = :agent)
      AND (lease_expires_at IS NULL OR lease_expires_at <= factdiff_now_us())
    ORDER BY id
    LIMIT :limit
)
RETURNING id, entry_id, agent_id, schema_name, from_version, to_version, lease_token,
          lease_expires_at

-- name: heartbeat_reevaluation
UPDATE reevaluations SET lease_expires_at = factdiff_now_us() + :lease
WHERE lease_token = :token AND status = 'pending' AND lease_expires_at > factdiff_now_us()
RETURNING lease_expires_at

-- name: select_warm_state
-- Inside the finishing transaction: the warm row as it is now (locked on PostgreSQL).
SELECT attempt_no, meta FROM warm_entries WHERE entry_id = :id

-- name: pending_reevaluations
SELECT count(*) FROM reevaluations
WHERE status = 'pending' AND (:schema_name IS NULL OR schema_name = :schema_name)
  AND (:agent IS NULL OR agent_id = :agent)

-- name: reevaluation_results
-- Finished items per schema name, target version and result.
SELECT schema_name, to_version, result, count(*) AS n FROM reevaluations
WHERE status = 'done' AND (:agent IS NULL OR agent_id = :agent)
GROUP BY schema_name, to_version, result
ORDER BY schema_name, to_version, result
