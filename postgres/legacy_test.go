package postgres

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/internal/storetest"
	"github.com/switchboard/switchboard/kb"
)

func documentKeys(t *testing.T, db *DB) []string {
	t.Helper()
	rows, err := db.pool.Query(context.Background(), `SELECT key FROM documents ORDER BY key COLLATE "C"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

// Not parallel: t.Chdir.
func TestIngestSameFolderThreeWays(t *testing.T) {
	repo := storetest.Checkout(t)
	db := openTest(t)
	store := NewDocumentStore(db)
	p := &ingest.Pipeline{Store: store, Legacy: store}
	if rep := storetest.IngestFrom(t, p, repo, "docs"); rep.Added != 2 {
		t.Fatalf("first ingest: %s", rep)
	}
	for _, way := range [][2]string{{filepath.Join(repo, "tools"), "../docs"}, {t.TempDir(), filepath.Join(repo, "docs")}} {
		if rep := storetest.IngestFrom(t, p, way[0], way[1]); rep.Unchanged != 2 || rep.Added != 0 {
			t.Errorf("%s from %s: %s, want 2 unchanged", way[1], way[0], rep)
		}
	}
	if got := documentKeys(t, db); len(got) != 2 || got[0] != "file:handbook/docs/a.md" || got[1] != "file:handbook/docs/b.md" {
		t.Errorf("keys %v", got)
	}
}

// A store written by an earlier version, with one file under three
// spellings, votes and a thread, keeps its votes and threads through
// migration 004, and re-ingesting the folder renames the files' documents.
func TestLegacyKeysMigrate(t *testing.T) {
	ctx := context.Background()
	repo := storetest.Checkout(t)
	db := openTest(t)
	if _, err := db.pool.Exec(ctx, `DELETE FROM schema_migrations WHERE name = '004_file_keys.sql'`); err != nil {
		t.Fatal(err)
	}
	old := NewDocumentStore(db)
	a := "# Parking\n\nLevel 2."
	for _, key := range []string{"docs/a.md", "../docs/a.md", filepath.ToSlash(filepath.Join(repo, "docs", "a.md"))} {
		if _, err := old.UpsertDocument(ctx, kb.Document{Key: key, Location: key, Title: "Parking", Hash: kb.Hash(a), Chunks: []kb.Chunk{{Content: a}}}); err != nil {
			t.Fatal(err)
		}
	}
	b := "# Desks\n\nHot desks."
	if _, err := old.UpsertDocument(ctx, kb.Document{Key: "docs/b.md", Location: "docs/b.md", Title: "Desks", Hash: kb.Hash(b), Chunks: []kb.Chunk{{Content: b}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := old.UpsertDocument(ctx, kb.Document{Key: "C1/1.0", Workspace: "T1", Channel: "C1", Title: "thread", Chunks: []kb.Chunk{{Content: "chat"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO answers (id, thread, question, answer, sources) VALUES
		('a1', 't1', 'where do I park?', 'Level 2 [1]', '[{"n":1,"title":"Parking","location":"docs/a.md"}]')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO feedback (answer_id, thread, question, answer, vote, user_id) VALUES
		('a1', 't1', 'where do I park?', 'Level 2 [1]', 1, 'U1'), ('a1', 't1', 'where do I park?', 'Level 2 [1]', -1, 'U2')`); err != nil {
		t.Fatal(err)
	}
	if err := NewCheckpointer(db).Save(ctx, agent.Thread{ID: "t1", Turns: []agent.Turn{{Question: "where do I park?", Answer: "Level 2 [1]"}}}); err != nil {
		t.Fatal(err)
	}

	if err := db.Migrate(ctx); err != nil { // applies 004
		t.Fatal(err)
	}
	if got := documentKeys(t, db); len(got) != 3 {
		t.Errorf("after the migration: %v, want one copy of a.md, b.md and the chat thread", got)
	}
	store := NewDocumentStore(db)
	p := &ingest.Pipeline{Store: store, Legacy: store}
	// The files are taken over, not added; they are read again once, since
	// they were read the way of an earlier ingest.ReadVersion.
	if rep := storetest.IngestFrom(t, p, filepath.Join(repo, "tools"), "../docs"); rep.Unchanged != 0 || rep.Added != 0 || rep.Updated != 2 {
		t.Errorf("re-ingest after the migration: %s, want 2 updated", rep)
	}
	if rep := storetest.IngestFrom(t, p, filepath.Join(repo, "tools"), "../docs"); rep.Unchanged != 2 || rep.Added != 0 || rep.Updated != 0 {
		t.Errorf("second re-ingest after the migration: %s, want 2 unchanged", rep)
	}
	if got := documentKeys(t, db); len(got) != 3 || got[0] != "C1/1.0" || got[1] != "file:handbook/docs/a.md" || got[2] != "file:handbook/docs/b.md" {
		t.Errorf("keys %v", got)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM chunks`); n != 3 {
		t.Errorf("%d chunks, want 3", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM feedback f JOIN answers a ON a.id = f.answer_id`); n != 2 {
		t.Errorf("%d votes kept, want 2", n)
	}
	got, err := NewCheckpointer(db).Load(ctx, "t1")
	if err != nil || len(got.Turns) != 1 || got.Turns[0].Answer != "Level 2 [1]" {
		t.Errorf("thread after the migration: %+v, %v", got, err)
	}
}
