package main

import (
	"context"
	"sync"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/bot/slack"
	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/kb"
	"github.com/switchboard/switchboard/llm/offline"
	"github.com/switchboard/switchboard/sqlite"
)

// The demo knowledge base is for a store nobody has ingested into. For
// the commands Config.DemoFor allows (ask and chat; serve only with
// SWITCHBOARD_DEMO=true), Open loads it into an empty embedded store and
// marks the store as holding it (sqlite.DB.MarkDemo); the first document
// or graph of the user's own (`switchboard ingest`, chat ingestion,
// `switchboard graph import`) removes it first, in one transaction, so a
// user's knowledge base never contains it. The demo's documents are keyed
// "examples/docs/…", which no ingested file is (theirs start with
// ingest.KeyPrefix), and its graph rows come from examples.NodesCSV and
// examples.EdgesCSV.
//
// The other commands hide it (hideDemo): a store marked as holding the
// demo is, to them, empty. That is what keeps `switchboard serve` in a
// real workspace from answering from a fictional company when an
// earlier `switchboard ask` loaded the demo into the same store, or does
// so while serve runs. Serve does not delete the demo: it is not the
// user's data, but `ask` on the same store still uses it, and the user's
// first ingest removes it anyway.

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

// held reports whether the store is marked as holding the demo, and so
// nothing else. It asks the store each time: another process (an ask, an
// ingest) may load or remove the demo while this one runs.
func (g *demoGuard) held(ctx context.Context) (bool, error) {
	if g == nil || g.db == nil {
		return false, nil
	}
	return g.db.HasDemo(ctx)
}

// hideDemo makes the retrievers find nothing, the knowledge base report
// empty and the offline router know no entity while the store holds the
// demo, for a command that must not answer from it.
func (g *demoGuard) hideDemo(w *wiring) {
	for route, r := range w.retrievers {
		if route == agent.RouteVector || route == agent.RouteGraph {
			w.retrievers[route] = demoHiddenRetriever{r, g}
		}
	}
	w.knowledge = demoHiddenKnowledge{w.knowledge, g}
	w.names = demoHiddenNames{w.names, g}
}

// demoHiddenRetriever finds nothing while the store holds the demo.
type demoHiddenRetriever struct {
	agent.Retriever
	guard *demoGuard
}

func (r demoHiddenRetriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	if held, err := r.guard.held(ctx); err != nil || held {
		return nil, err
	}
	return r.Retriever.Retrieve(ctx, req)
}

// demoHiddenKnowledge is empty while the store holds the demo, so that
// a question that finds nothing is told how to fill the knowledge base.
type demoHiddenKnowledge struct {
	agent.KnowledgeBase
	guard *demoGuard
}

func (k demoHiddenKnowledge) Empty(ctx context.Context) (bool, error) {
	if held, err := k.guard.held(ctx); err != nil || held {
		return held, err
	}
	return k.KnowledgeBase.Empty(ctx)
}

// titles are the documents' titles offered as questions in a real
// workspace: none of the demo's, which a workspace never asked about.
func (app *App) titles() slack.DocumentTitles {
	return demoHiddenTitles{app.Docs, app.demo}
}

// demoHiddenTitles has no titles while the store holds the demo.
type demoHiddenTitles struct {
	slack.DocumentTitles
	guard *demoGuard
}

func (t demoHiddenTitles) Titles(ctx context.Context, workspace string, n int) ([]string, error) {
	if held, err := t.guard.held(ctx); err != nil || held {
		return nil, err
	}
	return t.DocumentTitles.Titles(ctx, workspace, n)
}

// demoHiddenNames knows no entity while the store holds the demo: the
// demo's names must not steer the offline router either.
type demoHiddenNames struct {
	offline.Names
	guard *demoGuard
}

func (n demoHiddenNames) EntityIndex(ctx context.Context) (*graphwalk.Index, error) {
	if held, err := n.guard.held(ctx); err != nil || held {
		return nil, err // a nil index matches nothing
	}
	return n.Names.EntityIndex(ctx)
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
