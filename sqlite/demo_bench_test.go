package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/hashembed"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/internal/retrieval"
)

// demoStore loads the demo knowledge base of examples/ into a new store
// file the way switchboard serve does, with the local embedder.
func demoStore(tb testing.TB) (*DB, retrieval.Embedder) {
	tb.Helper()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(tb.TempDir(), "demo.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	emb := hashembed.New(384)
	p := &ingest.Pipeline{Store: NewDocumentStore(db, "local-hash-384"), Embedder: emb}
	rep, err := p.IngestFS(ctx, examples.FS, examples.Prefix, examples.Docs())
	if err == nil {
		err = rep.Err()
	}
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := ingest.ImportGraphFS(ctx, NewGraphStore(db), examples.FS, examples.NodesCSV, examples.EdgesCSV); err != nil {
		tb.Fatal(err)
	}
	return db, emb
}

// BenchmarkDemoRetrieve times one retrieval of each route over the demo
// knowledge base, as the agent makes it for the overhead benchmark's
// vector and graph questions (bench/).
func BenchmarkDemoRetrieve(b *testing.B) {
	db, emb := demoStore(b)
	for _, bc := range []struct {
		name string
		r    agent.Retriever
		q    string
	}{
		{"vector", NewRetriever(db, emb), "What is our refund policy?"},
		{"graph", NewGraphRetriever(NewGraphStore(db)), "Which suppliers are connected to our top 3 customers?"},
		{"graph-entity", NewGraphRetriever(NewGraphStore(db)), "Who supplies Halvorsen Freight?"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			req := agent.Request{Question: bc.q, Query: bc.q, Limit: 6}
			for b.Loop() {
				if _, err := bc.r.Retrieve(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
