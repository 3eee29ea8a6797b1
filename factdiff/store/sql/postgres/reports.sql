-- Reporting reads: registered schemas and their users, per-agent memory health, loss
-- patterns of verified attempts.

-- name: agent_entry_counts
-- Per agent: entries, warm entries, warm entries with known gaps, entries waiting for review
-- (review_backlog_by_agent's waiting) and entries kept hot. Warm meta is compact JSON: the
-- known gaps are g (and l, the lost field names, when they are not the gaps' own).
SELECT e.agent_id, count(*) AS entries,
       sum(CASE WHEN e.tier = 'warm' THEN 1 ELSE 0 END) AS warm,
       sum(CASE WHEN w.entry_id IS NOT NULL AND coalesce(jsonb_array_length(convert_from(w.meta, 'UTF8')::jsonb -> 'g'), jsonb_array_length(convert_from(w.meta, 'UTF8')::jsonb -> 'l'), 0) > 0 THEN 1 ELSE 0 END) AS warm_with_gaps,
       sum(CASE WHEN e.status = 'review' AND k.entry_id IS NULL THEN 1 ELSE 0 END) AS review,
       sum(CASE WHEN k.entry_id IS NOT NULL THEN 1 ELSE 0 END) AS kept_hot
FROM entries e LEFT JOIN warm_entries w ON w.entry_id = e.id
LEFT JOIN kept_hot k ON k.entry_id = e.id
GROUP BY e.agent_id ORDER BY e.agent_id

-- name: agent_coverage
-- Per agent, over its warm entries whose check coverage is kept (compact meta key v:
-- [sentences, verified, facts kept, dropped, packed spans of the dropped]): those entries,
-- their source sentences, the verified ones and the dropped unverified ones.
SELECT e.agent_id, count(*) AS entries,
       sum((m.meta -> 'v' ->> 0)::bigint) AS sentences,
       sum((m.meta -> 'v' ->> 1)::bigint) AS verified,
       sum((m.meta -> 'v' ->> 3)::bigint) AS dropped
FROM (SELECT entry_id, convert_from(meta, 'UTF8')::jsonb AS meta FROM warm_entries) AS m
JOIN entries e ON e.id = m.entry_id
WHERE jsonb_typeof(m.meta -> 'v') = 'array'
GROUP BY e.agent_id ORDER BY e.agent_id

-- name: loss_attempts_page
-- Verified attempts with their diff (packed, or JSON text once redacted), for loss patterns (filters: schema, agent, since).
SELECT a.id, a.entry_id, a.schema_name, a.schema_version, a.summarizer, a.outcome, a.diff,
       a.packed
FROM attempt_rows a JOIN entries e ON e.id = a.entry_id
WHERE a.outcome IN ('clean', 'acceptable_with_notes', 'failed') AND a.id > :after
  AND (:schema_name::text IS NULL OR a.schema_name = :schema_name)
  AND (:agent::text IS NULL OR e.agent_id = :agent)
  AND (:since::bigint IS NULL OR a.finished_at >= :since)
ORDER BY a.id
LIMIT :limit
