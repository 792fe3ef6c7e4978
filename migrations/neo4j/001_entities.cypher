// The knowledge graph. Every node has the label Entity besides its own
// (Customer, Supplier, ...), so that one constraint keeps ids unique across
// all labels and one index finds nodes by name whatever their label.
// Statements must be idempotent: see neo4j.Graph.Migrate.
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;
CREATE INDEX entity_name IF NOT EXISTS FOR (n:Entity) ON (n.name);

// Bookkeeping nodes, outside the Entity graph.
CREATE CONSTRAINT migration_name IF NOT EXISTS FOR (m:_Migration) REQUIRE m.name IS UNIQUE;
CREATE CONSTRAINT meta_key IF NOT EXISTS FOR (m:_Meta) REQUIRE m.key IS UNIQUE;
