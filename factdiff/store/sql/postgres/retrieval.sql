-- Retrieval statements (search indexes, use counts, warm hashes, attestations), PostgreSQL.
-- A statement left empty (comments only) is one this dialect does not need. Text queries
-- use the factdiff_text configuration (declared by the baseline), as the indexed tsvector does.

-- name: allocate_search_docs
SELECT nextval(pg_get_serial_sequence('search_docs', 'doc')) FROM generate_series(1, :n)

-- name: insert_search_doc
-- A tsvector holds at most 1 MB: the words of the first 262,144 characters are indexed
-- (enough for any dialogue entry; a larger entry's later words are found through its facts
-- only on PostgreSQL).
INSERT INTO search_docs (doc, entry_id, body)
VALUES (:doc, :entry_id, to_tsvector('factdiff_text', left(:text, 262144)))

-- name: insert_fact_keys
-- Many fact keys in one statement: :pairs is a JSON array of [key_hash, doc] (a row per
-- insert_fact_key would be a round trip each).
INSERT INTO fact_index (key_hash, doc)
SELECT (p ->> 0)::bigint, (p ->> 1)::bigint FROM json_array_elements(:pairs::json) AS p
ON CONFLICT DO NOTHING

-- name: insert_search_text
-- The tsvector is written with the doc (insert_search_doc).

-- name: clear_search_text
-- The tsvectors go with their docs (clear_search_docs).

-- name: search_term_counts
-- How many entries hold each query word of :terms (JSON array of letters-and-digits words),
-- counted up to :cap. A word the planner's statistics of the text index (ANALYZE's most
-- common elements) already know to be in more than :cap entries is not counted again: its
-- estimate is returned (counting it would visit :cap rows).
WITH common AS (
    SELECT u.lexeme, round(u.freq * c.reltuples) AS estimate
    FROM pg_stats AS s
    JOIN pg_namespace AS n ON n.nspname = s.schemaname
    JOIN pg_class AS c ON c.relnamespace = n.oid AND c.relname = s.tablename
    CROSS JOIN unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs)
        AS u(lexeme, freq)
    WHERE s.schemaname = current_schema() AND s.tablename = 'search_docs'
      AND s.attname = 'body' AND u.lexeme IS NOT NULL
), words AS (
    SELECT t.term, (
        SELECT v.lexeme FROM unnest(to_tsvector('factdiff_text', t.term)) AS v LIMIT 1
    ) AS lexeme
    FROM json_array_elements_text(:terms::json) AS t(term)
)
SELECT w.term,
       CASE WHEN k.estimate >= :cap THEN k.estimate
            ELSE (
                SELECT count(*) FROM (
                    SELECT 1 FROM search_docs
                    WHERE body @@ to_tsquery('factdiff_text', w.term) LIMIT :cap
                ) AS held
            )
       END
FROM words AS w LEFT JOIN common AS k ON k.lexeme = w.lexeme

-- name: search_text
-- The best entries for a text query: (doc, score), higher is better. ts_rank_cd has no
-- notion of how rare a word is, so each word is ranked apart and the ranks are combined as
-- bm25 combines term frequencies: ts_rank_cd of one word with every occurrence weighing 1
-- ('{1,1,1,1}') is the word's frequency tf in the entry; its share is
-- idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)) with k1 = 1.2, b = 0.75, dl the
-- entry's number of distinct words and avgdl their mean over the matching entries; the idf
-- comes from Python (:weights, a JSON object word -> weight). Only the 200 entries with the
-- highest idf-weighted count of the words they hold (a cheap test, no positions) are ranked
-- so. The words' queries are parsed once (MATERIALIZED); the match itself stays in WHERE,
-- where the GIN index serves it.
WITH words AS MATERIALIZED (
    SELECT to_tsquery('factdiff_text', j.term) AS q, j.weight::float8 AS weight
    FROM json_each_text(:weights::json) AS j(term, weight)
), matched AS MATERIALIZED (
    SELECT d.doc, d.body, length(d.body) AS dl
    FROM search_docs AS d
    WHERE d.body @@ to_tsquery('factdiff_text', :query)
), mean AS (
    SELECT greatest(avg(dl), 1) AS avgdl FROM matched
), rough AS (
    SELECT m.doc FROM matched AS m CROSS JOIN words AS w
    GROUP BY m.doc
    ORDER BY sum(w.weight * (m.body @@ w.q)::int) DESC, m.doc
    LIMIT 200
)
SELECT m.doc, sum(w.weight * r.tf * 2.2 / (r.tf + 1.2 * (0.25 + 0.75 * m.dl / mean.avgdl)))
FROM matched AS m
JOIN rough USING (doc)
CROSS JOIN mean
CROSS JOIN words AS w
CROSS JOIN LATERAL (SELECT ts_rank_cd('{1,1,1,1}'::float4[], m.body, w.q) AS tf) AS r
GROUP BY m.doc
ORDER BY 2 DESC, m.doc
LIMIT :limit

-- name: search_text_filtered
WITH words AS MATERIALIZED (
    SELECT to_tsquery('factdiff_text', j.term) AS q, j.weight::float8 AS weight
    FROM json_each_text(:weights::json) AS j(term, weight)
), matched AS MATERIALIZED (
    SELECT d.doc, d.body, length(d.body) AS dl
    FROM search_docs AS d
    JOIN entries AS e ON e.id = d.entry_id
    WHERE d.body @@ to_tsquery('factdiff_text', :query) {filters}
), mean AS (
    SELECT greatest(avg(dl), 1) AS avgdl FROM matched
), rough AS (
    SELECT m.doc FROM matched AS m CROSS JOIN words AS w
    GROUP BY m.doc
    ORDER BY sum(w.weight * (m.body @@ w.q)::int) DESC, m.doc
    LIMIT 200
)
SELECT m.doc, sum(w.weight * r.tf * 2.2 / (r.tf + 1.2 * (0.25 + 0.75 * m.dl / mean.avgdl)))
FROM matched AS m
JOIN rough USING (doc)
CROSS JOIN mean
CROSS JOIN words AS w
CROSS JOIN LATERAL (SELECT ts_rank_cd('{1,1,1,1}'::float4[], m.body, w.q) AS tf) AS r
GROUP BY m.doc
ORDER BY 2 DESC, m.doc
LIMIT :limit

-- name: search_text_scores
-- The text scores of the docs :docs (JSON array) for a text query (as search_text; the
-- mean length is over these docs).
WITH words AS MATERIALIZED (
    SELECT to_tsquery('factdiff_text', j.term) AS q, j.weight::float8 AS weight
    FROM json_each_text(:weights::json) AS j(term, weight)
), matched AS MATERIALIZED (
    SELECT d.doc, d.body, length(d.body) AS dl
    FROM search_docs AS d
    WHERE d.body @@ to_tsquery('factdiff_text', :query)
      AND d.doc IN (SELECT value::bigint FROM json_array_elements_text(:docs::json))
), mean AS (
    SELECT greatest(avg(dl), 1) AS avgdl FROM matched
), rough AS (
    SELECT m.doc FROM matched AS m CROSS JOIN words AS w
    GROUP BY m.doc
    ORDER BY sum(w.weight * (m.body @@ w.q)::int) DESC, m.doc
    LIMIT 200
)
SELECT m.doc, sum(w.weight * r.tf * 2.2 / (r.tf + 1.2 * (0.25 + 0.75 * m.dl / mean.avgdl)))
FROM matched AS m
JOIN rough USING (doc)
CROSS JOIN mean
CROSS JOIN words AS w
CROSS JOIN LATERAL (SELECT ts_rank_cd('{1,1,1,1}'::float4[], m.body, w.q) AS tf) AS r
GROUP BY m.doc

-- name: search_fact_counts
-- How many entries hold each fact key of :keys (JSON array), counted up to :cap.
SELECT k.key_hash, (
    SELECT count(*) FROM (
        SELECT doc FROM fact_index WHERE key_hash = k.key_hash LIMIT :cap
    ) AS held
) FROM (SELECT value::bigint AS key_hash FROM json_array_elements_text(:keys::json)) AS k

-- name: search_fact_docs
-- The docs holding the fact keys :keys (JSON array).
SELECT key_hash, doc FROM fact_index
WHERE key_hash IN (SELECT value::bigint FROM json_array_elements_text(:keys::json))

-- name: search_fact_hits
-- Which of the fact keys :keys (JSON array) each of the docs :docs (JSON array) holds.
SELECT key_hash, doc FROM fact_index
WHERE key_hash IN (SELECT value::bigint FROM json_array_elements_text(:keys::json))
  AND doc IN (SELECT value::bigint FROM json_array_elements_text(:docs::json))

-- name: search_docs_entries
-- The entries of the docs :docs (JSON array): doc, id, agent, tier.
SELECT d.doc, e.id, e.agent_id, e.tier FROM search_docs AS d
JOIN entries AS e ON e.id = d.entry_id
WHERE d.doc IN (SELECT value::bigint FROM json_array_elements_text(:docs::json))

-- name: search_hit_rows
-- The entries :ids (JSON array) as a search shows them: the entry columns (as select_entry),
-- its hot content, warm row, stored hot record and the keys its narrative states.
SELECT e.id, e.agent_id, e.tier, e.status, e.occurred_at, e.created_at, e.last_used_at,
       e.metadata, e.schema_name, e.tags, e.content_hash, e.size_bytes, e.attempt_count,
       e.next_attempt_at, e.error_attempts, e.error_streak, e.occurred_offset,
       h.content, w.narrative, w.record, w.meta, w.attempt_no, w.compressed_at,
       w.encoding, w.dictionary_id, w.identity_ref, w.facts_digest, w.source_codec,
       w.source, w.source_dictionary_id,
       r.record AS hot_record, w.narrative_keys
FROM entries AS e
LEFT JOIN hot_content AS h ON h.entry_id = e.id
LEFT JOIN warm_entries AS w ON w.entry_id = e.id
LEFT JOIN hot_records AS r ON r.entry_id = e.id
WHERE e.id IN (SELECT value FROM json_array_elements_text(:ids::json))
