-- 001_init: the production knowledge base, thread state and replica
-- coordination. Applied by postgres.DB.Migrate in one transaction.
--
-- Every object is created unqualified, in the first schema of the
-- search_path, so that tests (and several deployments sharing a database)
-- can each live in their own schema. pgvector's type is found through the
-- search_path too; its extension is database-wide.
CREATE EXTENSION IF NOT EXISTS vector;

-- meta holds store-wide facts, such as the name of the embedder that wrote
-- the stored vectors.
CREATE TABLE meta (
	key   text PRIMARY KEY,
	value text NOT NULL
);

-- documents: one row per ingested file or chat thread. Key is unique within
-- its workspace; workspace '' holds files, visible to every workspace. A
-- private document is visible only in its channel, so it must name one.
CREATE TABLE documents (
	id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	workspace text        NOT NULL DEFAULT '',
	key       text        NOT NULL,
	channel   text        NOT NULL DEFAULT '',
	private   boolean     NOT NULL DEFAULT false,
	title     text        NOT NULL DEFAULT '',
	location  text        NOT NULL DEFAULT '',
	hash      text        NOT NULL DEFAULT '',
	metadata  jsonb       NOT NULL DEFAULT '{}',
	updated   timestamptz NOT NULL DEFAULT now(),
	UNIQUE (workspace, key),
	CHECK (NOT private OR channel <> '')
);

-- chunks: the searchable pieces of a document.
--
-- workspace, channel, private and title are copies of the document's, so
-- that the HNSW and full-text scans filter by scope without a join (a join
-- can make the planner abandon the index's ordering). The copies cannot
-- drift: a document's row and all its chunks are only ever rewritten
-- together, in one transaction.
--
-- embedding is declared without a dimension here because the dimension is
-- configuration: postgres.DB.Migrate sets vector(N) from the configured
-- embedder and builds the HNSW index, and refuses a different N once
-- vectors are stored. It is NULL for chunks ingested without an embedder.
--
-- tsv weighs a word in the title above one in the heading above one in the
-- body.
CREATE TABLE chunks (
	id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	document_id bigint  NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
	idx         integer NOT NULL,
	workspace   text    NOT NULL DEFAULT '',
	channel     text    NOT NULL DEFAULT '',
	private     boolean NOT NULL DEFAULT false,
	title       text    NOT NULL DEFAULT '',
	heading     text    NOT NULL DEFAULT '',
	content     text    NOT NULL,
	embedding   vector,
	tsv         tsvector GENERATED ALWAYS AS (
		setweight(to_tsvector('english', title), 'A') ||
		setweight(to_tsvector('english', heading), 'B') ||
		setweight(to_tsvector('english', content), 'D')
	) STORED,
	UNIQUE (document_id, idx)
);

CREATE INDEX chunks_tsv ON chunks USING gin (tsv);

-- threads: per-conversation agent state (agent.Thread as JSON). updated is
-- the time of the last save, which pruning compares.
CREATE TABLE threads (
	id      text PRIMARY KEY,
	state   jsonb       NOT NULL,
	updated timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX threads_updated ON threads (updated);

-- processed_events: chat events already handled. Slack and Discord deliver
-- an event again when they think it was missed, possibly to another
-- replica; the primary key makes exactly one replica win.
CREATE TABLE processed_events (
	platform    text        NOT NULL,
	event_id    text        NOT NULL,
	received_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (platform, event_id)
);

CREATE INDEX processed_events_received_at ON processed_events (received_at);

-- ingest_cursors: how far the history ingest of each source and channel
-- has read, so that the next run starts there.
CREATE TABLE ingest_cursors (
	source  text        NOT NULL,
	channel text        NOT NULL DEFAULT '',
	cursor  text        NOT NULL,
	updated timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (source, channel)
);

-- feedback: people's votes on answers, with what was answered, for
-- evaluation. user_id because "user" is a reserved word.
CREATE TABLE feedback (
	id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	thread   text        NOT NULL DEFAULT '',
	question text        NOT NULL DEFAULT '',
	answer   text        NOT NULL DEFAULT '',
	route    text        NOT NULL DEFAULT '',
	sources  jsonb       NOT NULL DEFAULT '[]',
	vote     smallint    NOT NULL CHECK (vote IN (-1, 1)),
	user_id  text        NOT NULL DEFAULT '',
	created  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX feedback_created ON feedback (created);
