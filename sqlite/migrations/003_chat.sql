-- 003_chat: what chat history ingestion needs.

-- A chunk of a chat thread knows the message it starts at: location is
-- that message's permalink ('' means the document's location), metadata
-- its author, timestamp and the like, as a JSON object merged over the
-- document's metadata when the chunk is retrieved.
ALTER TABLE chunks ADD COLUMN location TEXT NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';

-- ingest_cursors: how far the history ingest of each source ("slack:T123")
-- and channel has read, so that the next run starts there. The cursor is
-- opaque to the store.
CREATE TABLE ingest_cursors (
	source  TEXT    NOT NULL,
	channel TEXT    NOT NULL DEFAULT '',
	cursor  TEXT    NOT NULL,
	updated INTEGER NOT NULL, -- unix milliseconds
	PRIMARY KEY (source, channel)
) STRICT;
