-- 006_versions: every write to what the retrievers read moves a counter
-- in meta: docs_version for documents and chunks, graph_version for nodes
-- and edges. A process keeps what it read of them in memory (the vectors,
-- the graph) and, with one lookup of that row per question, knows when
-- another process (ingest while serve runs), a migration or a hand edit
-- has changed them. Triggers rather than code move the counters, so that
-- no writer can forget to. A write statement runs them once per row; the
-- full-text index those rows also update costs far more.
INSERT INTO meta (key, value) VALUES ('docs_version', '1') ON CONFLICT (key) DO NOTHING;
INSERT INTO meta (key, value) VALUES ('graph_version', '1') ON CONFLICT (key) DO NOTHING;

-- The counter is upserted, not updated, so that a deleted meta row cannot
-- stop it.
CREATE TRIGGER chunks_version_insert AFTER INSERT ON chunks BEGIN
	INSERT INTO meta (key, value) VALUES ('docs_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER chunks_version_update AFTER UPDATE ON chunks BEGIN
	INSERT INTO meta (key, value) VALUES ('docs_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER chunks_version_delete AFTER DELETE ON chunks BEGIN
	INSERT INTO meta (key, value) VALUES ('docs_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
-- A document's scope (workspace, channel, private) is read with its
-- chunks; a new document has no chunks yet, so only updates and deletes
-- count.
CREATE TRIGGER documents_version_update AFTER UPDATE ON documents BEGIN
	INSERT INTO meta (key, value) VALUES ('docs_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER documents_version_delete AFTER DELETE ON documents BEGIN
	INSERT INTO meta (key, value) VALUES ('docs_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;

CREATE TRIGGER nodes_version_insert AFTER INSERT ON nodes BEGIN
	INSERT INTO meta (key, value) VALUES ('graph_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER nodes_version_update AFTER UPDATE ON nodes BEGIN
	INSERT INTO meta (key, value) VALUES ('graph_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER nodes_version_delete AFTER DELETE ON nodes BEGIN
	INSERT INTO meta (key, value) VALUES ('graph_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER edges_version_insert AFTER INSERT ON edges BEGIN
	INSERT INTO meta (key, value) VALUES ('graph_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER edges_version_update AFTER UPDATE ON edges BEGIN
	INSERT INTO meta (key, value) VALUES ('graph_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
CREATE TRIGGER edges_version_delete AFTER DELETE ON edges BEGIN
	INSERT INTO meta (key, value) VALUES ('graph_version', '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
END;
