package main

import (
	"context"
	"sync"

	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/sqlite"
)

// The demo knowledge base is for a store nobody has ingested into. For
// ask, chat and serve (demoCommand), Open loads it into an empty embedded
// store and marks the store as holding it (sqlite.DB.MarkDemo); the first document or graph of the user's own
// (`bot ingest`, chat ingestion, `bot graph import`) removes it first, in
// one transaction, so a user's knowledge base never contains it. The
// demo's documents are keyed "examples/docs/…", which no ingested file
// is (theirs start with ingest.KeyPrefix), and its graph rows come from
// examples.NodesCSV and examples.EdgesCSV.

// demoCommand reports whether cmd answers questions, and so may load the
// demo into a store nobody has ingested into: ask, chat and serve. Ingest,
// graph import and migrate never load it.
func demoCommand(cmd string) bool {
	return cmd == "ask" || cmd == "chat" || cmd == "serve"
}

// demoGuard removes the demo before the first write of the user's own.
type demoGuard struct {
	db *sqlite.DB // nil: no demo can be there

	mu      sync.Mutex
	removed bool
}

// drop removes the demo if the store is marked as holding it.
func (g *demoGuard) drop(ctx context.Context) error {
	if g == nil || g.db == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.removed {
		return nil
	}
	marked, err := g.db.HasDemo(ctx)
	if err != nil || !marked {
		return err
	}
	removed, err := g.db.RemoveDemo(ctx, examples.Prefix+"/", []string{examples.NodesCSV, examples.EdgesCSV})
	g.removed = removed
	return err
}

// demoKey reports whether key is a demo document's.
func demoKey(key string) bool {
	return len(key) > len(examples.Prefix) && key[:len(examples.Prefix)+1] == examples.Prefix+"/"
}

// guardedDocs is a document store that drops the demo before it stores a
// document that is not the demo's.
type guardedDocs struct {
	ingest.DocumentStore
	guard *demoGuard
}

func (s guardedDocs) UpsertDocument(ctx context.Context, doc kb.Document) (bool, error) {
	if !(doc.Workspace == "" && demoKey(doc.Key)) {
		if err := s.guard.drop(ctx); err != nil {
			return false, err
		}
	}
	return s.DocumentStore.UpsertDocument(ctx, doc)
}

// dropDemo removes the demo before a write of the user's own that does not
// go through app.Ingest, such as a graph import.
func (app *App) dropDemo(ctx context.Context) error { return app.demo.drop(ctx) }

// legacyFiles returns what of docs takes over documents stored under the
// keys of earlier versions, or nil.
func legacyFiles(docs docStore) ingest.LegacyFiles {
	l, _ := docs.(ingest.LegacyFiles)
	return l
}
