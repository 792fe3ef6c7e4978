package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/internal/storetest"
	"github.com/switchboard/switchboard/kb"
)

func fileKeys(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := db.db.Query(`SELECT key FROM documents ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		rows.Scan(&k)
		keys = append(keys, k)
	}
	return keys
}

func TestIngestSameFolderThreeWays(t *testing.T) {
	repo := storetest.Checkout(t)
	db := openTest(t)
	store := NewDocumentStore(db, "bow")
	p := &ingest.Pipeline{Store: store, Legacy: store}

	if rep := storetest.IngestFrom(t, p, repo, "docs"); rep.Added != 2 {
		t.Fatalf("first ingest: %s", rep)
	}
	for _, way := range [][2]string{{filepath.Join(repo, "tools"), "../docs"}, {t.TempDir(), filepath.Join(repo, "docs")}} {
		if rep := storetest.IngestFrom(t, p, way[0], way[1]); rep.Unchanged != 2 || rep.Added != 0 {
			t.Errorf("%s from %s: %s, want 2 unchanged", way[1], way[0], rep)
		}
	}
	want := []string{"file:handbook/docs/a.md", "file:handbook/docs/b.md"}
	if got := fileKeys(t, db); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("keys %v, want %v", got, want)
	}
	var loc string
	db.db.QueryRow(`SELECT location FROM documents WHERE key = ?`, want[0]).Scan(&loc)
	if loc != "handbook/docs/a.md" {
		t.Errorf("location %q, want handbook/docs/a.md", loc)
	}
}

// A store written by an earlier version, with one file under three
// spellings, votes and a thread, keeps its votes and threads through the
// migration, and re-ingesting the folder renames the files' documents.
func TestLegacyKeysMigrate(t *testing.T) {
	ctx := context.Background()
	repo := storetest.Checkout(t)
	path := filepath.Join(t.TempDir(), "kb.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// The store as an earlier version left it: 004 not applied, keys as typed.
	if _, err := db.db.Exec(`DELETE FROM migrations WHERE name = '004_file_keys.sql'`); err != nil {
		t.Fatal(err)
	}
	old := NewDocumentStore(db, "bow")
	a := "# Parking\n\nLevel 2."
	for _, key := range []string{"docs/a.md", "../docs/a.md", filepath.ToSlash(filepath.Join(repo, "docs", "a.md"))} {
		doc := kb.Document{Key: key, Location: key, Title: "Parking", Hash: kb.Hash(a), Chunks: []kb.Chunk{{Content: a}}}
		if _, err := old.UpsertDocument(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	b := "# Desks\n\nHot desks."
	if _, err := old.UpsertDocument(ctx, kb.Document{Key: "docs/b.md", Location: "docs/b.md", Title: "Desks", Hash: kb.Hash(b), Chunks: []kb.Chunk{{Content: b}}}); err != nil {
		t.Fatal(err)
	}
	chat := kb.Document{Key: "C1/1.0", Workspace: "T1", Channel: "C1", Title: "thread", Chunks: []kb.Chunk{{Content: "chat"}}}
	if _, err := old.UpsertDocument(ctx, chat); err != nil {
		t.Fatal(err)
	}
	if _, err := db.db.Exec(`INSERT INTO answers (id, thread, question, answer, sources, created) VALUES
		('a1', 't1', 'where do I park?', 'Level 2 [1]', '[{"n":1,"title":"Parking","location":"docs/a.md"}]', 1)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.db.Exec(`INSERT INTO votes (answer_id, user_id, vote, created) VALUES ('a1', 'U1', 1, 2), ('a1', 'U2', -1, 3)`); err != nil {
		t.Fatal(err)
	}
	thread := agent.Thread{ID: "t1", Turns: []agent.Turn{{Question: "where do I park?", Answer: "Level 2 [1]"}}}
	if err := NewCheckpointer(db).Save(ctx, thread); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path) // applies 004
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := fileKeys(t, db); len(got) != 3 {
		t.Errorf("after the migration: %v, want one copy of a.md, b.md and the chat thread", got)
	}
	store := NewDocumentStore(db, "bow")
	p := &ingest.Pipeline{Store: store, Legacy: store}
	// The files are taken over, not added; they are read again once, since
	// they were read the way of an earlier ingest.ReadVersion.
	if rep := storetest.IngestFrom(t, p, filepath.Join(repo, "tools"), "../docs"); rep.Unchanged != 0 || rep.Added != 0 || rep.Updated != 2 {
		t.Errorf("re-ingest after the migration: %s, want 2 updated", rep)
	}
	if rep := storetest.IngestFrom(t, p, filepath.Join(repo, "tools"), "../docs"); rep.Unchanged != 2 || rep.Added != 0 || rep.Updated != 0 {
		t.Errorf("second re-ingest after the migration: %s, want 2 unchanged", rep)
	}
	if got := fileKeys(t, db); len(got) != 3 || got[0] != "C1/1.0" || got[1] != "file:handbook/docs/a.md" || got[2] != "file:handbook/docs/b.md" {
		t.Errorf("keys %v", got)
	}
	if n, _ := store.CountChunks(ctx); n != 3 {
		t.Errorf("%d chunks, want 3", n)
	}
	var votes int
	db.db.QueryRow(`SELECT count(*) FROM votes v JOIN answers a ON a.id = v.answer_id`).Scan(&votes)
	if votes != 2 {
		t.Errorf("%d votes kept, want 2", votes)
	}
	got, err := NewCheckpointer(db).Load(ctx, "t1")
	if err != nil || len(got.Turns) != 1 || got.Turns[0].Answer != "Level 2 [1]" {
		t.Errorf("thread after the migration: %+v, %v", got, err)
	}
}

// An earlier version loaded the demo into an empty store and kept it when
// people ingested their own files: 004 removes it from such a store, and
// marks a store holding nothing but the demo, for the first ingest to
// remove.
func TestDemoMigration(t *testing.T) {
	ctx := context.Background()
	for _, mixed := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "kb.db")
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		db.db.Exec(`DELETE FROM migrations WHERE name = '004_file_keys.sql'`)
		docs := NewDocumentStore(db, "bow")
		put := func(key string) {
			if _, err := docs.UpsertDocument(ctx, kb.Document{Key: key, Location: key, Chunks: []kb.Chunk{{Content: key}}}); err != nil {
				t.Fatal(err)
			}
		}
		put("examples/docs/refund-policy.md")
		g := NewGraphStore(db)
		if err := g.UpsertNodes(ctx, []kb.Node{{ID: "c1", Label: "Customer", Name: "Acme", Source: "graph/nodes.csv"}, {ID: "c2", Label: "Customer", Name: "Beta", Source: "graph/nodes.csv"}}); err != nil {
			t.Fatal(err)
		}
		if err := g.UpsertEdges(ctx, []kb.Edge{{Source: "c1", Type: "KNOWS", Target: "c2", Origin: "graph/edges.csv"}}); err != nil {
			t.Fatal(err)
		}
		if mixed {
			put("docs/parking.md")
		}
		db.Close()
		if db, err = Open(ctx, path); err != nil {
			t.Fatal(err)
		}
		keys := fileKeys(t, db)
		var nodes int
		db.db.QueryRow(`SELECT count(*) FROM nodes`).Scan(&nodes)
		marked, _ := db.HasDemo(ctx)
		if mixed && (len(keys) != 1 || keys[0] != "docs/parking.md" || nodes != 0 || marked) {
			t.Errorf("mixed store after 004: %v, %d nodes, marked %v; want the user's file alone", keys, nodes, marked)
		}
		if !mixed && (len(keys) != 1 || nodes != 2 || !marked) {
			t.Errorf("demo-only store after 004: %v, %d nodes, marked %v; want the demo, marked", keys, nodes, marked)
		}
		if !mixed {
			removed, err := db.RemoveDemo(ctx, "examples/", []string{"graph/nodes.csv", "graph/edges.csv"})
			keys = fileKeys(t, db)
			db.db.QueryRow(`SELECT count(*) FROM nodes`).Scan(&nodes)
			if err != nil || !removed || len(keys) != 0 || nodes != 0 {
				t.Errorf("RemoveDemo: %v %v, left %v and %d nodes", removed, err, keys, nodes)
			}
			if removed, err := db.RemoveDemo(ctx, "examples/", nil); removed || err != nil {
				t.Errorf("second RemoveDemo: %v %v", removed, err)
			}
		}
		db.Close()
	}
}
