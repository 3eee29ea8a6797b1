-- Reporting reads: registered schemas and their users, per-agent memory health, loss
-- patterns of verified attempts.

-- name: agent_entry_counts
-- Per agent: entries, warm entries, warm entries with known gaps, entries waiting for review
-- (review_backlog_by_agent's waiting) and entries kept hot. Warm meta is compact JSON: the
-- known gaps are g (and l, the lost field names, when they are not the gaps' own).
SELECT e.agent_id, count(*) AS entries,
       sum(CASE WHEN e.tier = 'warm' THEN 1 ELSE 0 END) AS warm,
       sum(CASE WHEN w.entry_id IS NOT NULL AND coalesce(json_array_length(CAST(w.meta AS TEXT), '$.g'), json_array_length(CAST(w.meta AS TEXT), '$.l'), 0) > 0 THEN 1 ELSE 0 END) AS warm_with_gaps,
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
       sum(json_extract(m.meta, '$.v[0]')) AS sentences,
       sum(json_extract(m.meta, '$.v[1]')) AS verified,
       sum(json_extract(m.meta, '$.v[3]')) AS dropped
FROM (SELECT entry_id, CAST(meta AS TEXT) AS meta FROM warm_entries) AS m
JOIN entries e ON e.id = m.entry_id
WHERE json_type(m.meta, '$.v') = 'array'
GROUP BY e.agent_id ORDER BY e.agent_id

-- name: loss_attempts_page
-- Verified attempts with their diff (packed, or JSON text once redacted), for loss patterns (filters: schema, agent, since).
SELECT a.id, a.entry_id, a.schema_name, a.schema_version, a.summarizer, a.outcome, a.diff,
       a.packed
FROM attempt_rows a JOIN entries e ON e.id = a.entry_id
WHERE a.outcome IN ('clean', 'acceptable_with_notes', 'failed') AND a.id > :after
  AND (:schema_name IS NULL OR a.schema_name = :schema_name)
  AND (:agent IS NULL OR e.agent_id = :agent)
  AND (:since IS NULL OR a.finished_at >= :since)
ORDER BY a.id
LIMIT :limit
