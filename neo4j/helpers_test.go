package neo4j

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk/graphwalktest"
	"github.com/switchboard/switchboard/internal/testenv"
)

// openTest opens the test Neo4j, emptied and locked for this test by
// testenv, and applies the migrations.
func openTest(t testing.TB) *Graph {
	t.Helper()
	uri := testenv.Neo4jURI(t)
	ctx := context.Background()
	g, err := Open(ctx, Config{URI: uri, QueryTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close(context.Background()) })
	if err := g.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return g
}

// seedGraph writes the graph that package sqlite's tests use too, so
// that both backends are held to the same answers.
func seedGraph(t testing.TB, g *Graph) {
	t.Helper()
	graphwalktest.Seed(t, g)
}

func mustCount(t testing.TB, f func(context.Context) (int, error)) int {
	t.Helper()
	n, err := f(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func reqFor(q string) agent.Request { return agent.Request{Query: q, Question: q, Limit: 6} }

// fingerprint is everything a write could change: nodes, relationships,
// properties, labels, constraints and indexes, counted with the driver
// directly, not with the code under test.
type fingerprint struct {
	Nodes, Rels, NodeProps, RelProps, Labels, Constraints, Indexes int64
}

func graphFingerprint(t testing.TB, g *Graph) fingerprint {
	t.Helper()
	ctx := context.Background()
	one := func(q string) int64 {
		recs, err := g.read(ctx, q, nil)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: %v (%d records)", q, err, len(recs))
		}
		n, _ := recs[0].Values[0].(int64)
		return n
	}
	var f fingerprint
	f.Nodes = one(`MATCH (n) RETURN count(n)`)
	f.Rels = one(`MATCH ()-[r]->() RETURN count(r)`)
	f.NodeProps = one(`MATCH (n) RETURN coalesce(sum(size(keys(n))), 0)`)
	f.RelProps = one(`MATCH ()-[r]->() RETURN coalesce(sum(size(keys(r))), 0)`)
	f.Labels = one(`MATCH (n) RETURN coalesce(sum(size(labels(n))), 0)`)
	f.Constraints = one(`SHOW CONSTRAINTS YIELD name RETURN count(*)`)
	f.Indexes = one(`SHOW INDEXES YIELD name RETURN count(*)`)
	return f
}
