package sqlite

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/retrieval"
	"github.com/switchboard/switchboard/internal/storetest"
	"github.com/switchboard/switchboard/kb"
)

// demoQuestions are asked of both routes by the tests comparing the
// cached and the uncached reads.
var demoQuestions = []string{
	"What is our refund policy?",
	"How long do we keep backups?",
	"Which suppliers are connected to our top 3 customers?",
	"Who supplies Halvorsen Freight?",
	"top 5 suppliers by revenue",
	"customers",
	"What does Kestrel supply?",
	"globex",
	"Which customers use the EU data region?",
}

// retrieveAll answers every demo question on both routes in two scopes.
func retrieveAll(t *testing.T, db *DB, emb retrieval.Embedder) [][]agent.Document {
	t.Helper()
	routes := []agent.Retriever{NewRetriever(db, emb), NewGraphRetriever(NewGraphStore(db))}
	var out [][]agent.Document
	for _, q := range demoQuestions {
		for _, r := range routes {
			for _, sc := range []agent.Scope{{}, {Workspace: "T1", Channel: "C1"}} {
				docs, err := r.Retrieve(context.Background(), agent.Request{Query: q, Scope: sc, Limit: 8})
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				out = append(out, docs)
			}
		}
	}
	return out
}

// The vectors and the graph held in memory give what the queries they
// replace give, document for document and score for score.
func TestCachesChangeNoResult(t *testing.T) {
	db, emb := demoStore(t)
	cached := retrieveAll(t, db, emb)
	if db.chunks.v == nil {
		t.Fatal("the demo's vectors were not cached")
	}

	vectors, graph := maxCachedVectorBytes, maxCachedGraph
	maxCachedVectorBytes, maxCachedGraph = 0, 0
	t.Cleanup(func() { maxCachedVectorBytes, maxCachedGraph = vectors, graph })
	db.chunks = versioned[*chunkSet]{}
	queried := retrieveAll(t, db, emb)
	if db.chunks.v != nil {
		t.Fatal("vectors cached above maxCachedVectorBytes")
	}
	if !reflect.DeepEqual(cached, queried) {
		t.Errorf("the caches changed the results:\ncached  %+v\nqueried %+v", cached, queried)
	}
}

// A write by another process (here another handle on the same file) moves
// the versions, and the next retrieval sees it.
func TestCachesSeeWritesOfAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kb.db")
	reader, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	writer, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()

	docs := NewDocumentStore(writer, "bow")
	r := NewRetriever(reader, bow)
	mustUpsert(t, docs, testDoc(t, "", "a", "Leave", "annual leave is 25 days"))
	if got, _ := r.Retrieve(ctx, storetest.Req("sabbatical")); len(got) != 0 {
		t.Fatalf("found %d documents before the write", len(got))
	}
	mustUpsert(t, docs, testDoc(t, "", "b", "Sabbatical", "a sabbatical of three months after five years"))
	got, err := r.Retrieve(ctx, storetest.Req("sabbatical"))
	if err != nil || len(got) == 0 || got[0].Title != "Sabbatical" {
		t.Fatalf("after the write: %+v, %v", got, err)
	}
	// A private document moved out of the asker's channel leaves its
	// scope: an update of the documents row alone moves the version too.
	if _, err := writer.db.ExecContext(ctx, `UPDATE documents SET private = 1, channel = 'C9' WHERE key = 'b'`); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Retrieve(ctx, storetest.Req("sabbatical")); len(got) != 0 {
		t.Errorf("a private document of another channel was retrieved: %+v", got)
	}
	if err := docs.DeleteDocument(ctx, "", "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Retrieve(ctx, storetest.Req("annual leave")); len(got) != 0 {
		t.Errorf("a deleted document was retrieved: %+v", got)
	}

	gw, gr := NewGraphStore(writer), NewGraphStore(reader)
	if err := gw.UpsertNodes(ctx, []kb.Node{{ID: "a", Name: "Acme", Label: "Supplier"}, {ID: "g", Name: "Globex", Label: "Customer"}}); err != nil {
		t.Fatal(err)
	}
	edges := func() int {
		t.Helper()
		fs, err := gr.EdgesOf(ctx, []string{"a"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(fs[0])
	}
	if n := edges(); n != 0 {
		t.Fatalf("%d edges before any was written", n)
	}
	// Edges alone, which leave the names alone, move the version too.
	if err := gw.UpsertEdges(ctx, []kb.Edge{{Source: "a", Type: "supplies", Target: "g"}}); err != nil {
		t.Fatal(err)
	}
	if n := edges(); n != 1 {
		t.Errorf("%d edges after one was written", n)
	}
	if _, err := gw.ForgetOrigins(ctx, []string{""}); err != nil {
		t.Fatal(err)
	}
	if n := edges(); n != 0 {
		t.Errorf("%d edges after they were forgotten", n)
	}
	if n, err := gr.CountLabel(ctx, "supplier"); err != nil || n != 0 {
		t.Errorf("CountLabel = %d, %v after the nodes were forgotten", n, err)
	}
}

// Labels match as SQLite's NOCASE collation matches them: ASCII letters
// only.
func TestFoldNoCase(t *testing.T) {
	for in, want := range map[string]string{"Supplier": "supplier", "supplier": "supplier", "ÉTAT": "État", "": ""} {
		if got := foldNoCase(in); got != want {
			t.Errorf("foldNoCase(%q) = %q, want %q", in, got, want)
		}
	}
}
