-- 003_chunk_location: a chunk of a chat thread knows the message it starts
-- at. location is that message's permalink ('' means the document's
-- location); metadata its author, timestamp and the like, merged over the
-- document's metadata when the chunk is retrieved. (ingest_cursors, which
-- chat ingestion also needs, is in 001.)
ALTER TABLE chunks
	ADD COLUMN location text  NOT NULL DEFAULT '',
	ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
