package neo4j

import (
	"context"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk/graphwalktest"
)

// The walk is package graphwalk's; these hold Graph's Cypher to the walk's
// contract and GraphRetriever (without a Cypher writer) to the documents
// package sqlite's gives for the same graph. They share one database (one
// lock and wipe) to keep the suite quick.
func TestWalk(t *testing.T) {
	g := openTest(t)
	seedGraph(t, g)
	t.Run("store", func(t *testing.T) { graphwalktest.TestStore(t, g) })
	t.Run("retriever", func(t *testing.T) {
		graphwalktest.TestRetriever(t, func(hops, maxEdges int) agent.Retriever {
			r := NewGraphRetriever(g)
			r.Hops, r.MaxEdges = hops, maxEdges
			return r
		})
	})
	// Last, since it adds a hub to the graph the cases above describe.
	t.Run("relation words first", func(t *testing.T) {
		ctx := context.Background()
		if err := g.UpsertNodes(ctx, graphwalktest.HubNodes); err != nil {
			t.Fatal(err)
		}
		if err := g.UpsertEdges(ctx, graphwalktest.HubEdges); err != nil {
			t.Fatal(err)
		}
		graphwalktest.TestHubRetriever(t, NewGraphRetriever(g))
	})
}
