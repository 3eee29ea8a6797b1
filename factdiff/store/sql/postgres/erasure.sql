-- Erasure and correction statements (factdiff forget / factdiff correct), PostgreSQL.
-- A statement left empty (comments only) is one this dialect does not need.

-- name: erase_secure_delete
-- PostgreSQL keeps a deleted tuple's bytes until VACUUM FULL rewrites the table.

-- name: erase_search_text
-- The text index is search_docs.body: it goes with the search_docs row.

-- name: erase_search_text_merge
-- GIN entries of deleted rows are removed by VACUUM.

-- name: vacuum_tables
-- The store's own tables (never another schema's: the database may hold other stores).
SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables
WHERE schemaname = current_schema() ORDER BY tablename

-- name: vacuum
-- Rewrite the store's tables (and their indexes) without dead tuples.
VACUUM FULL {tables}

-- name: correct_search_body
UPDATE search_docs SET body = to_tsvector('factdiff_text', left(:text, 262144)) WHERE doc = :doc
