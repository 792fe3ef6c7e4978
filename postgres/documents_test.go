package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb"
)

func reqFor(q string) agent.Request {
	return agent.Request{Query: q, Question: q}
}

func TestUpsertDocumentIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db)
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
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db)
	r := NewRetriever(db, bowEmbedder{})

	old := testDoc(t, "", "policy.md", "Travel policy", "flights must be booked economy class",
		"hotels up to 150 euros", "taxis need a receipt")
	old.Hash = "v1"
	mustUpsert(t, s, old)

	updated := testDoc(t, "", "policy.md", "Travel policy v2", "trains are preferred under 600 kilometres")
	updated.Hash = "v2"
	updated.Location = "files/policy-v2.md"
	changed, err := s.UpsertDocument(ctx, updated)
	if err != nil || !changed {
		t.Fatalf("upsert v2 = %v, %v", changed, err)
	}
	if n := mustCount(t, s.CountChunks); n != 1 {
		t.Errorf("chunks = %d, want 1", n)
	}
	if n := mustCount(t, s.CountDocuments); n != 1 {
		t.Errorf("documents = %d, want 1", n)
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
	if got[0].ID != "policy.md#0" || got[0].Location != "files/policy-v2.md" || got[0].Metadata["author"] != "test" ||
		got[0].Metadata["key"] != "policy.md" || got[0].Metadata["chunk"] != "0" {
		t.Errorf("document = %+v", got[0])
	}
	// The title is searchable, and the copy on the chunks follows the
	// document's.
	if got, err := r.Retrieve(ctx, reqFor("v2")); err != nil || len(got) != 1 {
		t.Errorf("retrieve by title = %+v, %v", got, err)
	}
}

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

func TestDeleteDocumentAndEmpty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewDocumentStore(openTest(t))
	if empty, err := s.Empty(ctx); err != nil || !empty {
		t.Fatalf("new store Empty = %v, %v", empty, err)
	}
	mustUpsert(t, s, testDoc(t, "", "a.md", "A", "one", "two"), testDoc(t, "T1", "a.md", "A", "three"))
	if empty, _ := s.Empty(ctx); empty {
		t.Error("Empty with a document")
	}
	if err := s.DeleteDocument(ctx, "", "a.md"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDocument(ctx, "", "a.md"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if n := mustCount(t, s.CountChunks); n != 1 {
		t.Errorf("after delete: chunks %d, want the other workspace's 1", n)
	}
	if err := s.DeleteDocument(ctx, "T1", "a.md"); err != nil {
		t.Fatal(err)
	}
	if empty, _ := s.Empty(ctx); !empty {
		t.Error("not Empty after delete")
	}
}

func TestUpsertDocumentRejects(t *testing.T) {
	t.Parallel()
	s := NewDocumentStore(openTest(t))
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

// Text PostgreSQL cannot store (NUL, invalid UTF-8) is cleaned, not a
// reason to lose the document.
func TestUpsertDocumentCleansText(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	doc := testDoc(t, "", "nul.md", "Bad\x00title", "zero\x00byte and \xff invalid utf-8 wombat")
	doc.Metadata["k\x00"] = "v\x00"
	mustUpsert(t, NewDocumentStore(db), doc)
	got, err := NewRetriever(db, bowEmbedder{}).Retrieve(ctx, reqFor("wombat"))
	if err != nil || len(got) != 1 {
		t.Fatalf("retrieve = %+v, %v", got, err)
	}
	if got[0].Title != "Badtitle" || got[0].Content != "zerobyte and \uFFFD invalid utf-8 wombat" || got[0].Metadata["k"] != "v" {
		t.Errorf("stored %+v", got[0])
	}
}

// Writers and readers at once must neither fail nor see a document
// half-written.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openTest(t)
	s := NewDocumentStore(db)
	r := NewRetriever(db, bowEmbedder{})
	errs := make(chan error, 256)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 15 {
				// Writers share keys, so they also race on the same rows.
				doc := testDoc(t, "", fmt.Sprintf("k-%d", (w+i)%5), "Doc", "alpha beta", "gamma delta", fmt.Sprintf("round %d", i))
				if _, err := s.UpsertDocument(ctx, doc); err != nil {
					errs <- err
				}
			}
		})
		wg.Go(func() {
			for range 15 {
				docs, err := r.Retrieve(ctx, agent.Request{Query: "alpha gamma", Limit: 100})
				if err != nil {
					errs <- err
				}
				if len(docs)%2 != 0 {
					errs <- fmt.Errorf("saw %d chunks: a document half-written", len(docs))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := mustCount(t, s.CountChunks); n != 5*3 {
		t.Errorf("chunks = %d, want %d", n, 5*3)
	}
}
