package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk/graphwalktest"
	"github.com/switchboard/switchboard/kb"
)

// seedGraph writes the graph that package neo4j's tests use too, so that
// both backends are held to the same answers.
func seedGraph(t testing.TB, g *GraphStore) {
	t.Helper()
	graphwalktest.Seed(t, g)
}

// The walk is package graphwalk's; these hold GraphStore's queries to the
// walk's contract and GraphRetriever to the documents it must give.
func TestGraphWalk(t *testing.T) {
	g := NewGraphStore(openTest(t))
	seedGraph(t, g)
	graphwalktest.TestDatabase(t, g, func(hops, maxEdges int) agent.Retriever {
		r := NewGraphRetriever(g)
		r.Hops, r.MaxEdges = hops, maxEdges
		return r
	})
}

func TestGraphUpsertIsIdempotent(t *testing.T) {
	ctx := context.Background()
	g := NewGraphStore(openTest(t))
	seedGraph(t, g)
	seedGraph(t, g)
	// The same relation under another spelling of its type is the same edge.
	if err := g.UpsertEdges(ctx, []kb.Edge{{Source: "acme", Type: "Supplies", Target: "globex",
		Props: map[string]string{"volume": "300t"}}}); err != nil {
		t.Fatal(err)
	}
	if n := mustCount(t, g.CountNodes); n != len(graphwalktest.Nodes) {
		t.Errorf("nodes = %d, want %d", n, len(graphwalktest.Nodes))
	}
	if n := mustCount(t, g.CountEdges); n != len(graphwalktest.Edges) {
		t.Errorf("edges = %d, want %d", n, len(graphwalktest.Edges))
	}
	// Props merge rather than replace, and an empty label keeps the old one.
	if err := g.UpsertNodes(ctx, []kb.Node{{ID: "globex", Name: "Globex Corporation",
		Props: map[string]string{"employees": "900"}}}); err != nil {
		t.Fatal(err)
	}
	ns, err := g.NodesByIDs(ctx, []string{"globex"})
	if err != nil || len(ns) != 1 {
		t.Fatalf("NodesByIDs = %v, %v", ns, err)
	}
	if n := ns[0]; n.Label != "Customer" || n.Props["revenue"] != "$1.2M" || n.Props["employees"] != "900" {
		t.Errorf("merged node = %+v", n)
	}
	fs, err := g.EdgesOf(ctx, []string{"acme"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs[0] {
		if f.Dst.ID == "globex" && (f.Props["since"] != "2019" || f.Props["volume"] != "300t" || f.Origin != "contracts.md") {
			t.Errorf("merged edge = %+v", f)
		}
	}
}

func TestUpsertEdgesNamesMissingNode(t *testing.T) {
	ctx := context.Background()
	g := NewGraphStore(openTest(t))
	seedGraph(t, g)
	err := g.UpsertEdges(ctx, []kb.Edge{
		{Source: "acme", Type: "SUPPLIES", Target: "hooli"},
		{Source: "acme", Type: "SUPPLIES", Target: "wayne-enterprises"},
	})
	if err == nil || !strings.Contains(err.Error(), `"wayne-enterprises"`) {
		t.Fatalf("err = %v, want one naming wayne-enterprises", err)
	}
	// All or nothing: the valid edge before it was not stored either.
	if n := mustCount(t, g.CountEdges); n != len(graphwalktest.Edges) {
		t.Errorf("edges = %d after failed upsert, want %d", n, len(graphwalktest.Edges))
	}
}

func TestMatchEntities(t *testing.T) {
	ctx := context.Background()
	g := NewGraphStore(openTest(t))
	seedGraph(t, g)
	got, err := g.MatchEntities(ctx, "what does ACME CORP. sell to globex corporation")
	if err != nil || fmt.Sprint(got) != "[Acme Corp Globex Corporation]" {
		t.Errorf("MatchEntities = %q, %v", got, err)
	}

	// A node written later, even by another GraphStore, is matched.
	other := NewGraphStore(g.db)
	if err := other.UpsertNodes(ctx, []kb.Node{{ID: "wayne", Label: "Customer", Name: "Wayne Enterprises"}}); err != nil {
		t.Fatal(err)
	}
	got, err = g.MatchEntities(ctx, "orders from wayne enterprises")
	if err != nil || fmt.Sprint(got) != "[Wayne Enterprises]" {
		t.Errorf("after insert: %q, %v", got, err)
	}
}
