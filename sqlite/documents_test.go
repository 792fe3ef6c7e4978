package sqlite

import (
	"context"
	"testing"

	"github.com/switchboard/switchboard/kb"
)

func ftsRows(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.db.QueryRow(`SELECT count(*) FROM chunks_fts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestUpsertDocumentIsIdempotent(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db, "bow")
	doc := testDoc(t, "T1", "handbook.md", "Handbook", "first chunk", "second chunk", "third chunk")
	doc.Hash = "h1"

	for i, want := range []bool{true, false, false} {
		changed, err := s.UpsertDocument(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		if changed != want {
			t.Errorf("upsert %d: changed = %v, want %v", i, changed, want)
		}
	}
	if n := mustCount(t, s.CountChunks); n != 3 {
		t.Errorf("chunks = %d, want 3", n)
	}
	if n := mustCount(t, s.CountDocuments); n != 1 {
		t.Errorf("documents = %d, want 1", n)
	}
	if n := ftsRows(t, db); n != 3 {
		t.Errorf("fts rows = %d, want 3", n)
	}
	hash, ok, err := s.DocumentHash(ctx, "T1", "handbook.md")
	if err != nil || !ok || hash != "h1" {
		t.Errorf("DocumentHash = %q, %v, %v", hash, ok, err)
	}
	if _, ok, _ := s.DocumentHash(ctx, "T2", "handbook.md"); ok {
		t.Error("DocumentHash found the document in another workspace")
	}

	// Without a hash, the content decides.
	doc.Hash = ""
	doc.Key = "nohash.md"
	for i, want := range []bool{true, false} {
		if changed, err := s.UpsertDocument(ctx, doc); err != nil || changed != want {
			t.Errorf("unhashed upsert %d: changed = %v, %v; want %v", i, changed, err, want)
		}
	}
}

func TestUpsertDocumentReplacesChunks(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db, "bow")
	r := NewRetriever(db, bowEmbedder{})

	old := testDoc(t, "", "policy.md", "Travel policy", "flights must be booked economy class",
		"hotels up to 150 euros", "taxis need a receipt")
	old.Hash = "v1"
	mustUpsert(t, s, old)

	updated := testDoc(t, "", "policy.md", "Travel policy v2", "trains are preferred under 600 kilometres")
	updated.Hash = "v2"
	changed, err := s.UpsertDocument(ctx, updated)
	if err != nil || !changed {
		t.Fatalf("upsert v2 = %v, %v", changed, err)
	}
	if n := mustCount(t, s.CountChunks); n != 1 {
		t.Errorf("chunks = %d, want 1", n)
	}
	if n := ftsRows(t, db); n != 1 {
		t.Errorf("fts rows = %d, want 1", n)
	}
	got, err := r.Retrieve(ctx, reqFor("economy flights hotels taxis"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range got {
		if d.Content != "trains are preferred under 600 kilometres" {
			t.Errorf("old content still found: %q", d.Content)
		}
	}
	got, err = r.Retrieve(ctx, reqFor("trains"))
	if err != nil || len(got) != 1 || got[0].Title != "Travel policy v2" {
		t.Fatalf("retrieve trains = %+v, %v", got, err)
	}
	if got[0].ID != "policy.md#0" || got[0].Metadata["author"] != "test" {
		t.Errorf("document = %+v", got[0])
	}
}

func TestDeleteDocumentAndEmpty(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db, "bow")
	if empty, err := s.Empty(ctx); err != nil || !empty {
		t.Fatalf("new store Empty = %v, %v", empty, err)
	}
	mustUpsert(t, s, testDoc(t, "", "a.md", "A", "one", "two"))
	if empty, _ := s.Empty(ctx); empty {
		t.Error("Empty with a document")
	}
	if err := s.DeleteDocument(ctx, "", "a.md"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDocument(ctx, "", "a.md"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if n := mustCount(t, s.CountChunks); n != 0 || ftsRows(t, db) != 0 {
		t.Errorf("after delete: chunks %d, fts %d", n, ftsRows(t, db))
	}
	if empty, _ := s.Empty(ctx); !empty {
		t.Error("not Empty after delete")
	}
	if err := NewGraphStore(db).UpsertNodes(ctx, []kb.Node{{ID: "n", Name: "N"}}); err != nil {
		t.Fatal(err)
	}
	if empty, _ := s.Empty(ctx); empty {
		t.Error("Empty with a graph node")
	}
}

func TestUpsertDocumentRejects(t *testing.T) {
	s := NewDocumentStore(openTest(t), "bow")
	mixed := testDoc(t, "", "m.md", "M", "a", "b")
	mixed.Chunks[1].Embedding = mixed.Chunks[1].Embedding[:3]
	for name, doc := range map[string]kb.Document{
		"no key":             {Title: "x"},
		"private no channel": {Key: "p", Private: true},
		"mixed dimensions":   mixed,
	} {
		if _, err := s.UpsertDocument(context.Background(), doc); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
