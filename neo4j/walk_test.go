package neo4j

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/kb"
)

// The walk's tests are package sqlite's, run against Neo4j: both backends
// must give the same documents for the same graph. They share one
// database (one lock and wipe) to keep the suite quick.
func TestWalk(t *testing.T) {
	g := openTest(t)
	seedGraph(t, g)

	t.Run("neighbourhood", func(t *testing.T) {
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
	})

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
		{"Which suppliers serve our top 2 customers?", []string{"Knowledge graph: top 2 Customer by revenue"},
			[]string{"Connections to Supplier entities:", "Umbrella (Customer) <-[SUPPLIES]- Acme (Supplier)",
				"Globex Corporation (Customer) <-[SUPPLIES]- Acme Corp (Supplier)"}},
		{"list all suppliers", []string{"Knowledge graph: Supplier entities"},
			[]string{"Supplier entities (2 of 2)", "Acme (Supplier) {country: France}", "-[SUPPLIES]->"}},
		{"top suppliers", []string{"Knowledge graph: Supplier entities"}, nil}, // no numeric property
		{"Where is Globex based?", []string{"Knowledge graph: neighbourhood of Globex Corporation"},
			[]string{"Globex Corporation (Customer) -[LOCATED_IN]-> Berlin (City)"}},
		{"How are Acme and Jane Doe connected?", []string{
			"Knowledge graph: neighbourhood of Jane Doe", "Knowledge graph: neighbourhood of Acme"}, nil},
		{"Which city is Jane Doe's customer in?", []string{"Knowledge graph: neighbourhood of Jane Doe"},
			[]string{"Connections to City entities:", "Jane Doe (Person) -[MANAGES]-> Globex Corporation (Customer) -[LOCATED_IN]-> Berlin (City)"}},
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

	// A hub with many edges must not crowd its siblings out of a bounded walk.
	t.Run("shares budget", func(t *testing.T) {
		ctx := context.Background()
		nodes := []kb.Node{{ID: "hub", Label: "Vendor", Name: "Alpha Hub"}, {ID: "zeta", Label: "Vendor", Name: "Zeta"},
			{ID: "c-z", Label: "Client", Name: "Zeta Client"}}
		edges := []kb.Edge{{Source: "zeta", Type: "SERVES", Target: "c-z"}}
		for i := range 30 {
			id := fmt.Sprintf("c%d", i)
			nodes = append(nodes, kb.Node{ID: id, Label: "Client", Name: "Client " + id})
			edges = append(edges, kb.Edge{Source: "hub", Type: "SERVES", Target: id})
		}
		if err := g.UpsertNodes(ctx, nodes); err != nil {
			t.Fatal(err)
		}
		if err := g.UpsertEdges(ctx, edges); err != nil {
			t.Fatal(err)
		}
		r := NewGraphRetriever(g)
		r.MaxEdges = 6
		docs := graphDocs(t, r, "list the vendors")
		if len(docs) != 1 {
			t.Fatalf("got %d documents", len(docs))
		}
		c := docs[0].Content
		if n := strings.Count(c, "]->"); n > 6 {
			t.Errorf("%d facts, want at most 6", n)
		}
		if !strings.Contains(c, "Zeta (Vendor) -[SERVES]-> Zeta Client (Client)") {
			t.Errorf("the hub crowded out Zeta:\n%s", c)
		}
	})
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
