package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "dir", "kb.db")
	for i := range 3 {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		var n int
		if err := db.db.QueryRowContext(ctx, `SELECT count(*) FROM migrations`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		files, _ := migrationFS.ReadDir("migrations")
		if n != len(files) {
			t.Errorf("open %d: %d migrations recorded, want %d", i, n, len(files))
		}
		var mode string
		var fk int
		if err := db.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := db.db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || fk != 1 {
			t.Errorf("journal_mode=%s foreign_keys=%d, want wal and 1", mode, fk)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRejectsBadPaths(t *testing.T) {
	for _, p := range []string{"", filepath.Join(t.TempDir(), "a?b.db")} {
		if db, err := Open(context.Background(), p); err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}

// Until vectors are stored, any embedder fits an SQLite store: the
// dimension is recorded by the first write (TestDocumentStore checks the
// rest of CheckEmbedding).
func TestCheckEmbeddingOfAnEmptyStore(t *testing.T) {
	db := openTest(t)
	for _, dim := range []int{32, testDim, 1536} {
		if err := db.CheckEmbedding(context.Background(), "bow", dim); err != nil {
			t.Fatalf("empty store, dimension %d: %v", dim, err)
		}
	}
}

// The in-memory store lives on one connection; nothing may hold a result
// set open while running another query, or it would wait forever.
func TestMemoryStore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := Open(ctx, Memory)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	docs := NewDocumentStore(db, "bow")
	mustUpsert(t, docs, testDoc(t, "", "a.md", "Leave", "employees get 25 days of paid leave"))
	got, err := NewRetriever(db, bow).Retrieve(ctx, reqFor("paid leave"))
	if err != nil || len(got) != 1 {
		t.Fatalf("retrieve = %v, %v", got, err)
	}
	g := NewGraphStore(db)
	seedGraph(t, g)
	gd, err := NewGraphRetriever(g).Retrieve(ctx, reqFor("Who does Acme Corp supply?"))
	if err != nil || len(gd) == 0 {
		t.Fatalf("graph retrieve = %v, %v", gd, err)
	}
	if _, err := NewCheckpointer(db).Load(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
}
