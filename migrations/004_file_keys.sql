-- 004_file_keys: files are keyed by their canonical identity ('file:' and
-- the path within their checkout, see ingest.Files); earlier versions keyed
-- them by the path as typed, so one file could be stored as 'docs/a.md',
-- '../docs/a.md' and '/abs/docs/a.md'. Copies of one file (the same file
-- name and content) are merged here, keeping the first stored; the next
-- ingest renames what is left to the canonical key (and "unchanged" it
-- is). Votes (answers, feedback) and threads do not refer to documents and
-- are kept as they are. Chat documents (a workspace) and the demo's
-- ('examples/…', never loaded into PostgreSQL) are not touched.
WITH legacy AS (
	SELECT id, hash, regexp_replace(key, '^.*/', '') AS base
	FROM documents
	WHERE workspace = '' AND NOT starts_with(key, 'file:') AND NOT starts_with(key, 'examples/')
)
DELETE FROM documents d
USING legacy l
WHERE d.id = l.id
	AND EXISTS (SELECT 1 FROM legacy o WHERE o.base = l.base AND o.hash = l.hash AND o.id < l.id);
