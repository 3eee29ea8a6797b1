-- Erasure and correction statements (factdiff forget / factdiff correct), SQLite.
-- A statement left empty (comments only) is one this dialect does not need.

-- name: erase_secure_delete
-- Deleted rows are overwritten with zeros on this connection from now on.
PRAGMA secure_delete = ON

-- name: erase_search_text
-- A contentless FTS5 table forgets a row given the very text it indexed.
INSERT INTO search_text (search_text, rowid, source) VALUES ('delete', :doc, :text)

-- name: erase_search_text_merge
-- Merge every segment into one: the deleted row's terms leave the index's pages.
INSERT INTO search_text (search_text) VALUES ('optimize')

-- name: vacuum_tables
-- VACUUM rewrites the whole file: the list is informative only.
SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name

-- name: vacuum
-- Rebuild the file without free pages, then empty the write-ahead log into it.
PRAGMA secure_delete = ON;
VACUUM;
PRAGMA wal_checkpoint(TRUNCATE);

-- name: correct_search_body
-- After erase_search_text has removed the previous text's row.
INSERT INTO search_text (rowid, source) VALUES (:doc, :text)
