package neo4j

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/graphwalk/graphwalktest"
	"github.com/switchboard/switchboard/ingest"
)

// Graph is what ingest writes graphs into.
var _ ingest.GraphWriter = (*Graph)(nil)

// TestImportExamples loads the demo graph with the ingest code, twice, and
// asks the quickstart's graph question both ways: with generated Cypher
// and with the walk.
func TestImportExamples(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	nodes, edges := "../examples/graph/nodes.csv", "../examples/graph/edges.csv"
	rep, err := ingest.ImportGraph(ctx, g, nodes, edges)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, rep.String())
	}
	before := graphFingerprint(t, g)
	if _, err := ingest.ImportGraph(ctx, g, nodes, edges); err != nil {
		t.Fatal(err)
	}
	if after := graphFingerprint(t, g); after != before {
		t.Errorf("re-import changed the graph: %+v → %+v", before, after)
	}
	if n := mustCount(t, g.CountNodes); n != 40 {
		t.Errorf("%d nodes, want 40", n)
	}
	if n := mustCount(t, g.CountEdges); n != 75 {
		t.Errorf("%d edges, want 75", n)
	}

	question := "Which suppliers are connected to our top 3 customers?"
	docs := graphwalktest.Retrieve(t, NewGraphRetriever(g), question)
	if len(docs) == 0 || !strings.Contains(docs[0].Content, "Kestrel Microsystems") {
		t.Errorf("walk answer lacks Kestrel Microsystems: %+v", docs)
	}

	// The first worked example of the Cypher prompt, on this schema.
	w := &fakeWriter{replies: []string{`MATCH (c:Customer) WHERE c.revenue IS NOT NULL
WITH c ORDER BY toFloat(c.revenue) DESC LIMIT 3
MATCH (c)-[:BUYS]->(p:Product)<-[:SUPPLIES]-(s:Supplier)
RETURN c.name AS customer, p.name AS product, collect(DISTINCT s.name) AS suppliers
ORDER BY customer, product`}}
	r := NewGraphRetriever(g)
	r.Writer = w
	docs = graphwalktest.Retrieve(t, r, question)
	if len(docs) != 1 || docs[0].Title != "Knowledge graph query" || !strings.Contains(docs[0].Content, "Kestrel Microsystems") ||
		!strings.Contains(docs[0].Content, "customer: Halvorsen Freight, product: ") {
		t.Errorf("Cypher answer: %+v", docs)
	}
	if !strings.Contains(w.calls[0].schema, "(:Customer)-[:BUYS {since: STRING") ||
		!strings.Contains(w.calls[0].schema, `revenue: STRING e.g. "`) {
		t.Errorf("schema:\n%s", w.calls[0].schema)
	}
}
