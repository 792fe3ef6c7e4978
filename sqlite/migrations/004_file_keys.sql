-- 004_file_keys: files are keyed by their canonical identity ('file:' and
-- the path within their checkout, see ingest.Files); earlier versions keyed
-- them by the path as typed, so one file could be stored as 'docs/a.md',
-- '../docs/a.md' and '/abs/docs/a.md'. Copies of one file (the same file
-- name and content) are merged here, keeping the first stored; the next
-- ingest renames what is left to the canonical key. Votes (answers, votes)
-- and threads do not refer to documents and are kept as they are.
CREATE TEMP TABLE legacy_files AS
	SELECT id, hash, substr(key, length(rtrim(key, replace(key, '/', ''))) + 1) AS base
	FROM documents
	WHERE workspace = '' AND key NOT LIKE 'file:%' AND key NOT LIKE 'examples/%';

CREATE TEMP TABLE legacy_copies AS
	SELECT l.id FROM legacy_files l
	WHERE EXISTS (SELECT 1 FROM legacy_files o WHERE o.base = l.base AND o.hash = l.hash AND o.id < l.id);

-- Chunks first, so that their full-text trigger runs.
DELETE FROM chunks WHERE document_id IN (SELECT id FROM legacy_copies);
DELETE FROM documents WHERE id IN (SELECT id FROM legacy_copies);

-- The demo knowledge base was loaded into an empty store and stayed when
-- people ingested their own documents. It is for a store nobody has
-- ingested into: where other documents or nodes are stored, it goes;
-- where it is alone, it is marked as the demo, to be removed by the first
-- ingest.
CREATE TEMP TABLE demo_state AS SELECT
	EXISTS (SELECT 1 FROM documents WHERE workspace = '' AND key LIKE 'examples/docs/%') AS present,
	EXISTS (SELECT 1 FROM documents WHERE NOT (workspace = '' AND key LIKE 'examples/docs/%'))
	OR EXISTS (SELECT 1 FROM nodes WHERE source <> 'graph/nodes.csv') AS mixed;

DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE workspace = '' AND key LIKE 'examples/docs/%')
	AND (SELECT present AND mixed FROM demo_state);
DELETE FROM documents WHERE workspace = '' AND key LIKE 'examples/docs/%' AND (SELECT present AND mixed FROM demo_state);
DELETE FROM edges WHERE origin = 'graph/edges.csv' AND (SELECT present AND mixed FROM demo_state);
DELETE FROM nodes WHERE source = 'graph/nodes.csv' AND (SELECT present AND mixed FROM demo_state)
	AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.source = nodes.id OR e.target = nodes.id);
INSERT INTO meta (key, value) SELECT 'graph_version', '1' WHERE (SELECT present AND mixed FROM demo_state)
	ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
INSERT INTO meta (key, value) SELECT 'demo', '1' WHERE (SELECT present AND NOT mixed FROM demo_state)
	ON CONFLICT (key) DO NOTHING;

DROP TABLE legacy_files;
DROP TABLE legacy_copies;
DROP TABLE demo_state;
