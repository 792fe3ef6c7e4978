package postgres

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/internal/testenv"
	"github.com/switchboard/switchboard/migrations"
)

func migrationFiles(t *testing.T) int {
	t.Helper()
	names, err := fs.Glob(migrations.Postgres, "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("migration files: %v, %v", names, err)
	}
	return len(names)
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("migrate again (%d): %v", i, err)
		}
	}
	if n := queryInt(t, db, `SELECT count(*) FROM schema_migrations`); n != migrationFiles(t) {
		t.Errorf("%d migrations recorded, want %d", n, migrationFiles(t))
	}
	// Everything lives in the test's schema, nothing in public.
	var schema string
	if err := db.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil || !strings.HasPrefix(schema, "t_") {
		t.Fatalf("current_schema = %q, %v", schema, err)
	}
	for _, table := range []string{"schema_migrations", "meta", "documents", "chunks", "threads",
		"processed_events", "ingest_cursors", "feedback"} {
		if n := queryInt(t, db, `SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = $2`, schema, table); n != 1 {
			t.Errorf("table %s.%s: %d", schema, table, n)
		}
	}
	if n := queryInt(t, db, hnswIndexes, schema); n != 1 {
		t.Errorf("%d HNSW indexes, want 1", n)
	}
	if n := queryInt(t, db, `SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'`); n != testDim {
		t.Errorf("embedding column dimension = %d, want %d", n, testDim)
	}
}

// Replicas starting together all migrate successfully, and the files are
// applied once.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	url := testenv.PostgresURL(t)
	const replicas = 4
	dbs := make([]*DB, replicas)
	for i := range dbs {
		dbs[i] = openURL(t, url, Options{EmbeddingDim: testDim, Embedder: "bow"}, false)
	}
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i, db := range dbs {
		wg.Go(func() { errs[i] = db.Migrate(context.Background()) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	if n := queryInt(t, dbs[0], `SELECT count(*) FROM schema_migrations`); n != migrationFiles(t) {
		t.Errorf("%d migrations recorded, want %d", n, migrationFiles(t))
	}
	// The lock was released: another Migrate does not wait forever.
	if err := dbs[1].Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRejects(t *testing.T) {
	t.Parallel()
	url := testenv.PostgresURL(t)
	for name, tc := range map[string]struct {
		url string
		dim int
	}{
		"no dimension":      {url, 0},
		"too many for HNSW": {url, MaxEmbeddingDim + 1},
		"bad url":           {"postgres://%zz", testDim},
		"nobody listening":  {"postgres://u:secret@127.0.0.1:1/db?connect_timeout=2", testDim},
	} {
		db, err := Open(context.Background(), tc.url, Options{EmbeddingDim: tc.dim})
		if err == nil {
			db.Close()
			t.Errorf("%s: Open succeeded", name)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error shows the password: %v", name, err)
		}
	}
}

// Starting with another dimension is a start-up error naming both, once
// vectors are stored; an empty store is set up for the new dimension.
func TestMigrateWithAnotherDimension(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testenv.PostgresURL(t)
	db := openURL(t, url, Options{EmbeddingDim: testDim, Embedder: "bow"}, true)

	empty := openURL(t, url, Options{EmbeddingDim: 32, Embedder: "small"}, true)
	if err := empty.CheckEmbedding(ctx, "small", 32); err != nil {
		t.Fatalf("empty store re-dimensioned: %v", err)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM pg_indexes WHERE tablename = 'chunks' AND indexname = 'chunks_embedding' AND schemaname = current_schema()`); n != 1 {
		t.Errorf("HNSW index after re-dimensioning: %d", n)
	}

	back := openURL(t, url, Options{EmbeddingDim: testDim, Embedder: "bow"}, true)
	mustUpsert(t, NewDocumentStore(back), testDoc(t, "", "a.md", "A", "alpha beta"))

	again := openURL(t, url, Options{EmbeddingDim: 1536, Embedder: "openai:text-embedding-3-small"}, false)
	err := again.Migrate(ctx)
	var mm *EmbeddingMismatchError
	if !errors.As(err, &mm) {
		t.Fatalf("Migrate with 1536 over 64 = %v, want *EmbeddingMismatchError", err)
	}
	for _, want := range []string{"64", "1536", `"bow"`, `"openai:text-embedding-3-small"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}

// hnswIndexes counts the HNSW indexes of a schema from the catalogs alone.
// pg_indexes would call pg_get_indexdef, which fails with "could not open
// relation" when another test drops its schema at the same moment.
const hnswIndexes = `SELECT count(*) FROM pg_class c
	JOIN pg_namespace n ON n.oid = c.relnamespace
	JOIN pg_am am ON am.oid = c.relam
	WHERE c.relkind = 'i' AND n.nspname = $1 AND am.amname = 'hnsw'`
