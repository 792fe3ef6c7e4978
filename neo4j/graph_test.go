package neo4j

import (
	"context"
	"fmt"
	"strings"
	"testing"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/switchboard/switchboard/graphwalk/graphwalktest"
	"github.com/switchboard/switchboard/kb"
)

// dropSchema drops every constraint and index but the token lookup
// indexes, which Neo4j keeps for itself.
func dropSchema(t *testing.T, g *Graph) {
	t.Helper()
	ctx := context.Background()
	s := g.session(ctx, neo4jdrv.AccessModeWrite)
	defer s.Close(ctx)
	for _, list := range []struct{ show, drop string }{
		// Constraints first: dropping one drops the index behind it.
		{`SHOW CONSTRAINTS YIELD name RETURN name`, "DROP CONSTRAINT "},
		{`SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name`, "DROP INDEX "},
	} {
		res, err := s.Run(ctx, list.show, nil)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := res.Collect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			res, err := s.Run(ctx, list.drop+quote(r.Values[0].(string))+" IF EXISTS", nil)
			if err == nil {
				_, err = res.Consume(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	// From a database without any schema, as a new server starts.
	dropSchema(t, g)
	wipe := g.session(ctx, neo4jdrv.AccessModeWrite)
	if res, err := wipe.Run(ctx, `MATCH (n) DETACH DELETE n`, nil); err != nil {
		t.Fatal(err)
	} else if _, err := res.Consume(ctx); err != nil {
		t.Fatal(err)
	}
	wipe.Close(ctx)
	if err := g.Migrate(ctx); err != nil {
		t.Fatalf("first Migrate: %v", err)
	}
	before := graphFingerprint(t, g)
	if before.Constraints != 3 {
		t.Errorf("%d constraints after migrating, want 3", before.Constraints)
	}
	if err := g.Migrate(ctx); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	if after := graphFingerprint(t, g); after != before {
		t.Errorf("second Migrate changed the database: %+v → %+v", before, after)
	}
	// Even with the record of it gone, a migration runs again harmlessly.
	s := g.session(ctx, neo4jdrv.AccessModeWrite)
	res, err := s.Run(ctx, `MATCH (m:_Migration) DELETE m`, nil)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	s.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Migrate(ctx); err != nil {
		t.Fatalf("Migrate after losing its records: %v", err)
	}
	if after := graphFingerprint(t, g); after != before {
		t.Errorf("re-running migrations changed the database: %+v → %+v", before, after)
	}

	recs, err := g.read(ctx, `SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type
		WHERE type = 'UNIQUENESS' AND labelsOrTypes = ['Entity'] RETURN properties`, nil)
	if err != nil || len(recs) != 1 || fmt.Sprint(recs[0].Values[0]) != "[id]" {
		t.Errorf("no uniqueness constraint on :Entity(id): %v, %v", recs, err)
	}
	recs, err = g.read(ctx, `MATCH (m:_Migration) RETURN m.name ORDER BY m.name`, nil)
	if err != nil || len(recs) == 0 || recs[0].Values[0] != "001_entities.cypher" {
		t.Errorf("migrations recorded: %v, %v", recs, err)
	}
}

func TestStatements(t *testing.T) {
	got := statements("// comment\nCREATE INDEX a IF NOT EXISTS\n  FOR (n:A) ON (n.x);\n\nCREATE INDEX b IF NOT EXISTS FOR (n:B) ON (n.y);\n// trailing\n")
	want := []string{"CREATE INDEX a IF NOT EXISTS\nFOR (n:A) ON (n.x)", "CREATE INDEX b IF NOT EXISTS FOR (n:B) ON (n.y)"}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("statements = %q, want %q", got, want)
	}
}

func TestUpsertIsIdempotent(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	before := graphFingerprint(t, g)
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
	after := graphFingerprint(t, g)
	if after.Nodes != before.Nodes || after.Rels != before.Rels || after.Labels != before.Labels || after.RelProps != before.RelProps+1 {
		t.Errorf("re-import changed more than one property: %+v → %+v", before, after)
	}

	// Props merge rather than replace, an empty label keeps the old one,
	// and an empty source keeps the stored one.
	if err := g.UpsertNodes(ctx, []kb.Node{{ID: "acme", Name: "Acme Corp",
		Props: map[string]string{"employees": "900", "id": "hijack", "source": "hijack"}}}); err != nil {
		t.Fatal(err)
	}
	ns, err := g.NodesByIDs(ctx, []string{"acme"})
	if err != nil || len(ns) != 1 {
		t.Fatalf("NodesByIDs = %v, %v", ns, err)
	}
	if n := ns[0]; n.ID != "acme" || n.Label != "Supplier" || n.Props["country"] != "Germany" || n.Props["employees"] != "900" {
		t.Errorf("merged node = %+v", n)
	}
	recs, err := g.read(ctx, `MATCH (n:Entity {id: 'acme'}) RETURN n.source, labels(n)`, nil)
	if err != nil || recs[0].Values[0] != "suppliers.csv" || fmt.Sprint(recs[0].Values[1]) != "[Entity Supplier]" && fmt.Sprint(recs[0].Values[1]) != "[Supplier Entity]" {
		t.Errorf("source, labels = %v, %v", recs[0].Values, err)
	}

	// Each fact records where it came from.
	recs, err = g.read(ctx, `MATCH (:Entity {id: 'acme'})-[r:SUPPLIES]->(:Entity {id: 'globex'}) RETURN r.origin, r.since, r.volume`, nil)
	if err != nil || len(recs) != 1 || fmt.Sprint(recs[0].Values) != "[contracts.md 2019 300t]" {
		t.Errorf("merged edge = %v, %v", recs, err)
	}

	// A new label replaces the old one: the node is not both.
	if err := g.UpsertNodes(ctx, []kb.Node{{ID: "hooli", Label: "Prospect", Name: "Hooli"}}); err != nil {
		t.Fatal(err)
	}
	recs, err = g.read(ctx, `MATCH (n:Entity {id: 'hooli'}) RETURN [l IN labels(n) WHERE l <> 'Entity']`, nil)
	if err != nil || fmt.Sprint(recs[0].Values[0]) != "[Prospect]" {
		t.Errorf("relabelled node labels = %v, %v", recs[0].Values, err)
	}
}

func TestUpsertBatches(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	var nodes []kb.Node
	var edges []kb.Edge
	for i := range 1203 { // three batches, the last one short
		label := []string{"Customer", "Product", "Supplier"}[i%3]
		nodes = append(nodes, kb.Node{ID: fmt.Sprintf("n%d", i), Label: label, Name: fmt.Sprintf("Node %d", i)})
		if i > 0 {
			edges = append(edges, kb.Edge{Source: fmt.Sprintf("n%d", i-1), Type: "NEXT", Target: fmt.Sprintf("n%d", i)})
		}
	}
	for range 2 {
		if err := g.UpsertNodes(ctx, nodes); err != nil {
			t.Fatal(err)
		}
		if err := g.UpsertEdges(ctx, edges); err != nil {
			t.Fatal(err)
		}
	}
	if n := mustCount(t, g.CountNodes); n != len(nodes) {
		t.Errorf("nodes = %d, want %d", n, len(nodes))
	}
	if n := mustCount(t, g.CountEdges); n != len(edges) {
		t.Errorf("edges = %d, want %d", n, len(edges))
	}
}

func TestUpsertRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	before := graphFingerprint(t, g)

	err := g.UpsertEdges(ctx, []kb.Edge{
		{Source: "acme", Type: "SUPPLIES", Target: "hooli"},
		{Source: "acme", Type: "SUPPLIES", Target: "wayne-enterprises"},
	})
	if err == nil || !strings.Contains(err.Error(), `"wayne-enterprises"`) {
		t.Fatalf("err = %v, want one naming wayne-enterprises", err)
	}
	for _, tc := range []struct {
		name  string
		nodes []kb.Node
		edges []kb.Edge
		want  string
	}{
		{"label injection", []kb.Node{{ID: "x", Label: "Customer) DETACH DELETE (n", Name: "X"}}, nil, "label"},
		{"backtick label", []kb.Node{{ID: "x", Label: "A`B", Name: "X"}}, nil, "label"},
		{"reserved label", []kb.Node{{ID: "x", Label: "_Migration", Name: "X"}}, nil, "reserved"},
		{"empty id", []kb.Node{{ID: " ", Label: "Customer", Name: "X"}}, nil, "empty id"},
		{"type injection", nil, []kb.Edge{{Source: "acme", Type: "SUPPLIES]->() DETACH DELETE (x)//", Target: "globex"}}, "type"},
		{"empty type", nil, []kb.Edge{{Source: "acme", Type: " ", Target: "globex"}}, "empty type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.nodes != nil {
				err = g.UpsertNodes(ctx, tc.nodes)
			} else {
				err = g.UpsertEdges(ctx, tc.edges)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	// All or nothing: the valid edge before the bad one was not stored.
	if after := graphFingerprint(t, g); after != before {
		t.Errorf("failed upserts changed the graph: %+v → %+v", before, after)
	}
}

func TestMatchEntities(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	got, err := g.MatchEntities(ctx, "what does ACME CORP. sell to globex corporation")
	if err != nil || fmt.Sprint(got) != "[Acme Corp Globex Corporation]" {
		t.Errorf("MatchEntities = %q, %v", got, err)
	}

	// A node written later, even through another Graph, is matched.
	other, err := Open(ctx, g.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if err := other.UpsertNodes(ctx, []kb.Node{{ID: "wayne", Label: "Customer", Name: "Wayne Enterprises"}}); err != nil {
		t.Fatal(err)
	}
	got, err = g.MatchEntities(ctx, "orders from wayne enterprises")
	if err != nil || fmt.Sprint(got) != "[Wayne Enterprises]" {
		t.Errorf("after insert: %q, %v", got, err)
	}
}
