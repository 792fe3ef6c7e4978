// Package graphwalktest holds the graph that the graph stores' tests share
// and the checks that hold every store to the same answers: TestStore for
// a graphwalk.Store's queries, TestRetriever for the documents of a graph
// retriever. Package graphwalk runs them on an in-memory store, and
// packages sqlite and neo4j on their real databases, so that the
// expectations are written once.
package graphwalktest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/kb"
)

// Nodes and Edges are the test graph: suppliers, their customers and the
// people and places around them. Edge types are spelled loosely ("located
// in", "supplies") as extraction writes them; a store stores them as
// LOCATED_IN and SUPPLIES.
var (
	Nodes = []kb.Node{
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
	Edges = []kb.Edge{
		{Source: "acme", Type: "SUPPLIES", Target: "globex", Props: map[string]string{"since": "2019"}, Origin: "contracts.md"},
		{Source: "acme", Type: "supplies", Target: "initech", Origin: "contracts.md"},
		{Source: "acme-labs", Type: "SUPPLIES", Target: "umbrella"},
		{Source: "globex", Type: "located in", Target: "berlin"},
		{Source: "jane", Type: "MANAGES", Target: "globex"},
	}
)

// Writer is the write side of a graph store, as Seed uses it.
type Writer interface {
	UpsertNodes(ctx context.Context, nodes []kb.Node) error
	UpsertEdges(ctx context.Context, edges []kb.Edge) error
}

// Seed writes Nodes and Edges to g.
func Seed(t testing.TB, g Writer) {
	t.Helper()
	ctx := context.Background()
	if err := g.UpsertNodes(ctx, Nodes); err != nil {
		t.Fatal(err)
	}
	if err := g.UpsertEdges(ctx, Edges); err != nil {
		t.Fatal(err)
	}
}

// Store is a database-backed graph store as TestDatabase runs it.
type Store interface {
	graphwalk.Store
	Writer
}

// TestDatabase runs the checks on a store that shares one database
// across them (one lock and wipe, to keep a suite quick): TestStore and
// TestRetriever on g, which must hold exactly Nodes and Edges, then
// TestHubRetriever after adding HubNodes and HubEdges, last, since the hub
// changes the graph the others describe. newRetriever returns a retriever
// over g with the given Hops and MaxEdges (zero: the defaults).
func TestDatabase(t *testing.T, g Store, newRetriever func(hops, maxEdges int) agent.Retriever) {
	t.Run("store", func(t *testing.T) { TestStore(t, g) })
	t.Run("retriever", func(t *testing.T) { TestRetriever(t, newRetriever) })
	t.Run("relation words first", func(t *testing.T) {
		ctx := context.Background()
		if err := g.UpsertNodes(ctx, HubNodes); err != nil {
			t.Fatal(err)
		}
		if err := g.UpsertEdges(ctx, HubEdges); err != nil {
			t.Fatal(err)
		}
		TestHubRetriever(t, newRetriever(0, 0))
	})
}

// Retrieve asks r about q as the agent asks the graph route (at most six
// documents), failing t on an error or on a document of another route.
func Retrieve(t *testing.T, r agent.Retriever, q string) []agent.Document {
	t.Helper()
	docs, err := r.Retrieve(context.Background(), agent.Request{Query: q, Question: q, Limit: 6})
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

// TestStore checks s, which must hold exactly Nodes and Edges, against
// the contract of graphwalk.Store: what each query returns and in which
// order, since the walk's documents depend on both.
func TestStore(t *testing.T, s graphwalk.Store) {
	ctx := context.Background()

	t.Run("EntityIndex", func(t *testing.T) {
		idx, err := s.EntityIndex(ctx)
		if err != nil {
			t.Fatal(err)
		}
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
			if got := idx.MatchNames(tc.text); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("MatchNames(%q) = %q, want %q", tc.text, got, tc.want)
			}
		}
		if es := idx.Match("Jane Doe and Berlin"); len(es) != 2 || fmt.Sprint(es[0].IDs, es[0].Labels) != "[jane] [Person]" {
			t.Errorf("Match gave %+v", es)
		}
		// The schema's words: labels, relationship types, property keys
		// of nodes and edges; not the fields every node has.
		for w, want := range map[string]string{"customers": "Customer", "managed": "MANAGES", "located": "LOCATED_IN",
			"role": "role", "tier": "tier", "source": "", "name": ""} {
			if got, ok := idx.Term(w); got != want || ok != (want != "") {
				t.Errorf("Term(%q) = %q, %v; want %q", w, got, ok, want)
			}
		}
	})

	t.Run("NodesByIDs", func(t *testing.T) {
		ns, err := s.NodesByIDs(ctx, []string{"globex", "no-such-node", "acme"})
		if err != nil {
			t.Fatal(err)
		}
		// Source is where the node came from, not one of its properties.
		want := "[{globex Customer Globex Corporation map[revenue:$1.2M tier:gold]} {acme Supplier Acme Corp map[country:Germany]}]"
		if fmt.Sprint(ns) != want {
			t.Errorf("NodesByIDs = %v, want %v", ns, want)
		}
		if ns, err := s.NodesByIDs(ctx, nil); err != nil || len(ns) != 0 {
			t.Errorf("NodesByIDs(nil) = %v, %v", ns, err)
		}
	})

	t.Run("NodesOfLabel", func(t *testing.T) {
		for _, tc := range []struct {
			label string
			order graphwalk.Order
			limit int
			want  string // ids
		}{
			{"Supplier", graphwalk.ByID, 10, "[acme acme-labs]"},
			{"Supplier", graphwalk.ByName, 10, "[acme-labs acme]"}, // Acme < Acme Corp
			{"Customer", graphwalk.ByName, 2, "[globex hooli]"},
			{"Customer", graphwalk.ByID, 3, "[globex hooli initech]"},
			{"Warehouse", graphwalk.ByName, 10, "[]"},
		} {
			ns, err := s.NodesOfLabel(ctx, tc.label, tc.order, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, n := range ns {
				if n.Label != tc.label {
					t.Errorf("NodesOfLabel(%s) gave %+v", tc.label, n)
				}
				ids = append(ids, n.ID)
			}
			if fmt.Sprint(ids) != tc.want {
				t.Errorf("NodesOfLabel(%s, %v, %d) = %v, want %v", tc.label, tc.order, tc.limit, ids, tc.want)
			}
		}
		for label, want := range map[string]int{"Customer": 4, "Supplier": 2, "Team": 1, "Warehouse": 0} {
			if n, err := s.CountLabel(ctx, label); err != nil || n != want {
				t.Errorf("CountLabel(%s) = %d, %v; want %d", label, n, err, want)
			}
		}
	})

	t.Run("EdgesOf", func(t *testing.T) {
		all, err := s.EdgesOf(ctx, []string{"globex", "no-such-node", "acme"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 3 || len(all[1]) != 0 {
			t.Fatalf("EdgesOf = %v", all)
		}
		// Both directions, ordered by type; the order within a type is the
		// store's, so it is sorted here.
		lines := func(fs []graphwalk.Fact) string {
			var types, ls []string
			for _, f := range fs {
				types = append(types, f.Type)
				ls = append(ls, f.String()+" origin="+f.Origin)
			}
			if !slices.IsSorted(types) {
				t.Errorf("edges not ordered by type: %v", types)
			}
			slices.Sort(ls)
			return strings.Join(ls, "\n")
		}
		want := `Acme Corp (Supplier) -[SUPPLIES]-> Globex Corporation (Customer) {since: 2019} origin=contracts.md
Globex Corporation (Customer) -[LOCATED_IN]-> Berlin (City) origin=
Jane Doe (Person) -[MANAGES]-> Globex Corporation (Customer) origin=`
		if got := lines(all[0]); got != want {
			t.Errorf("edges of globex:\n%s\nwant\n%s", got, want)
		}
		want = `Acme Corp (Supplier) -[SUPPLIES]-> Globex Corporation (Customer) {since: 2019} origin=contracts.md
Acme Corp (Supplier) -[SUPPLIES]-> Initech (Customer) origin=contracts.md`
		if got := lines(all[2]); got != want {
			t.Errorf("edges of acme:\n%s\nwant\n%s", got, want)
		}
		// The ends carry their properties, and one edge read from either
		// end is the same edge.
		for _, f := range all[2] {
			if f.Dst.ID == "globex" {
				if f.Dst.Props["revenue"] != "$1.2M" || f.Src.Props["country"] != "Germany" {
					t.Errorf("edge ends without props: %+v", f)
				}
				if f.ID == "" || f.ID != all[0][2].ID {
					t.Errorf("edge ids %q from acme, %q from globex", f.ID, all[0][2].ID)
				}
			}
		}
		bounded, err := s.EdgesOf(ctx, []string{"globex"}, 2)
		if err != nil || len(bounded) != 1 || len(bounded[0]) != 2 || bounded[0][0].Type+" "+bounded[0][1].Type != "LOCATED_IN MANAGES" {
			t.Errorf("EdgesOf(globex, 2) = %v, %v", bounded, err)
		}
	})
}

// TestRetriever checks the documents a graph retriever gives for questions
// about Nodes and Edges. newRetriever returns one over a store holding
// exactly those, with the given Hops and MaxEdges (zero for the defaults).
func TestRetriever(t *testing.T, newRetriever func(hops, maxEdges int) agent.Retriever) {
	t.Run("neighbourhood", func(t *testing.T) {
		got := Retrieve(t, newRetriever(0, 0), "Which customers does Acme Corp supply?")
		if len(got) != 1 {
			t.Fatalf("got %d documents, want 1: %+v", len(got), got)
		}
		d := got[0]
		if d.Title != "Knowledge graph: neighbourhood of Acme Corp" || d.Location != "graph: neighbourhood of Acme Corp (2 hops)" {
			t.Errorf("title %q location %q", d.Title, d.Location)
		}
		// The presenter shows the walk from its own field, never parsing
		// the location back.
		if d.Kind != agent.KindGraph || d.Walk != "neighbourhood of Acme Corp (2 hops)" {
			t.Errorf("kind %q walk %q", d.Kind, d.Walk)
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

		d = Retrieve(t, newRetriever(1, 0), "Acme Corp")[0]
		if strings.Contains(d.Content, "Berlin") || !strings.HasSuffix(d.Location, "(1 hop)") {
			t.Errorf("one hop walked further: %s\n%s", d.Location, d.Content)
		}

		d = Retrieve(t, newRetriever(0, 2), "Acme Corp")[0]
		if n := strings.Count(d.Content, "]->"); n != 2 {
			t.Errorf("MaxEdges 2 gave %d facts", n)
		}
	})

	r := newRetriever(0, 0)
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
			got := Retrieve(t, r, tc.query)
			var titles []string
			for _, d := range got {
				titles = append(titles, d.Title)
			}
			if fmt.Sprint(titles) != fmt.Sprint(tc.titles) {
				t.Fatalf("titles = %q, want %q", titles, tc.titles)
			}
			if len(tc.want) == 0 {
				return
			}
			rest := got[0].Content
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("content lacks %q (in order):\n%s", w, got[0].Content)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// HubNodes and HubEdges are a graph with a hub: the product Chai is bought
// by 30 buyers and supplied by one supplier, whose edge sorts after the
// buyers' and so is cut from a walk that shares its budget evenly. They
// are kept apart from Nodes and Edges, which the stores' tests count.
var HubNodes, HubEdges = func() ([]kb.Node, []kb.Edge) {
	nodes := []kb.Node{{ID: "chai", Label: "Product", Name: "Chai"},
		{ID: "exotic", Label: "Supplier", Name: "Exotic Liquids"}}
	edges := []kb.Edge{{Source: "exotic", Type: "SUPPLIES", Target: "chai"}}
	for i := range 30 {
		id := fmt.Sprintf("buyer-%02d", i)
		nodes = append(nodes, kb.Node{ID: id, Label: "Customer", Name: fmt.Sprintf("Buyer %02d", i)})
		edges = append(edges, kb.Edge{Source: id, Type: "BUYS", Target: "chai"})
	}
	return nodes, edges
}()

// TestHubRetriever checks that the relation a question names is taken
// first from a hub. newRetriever returns one over a store holding exactly
// HubNodes and HubEdges, with the default Hops and MaxEdges.
func TestHubRetriever(t *testing.T, r agent.Retriever) {
	for _, tc := range []struct {
		query string
		want  []string // substrings of the only document, in order
		not   string   // absent from it
	}{
		// Which buyer comes first is the store's order of edges of one
		// type (Neo4j's internal ids need not follow insertion), so the
		// buyers are matched without their names.
		{"Who supplies Chai?", []string{"Relations:\nExotic Liquids (Supplier) -[SUPPLIES]-> Chai (Product)",
			" (Customer) -[BUYS]-> Chai (Product)"}, ""},
		{"Which supplier supplied Chai?", []string{"Relations:\nExotic Liquids (Supplier) -[SUPPLIES]-> Chai (Product)"}, ""},
		{"Who bought Chai?", []string{"Relations:\nBuyer ", " (Customer) -[BUYS]-> Chai (Product)"}, ""},
		// Without a relation word the even share reads the first edges
		// by type, as before.
		{"Tell me about Chai", []string{"Relations:\nBuyer ", " (Customer) -[BUYS]-> Chai (Product)"}, "SUPPLIES"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got := Retrieve(t, r, tc.query)
			if len(got) != 1 || got[0].Title != "Knowledge graph: neighbourhood of Chai" {
				t.Fatalf("got %d documents: %+v", len(got), got)
			}
			rest := got[0].Content
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("content lacks %q (in order):\n%s", w, got[0].Content)
				}
				rest = rest[i+len(w):]
			}
			if tc.not != "" && strings.Contains(got[0].Content, tc.not) {
				t.Errorf("content has %q:\n%s", tc.not, got[0].Content)
			}
		})
	}
}
