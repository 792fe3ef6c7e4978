-- 001_init: the whole embedded knowledge base in one file.

-- meta holds store-wide facts, such as the embedder that wrote the vectors
-- and the graph's version counter.
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

-- documents: one row per ingested file or chat thread. Key is unique within
-- its workspace; workspace '' holds files, visible to every workspace.
CREATE TABLE documents (
	id        INTEGER PRIMARY KEY,
	workspace TEXT    NOT NULL DEFAULT '',
	key       TEXT    NOT NULL,
	channel   TEXT    NOT NULL DEFAULT '',
	private   INTEGER NOT NULL DEFAULT 0,
	title     TEXT    NOT NULL DEFAULT '',
	location  TEXT    NOT NULL DEFAULT '',
	hash      TEXT    NOT NULL DEFAULT '',
	metadata  TEXT    NOT NULL DEFAULT '{}',
	updated   INTEGER NOT NULL, -- unix milliseconds
	UNIQUE (workspace, key)
) STRICT;

-- chunks: the searchable pieces. embedding is little-endian float32, NULL
-- when the document was ingested without an embedder.
CREATE TABLE chunks (
	id          INTEGER PRIMARY KEY,
	document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
	idx         INTEGER NOT NULL,
	heading     TEXT    NOT NULL DEFAULT '',
	content     TEXT    NOT NULL,
	embedding   BLOB,
	UNIQUE (document_id, idx)
) STRICT;

-- chunks_fts indexes each chunk with its document's title and heading. Its
-- rowid is the chunk id. The triggers below keep it in step with chunks;
-- a document's chunks are always replaced as a whole, so the copied title
-- is refreshed whenever the document changes. The porter stemmer lets
-- "refunds" find "refund" and "travelling" find "travel".
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
	title, heading, content,
	tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_fts (rowid, title, heading, content)
	SELECT new.id, d.title, new.heading, new.content
	FROM documents d WHERE d.id = new.document_id;
END;

CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
	DELETE FROM chunks_fts WHERE rowid = old.id;
END;

-- nodes and edges: the knowledge graph. name_norm is the name lowercased
-- with punctuation collapsed to single spaces, for entity matching.
CREATE TABLE nodes (
	id        TEXT PRIMARY KEY,
	label     TEXT NOT NULL DEFAULT '',
	name      TEXT NOT NULL,
	name_norm TEXT NOT NULL,
	props     TEXT NOT NULL DEFAULT '{}',
	source    TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX nodes_name_norm ON nodes (name_norm);
CREATE INDEX nodes_label ON nodes (label COLLATE NOCASE);

CREATE TABLE edges (
	id     INTEGER PRIMARY KEY,
	source TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
	type   TEXT NOT NULL,
	target TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
	props  TEXT NOT NULL DEFAULT '{}',
	origin TEXT NOT NULL DEFAULT '',
	UNIQUE (source, type, target)
) STRICT;

CREATE INDEX edges_target ON edges (target);

-- threads: per-conversation agent state (agent.Thread as JSON).
CREATE TABLE threads (
	id      TEXT PRIMARY KEY,
	state   TEXT    NOT NULL,
	updated INTEGER NOT NULL -- unix milliseconds
) STRICT;

CREATE INDEX threads_updated ON threads (updated);
