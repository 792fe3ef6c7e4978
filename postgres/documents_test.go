package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/kb"
)

func TestUpsertDocuments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db)
	var docs []kb.Document
	for i := range 50 {
		d := testDoc(t, "T1", fmt.Sprintf("doc-%02d", i), "Doc", "alpha", "beta", "gamma")
		d.Hash = "v1"
		docs = append(docs, d)
	}
	if n, err := s.UpsertDocuments(ctx, docs); err != nil || n != 50 {
		t.Fatalf("first bulk upsert = %d, %v; want 50", n, err)
	}
	docs[3].Hash, docs[3].Chunks = "v2", docs[3].Chunks[:1]
	docs[7].Hash = "v2"
	if n, err := s.UpsertDocuments(ctx, docs); err != nil || n != 2 {
		t.Fatalf("second bulk upsert = %d, %v; want 2", n, err)
	}
	if n := mustCount(t, s.CountChunks); n != 49*3+1 {
		t.Errorf("chunks = %d, want %d", n, 49*3+1)
	}
	if n, err := s.UpsertDocuments(ctx, nil); err != nil || n != 0 {
		t.Errorf("empty bulk upsert = %d, %v", n, err)
	}

	// A failing document fails the whole batch: nothing is written.
	bad := []kb.Document{testDoc(t, "T1", "new-1", "New", "one"), testDoc(t, "T1", "new-1", "New", "two")}
	if _, err := s.UpsertDocuments(ctx, bad); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate keys = %v, want an error", err)
	}
	bad[1] = testDoc(t, "T1", "new-2", "New", "two")
	bad[1].Chunks = append(bad[1].Chunks, kb.Chunk{Index: 0, Content: "same index again"})
	if _, err := s.UpsertDocuments(ctx, bad); err == nil {
		t.Error("duplicate chunk index: no error")
	}
	if _, ok, _ := s.DocumentHash(ctx, "T1", "new-1"); ok {
		t.Error("a failed batch left a document behind")
	}
}

// Text PostgreSQL cannot store (NUL, invalid UTF-8) is cleaned, not a
// reason to lose the document.
func TestUpsertDocumentCleansText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	doc := testDoc(t, "", "nul.md", "Bad\x00title", "zero\x00byte and \xff invalid utf-8 wombat")
	doc.Metadata["k\x00"] = "v\x00"
	mustUpsert(t, NewDocumentStore(db), doc)
	got, err := NewRetriever(db, bow).Retrieve(ctx, reqFor("wombat"))
	if err != nil || len(got) != 1 {
		t.Fatalf("retrieve = %+v, %v", got, err)
	}
	if got[0].Title != "Badtitle" || got[0].Content != "zerobyte and \uFFFD invalid utf-8 wombat" || got[0].Metadata["k"] != "v" {
		t.Errorf("stored %+v", got[0])
	}
}
