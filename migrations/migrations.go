// Package migrations holds the schema of the production stores, embedded in
// the binary: numbered PostgreSQL files (001_….sql) applied in order by
// package postgres, and numbered Cypher files (neo4j/001_….cypher) with the
// Neo4j constraints and indexes, applied by package neo4j.
package migrations

import "embed"

// Postgres holds the numbered .sql files.
//
//go:embed *.sql
var Postgres embed.FS

// Neo4j holds the numbered .cypher files, under neo4j/.
//
//go:embed neo4j/*.cypher
var Neo4j embed.FS
