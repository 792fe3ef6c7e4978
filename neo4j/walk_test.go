package neo4j

import (
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
	graphwalktest.TestDatabase(t, g, func(hops, maxEdges int) agent.Retriever {
		r := NewGraphRetriever(g)
		r.Hops, r.MaxEdges = hops, maxEdges
		return r
	})
}
