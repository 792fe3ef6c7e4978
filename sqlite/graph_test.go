package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/kb"
)

var (
	testNodes = []kb.Node{
		{ID: "acme", Label: "Supplier", Name: "Acme Corp", Props: map[string]string{"country": "Germany"}, Source: "suppliers.csv"},
		{ID: "acme-labs", Label: "Supplier", Name: "Acme", Props: map[string]string{"country": "France"}},
		{ID: "globex", Label: "Customer", Name: "Globex Corporation", Props: map[string]string{"revenue": "$1.2M", "tier": "gold"}},
		{ID: "initech", Label: "Customer", Name: "Initech", Props: map[string]string{"revenue": "450,000"}},
		{ID: "umbrella", Label: "Customer", Name: "Umbrella", Props: map[string]string{"revenue": "2.5m"}},
		{ID: "hooli", Label: "Customer", Name: "Hooli"},
		{ID: "berlin", Label: "City", Name: "Berlin"},
		{ID: "jane", Label: "Person", Name: "Jane Doe", Props: map[string]string{"role": "account manager"}},
		{ID: "it", Label: "Team", Name: "IT"},
	}
	testEdges = []kb.Edge{
		{Source: "acme", Type: "SUPPLIES", Target: "globex", Props: map[string]string{"since": "2019"}, Origin: "contracts.md"},
		{Source: "acme", Type: "supplies", Target: "initech", Origin: "contracts.md"},
		{Source: "acme-labs", Type: "SUPPLIES", Target: "umbrella"},
		{Source: "globex", Type: "located in", Target: "berlin"},
		{Source: "jane", Type: "MANAGES", Target: "globex"},
	}
)

func seedGraph(t testing.TB, g *GraphStore) {
	t.Helper()
	ctx := context.Background()
	if err := g.UpsertNodes(ctx, testNodes); err != nil {
		t.Fatal(err)
	}
	if err := g.UpsertEdges(ctx, testEdges); err != nil {
		t.Fatal(err)
	}
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
	if n := mustCount(t, g.CountNodes); n != len(testNodes) {
		t.Errorf("nodes = %d, want %d", n, len(testNodes))
	}
	if n := mustCount(t, g.CountEdges); n != len(testEdges) {
		t.Errorf("edges = %d, want %d", n, len(testEdges))
	}
	// Props merge rather than replace, and an empty label keeps the old one.
	if err := g.UpsertNodes(ctx, []kb.Node{{ID: "globex", Name: "Globex Corporation",
		Props: map[string]string{"employees": "900"}}}); err != nil {
		t.Fatal(err)
	}
	ns, err := g.nodesByNames(ctx, []string{"globex corporation"}, 5)
	if err != nil || len(ns) != 1 {
		t.Fatalf("nodesByNames = %v, %v", ns, err)
	}
	if n := ns[0]; n.Label != "Customer" || n.Props["revenue"] != "$1.2M" || n.Props["employees"] != "900" {
		t.Errorf("merged node = %+v", n)
	}
	fs, err := g.edgesOf(ctx, "acme", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.dst.ID == "globex" && (f.props["since"] != "2019" || f.props["volume"] != "300t" || f.origin != "contracts.md") {
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
	if n := mustCount(t, g.CountEdges); n != len(testEdges) {
		t.Errorf("edges = %d after failed upsert, want %d", n, len(testEdges))
	}
}

func TestMatchEntities(t *testing.T) {
	ctx := context.Background()
	g := NewGraphStore(openTest(t))
	seedGraph(t, g)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Who does Acme Corp supply?", []string{"Acme Corp"}},
		{"what does ACME CORP. sell to globex corporation", []string{"Acme Corp", "Globex Corporation"}},
		{"Initech is managed by Jane Doe", []string{"Jane Doe", "Initech"}}, // longest first
		{"Is Acme related to Initech?", []string{"Acme", "Initech"}},
		{"Acmeville and Globex", nil},
		{"it is what it is", nil},
		{"Jane Doe's accounts", []string{"Jane Doe"}},
		{"", nil},
	} {
		got, err := g.MatchEntities(ctx, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("MatchEntities(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}

	// A node written later, even by another GraphStore, is matched.
	other := NewGraphStore(g.db)
	if err := other.UpsertNodes(ctx, []kb.Node{{ID: "wayne", Label: "Customer", Name: "Wayne Enterprises"}}); err != nil {
		t.Fatal(err)
	}
	got, err := g.MatchEntities(ctx, "orders from wayne enterprises")
	if err != nil || fmt.Sprint(got) != "[Wayne Enterprises]" {
		t.Errorf("after insert: %q, %v", got, err)
	}

	many := strings.Repeat("Acme Corp Globex Corporation Initech Umbrella Hooli Berlin Jane Doe Acme ", 200)
	if got, _ := g.MatchEntities(ctx, many); len(got) > maxMatches {
		t.Errorf("%d matches, want at most %d", len(got), maxMatches)
	}
}

func graphDocs(t *testing.T, r *GraphRetriever, q string) []agent.Document {
	t.Helper()
	docs, err := r.Retrieve(context.Background(), reqFor(q))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Route != agent.RouteGraph {
			t.Errorf("route = %q", d.Route)
		}
	}
	return docs
}

func TestGraphRetrieverNeighbourhood(t *testing.T) {
	g := NewGraphStore(openTest(t))
	seedGraph(t, g)
	docs := graphDocs(t, NewGraphRetriever(g), "Which customers does Acme Corp supply?")
	if len(docs) != 1 {
		t.Fatalf("got %d documents, want 1: %+v", len(docs), docs)
	}
	d := docs[0]
	if d.Title != "Knowledge graph: neighbourhood of Acme Corp" || d.Location != "graph: neighbourhood of Acme Corp (2 hops)" {
		t.Errorf("title %q location %q", d.Title, d.Location)
	}
	for _, want := range []string{
		"Entity: Acme Corp (Supplier) {country: Germany}",
		"Acme Corp (Supplier) -[SUPPLIES]-> Globex Corporation (Customer) {since: 2019}",
		"Acme Corp (Supplier) -[SUPPLIES]-> Initech (Customer)",
		"Globex Corporation (Customer) -[LOCATED_IN]-> Berlin (City)", // two hops away
		"Jane Doe (Person) -[MANAGES]-> Globex Corporation (Customer)",
		"Globex Corporation (Customer) {revenue: $1.2M, tier: gold}",
	} {
		if !strings.Contains(d.Content, want) {
			t.Errorf("content lacks %q:\n%s", want, d.Content)
		}
	}
	if strings.Contains(d.Content, "Umbrella") {
		t.Errorf("content reaches a different supplier's customer:\n%s", d.Content)
	}
	if d.Metadata["origins"] != "contracts.md" {
		t.Errorf("metadata = %v", d.Metadata)
	}

	one := NewGraphRetriever(g)
	one.Hops = 1
	d = graphDocs(t, one, "Acme Corp")[0]
	if strings.Contains(d.Content, "Berlin") || !strings.HasSuffix(d.Location, "(1 hop)") {
		t.Errorf("one hop walked further: %s\n%s", d.Location, d.Content)
	}

	capped := NewGraphRetriever(g)
	capped.MaxEdges = 2
	d = graphDocs(t, capped, "Acme Corp")[0]
	if n := strings.Count(d.Content, "]->"); n != 2 {
		t.Errorf("MaxEdges 2 gave %d facts", n)
	}
}

func TestGraphRetrieverStrategies(t *testing.T) {
	g := NewGraphStore(openTest(t))
	seedGraph(t, g)
	r := NewGraphRetriever(g)
	for _, tc := range []struct {
		query  string
		titles []string
		want   []string // substrings of the first document, in order
	}{
		{"Who are our top 2 customers?", []string{"Knowledge graph: top 2 Customer by revenue"},
			[]string{"1. Umbrella (Customer)", "2. Globex Corporation (Customer)", "Acme (Supplier) -[SUPPLIES]-> Umbrella"}},
		{"three biggest customers", []string{"Knowledge graph: top 3 Customer by revenue"},
			[]string{"1. Umbrella", "2. Globex", "3. Initech"}},
		{"list all suppliers", []string{"Knowledge graph: Supplier entities"},
			[]string{"Supplier entities (2 of 2)", "Acme (Supplier) {country: France}", "-[SUPPLIES]->"}},
		{"top suppliers", []string{"Knowledge graph: Supplier entities"}, nil}, // no numeric property
		{"Where is Globex based?", []string{"Knowledge graph: neighbourhood of Globex Corporation"},
			[]string{"Globex Corporation (Customer) -[LOCATED_IN]-> Berlin (City)"}},
		{"How are Acme and Jane Doe connected?", []string{
			"Knowledge graph: neighbourhood of Jane Doe", "Knowledge graph: neighbourhood of Acme"}, nil},
		{"What is the weather in Paris?", nil, nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			docs := graphDocs(t, r, tc.query)
			var titles []string
			for _, d := range docs {
				titles = append(titles, d.Title)
			}
			if fmt.Sprint(titles) != fmt.Sprint(tc.titles) {
				t.Fatalf("titles = %q, want %q", titles, tc.titles)
			}
			if len(tc.want) == 0 {
				return
			}
			rest := docs[0].Content
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("content lacks %q (in order):\n%s", w, docs[0].Content)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]float64{
		"1200": 1200, "3,400": 3400, "$1.2M": 1.2e6, "EUR 5k": 5000, "12%": 12, "2bn": 2e9, " 7 ": 7,
	} {
		if got, ok := parseNumber(in); !ok || got != want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "gold", "NaN", "Inf", "1.2.3"} {
		if _, ok := parseNumber(in); ok {
			t.Errorf("parseNumber(%q) ok", in)
		}
	}
}

// A hub with many edges must not crowd its siblings out of a bounded walk.
func TestGraphWalkSharesBudget(t *testing.T) {
	ctx := context.Background()
	g := NewGraphStore(openTest(t))
	nodes := []kb.Node{{ID: "hub", Label: "Supplier", Name: "Alpha Hub"}, {ID: "zeta", Label: "Supplier", Name: "Zeta"},
		{ID: "c-z", Label: "Customer", Name: "Zeta Customer"}}
	edges := []kb.Edge{{Source: "zeta", Type: "SUPPLIES", Target: "c-z"}}
	for i := range 30 {
		id := fmt.Sprintf("c%d", i)
		nodes = append(nodes, kb.Node{ID: id, Label: "Customer", Name: "Customer " + id})
		edges = append(edges, kb.Edge{Source: "hub", Type: "SUPPLIES", Target: id})
	}
	if err := g.UpsertNodes(ctx, nodes); err != nil {
		t.Fatal(err)
	}
	if err := g.UpsertEdges(ctx, edges); err != nil {
		t.Fatal(err)
	}
	r := NewGraphRetriever(g)
	r.MaxEdges = 6
	docs := graphDocs(t, r, "list the suppliers")
	if len(docs) != 1 {
		t.Fatalf("got %d documents", len(docs))
	}
	c := docs[0].Content
	if n := strings.Count(c, "]->"); n > 6 {
		t.Errorf("%d facts, want at most 6", n)
	}
	if !strings.Contains(c, "Zeta (Supplier) -[SUPPLIES]-> Zeta Customer (Customer)") {
		t.Errorf("the hub crowded out Zeta:\n%s", c)
	}
}
