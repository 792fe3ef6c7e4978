package examples_test

import (
	"context"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/kb"
)

func readGraph(t *testing.T) ([]kb.Node, []kb.Edge) {
	t.Helper()
	nf, err := examples.FS.Open(examples.NodesCSV)
	if err != nil {
		t.Fatal(err)
	}
	defer nf.Close()
	nodes, bad, err := ingest.ReadNodesCSV(nf, examples.NodesCSV)
	if err != nil || len(bad) > 0 {
		t.Fatalf("%s: err %v, row errors %v", examples.NodesCSV, err, bad)
	}
	ef, err := examples.FS.Open(examples.EdgesCSV)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	edges, bad, err := ingest.ReadEdgesCSV(ef, examples.EdgesCSV)
	if err != nil || len(bad) > 0 {
		t.Fatalf("%s: err %v, row errors %v", examples.EdgesCSV, err, bad)
	}
	return nodes, edges
}

func TestGraphParsesCleanly(t *testing.T) {
	nodes, edges := readGraph(t)
	count := map[string]int{}
	for _, n := range nodes {
		count[n.Label]++
	}
	want := map[string]int{"Customer": 10, "Supplier": 6, "Product": 8, "Person": 7, "Team": 5, "System": 4}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("nodes by label = %v, want %v", count, want)
	}

	// ImportGraphFS also checks that every edge names known nodes.
	var gotNodes, gotEdges int
	store := graphWriter{
		nodes: func(n []kb.Node) { gotNodes += len(n) },
		edges: func(e []kb.Edge) { gotEdges += len(e) },
	}
	rep, err := ingest.ImportGraphFS(context.Background(), store, examples.FS, examples.NodesCSV, examples.EdgesCSV)
	if err != nil || len(rep.NodeErrors)+len(rep.EdgeErrors) > 0 {
		t.Fatalf("import: %v\n%s", err, rep)
	}
	if gotNodes != len(nodes) || gotEdges != len(edges) {
		t.Errorf("imported %d nodes, %d edges; want %d, %d", gotNodes, gotEdges, len(nodes), len(edges))
	}
}

// TestTopCustomersSuppliers pins the answer to the demo's headline graph
// question, "Which suppliers are connected to our top 3 customers?", via
// customer -BUYS-> product <-SUPPLIES- supplier.
func TestTopCustomersSuppliers(t *testing.T) {
	nodes, edges := readGraph(t)
	name := map[string]string{}
	var customers []kb.Node
	for _, n := range nodes {
		name[n.ID] = n.Name
		if n.Label == "Customer" {
			customers = append(customers, n)
		}
	}
	revenue := func(n kb.Node) int {
		v, err := strconv.Atoi(n.Props["revenue"])
		if err != nil {
			t.Fatalf("%s: revenue %q is not a number", n.ID, n.Props["revenue"])
		}
		return v
	}
	sort.Slice(customers, func(i, j int) bool { return revenue(customers[i]) > revenue(customers[j]) })
	if revenue(customers[2]) == revenue(customers[3]) {
		t.Fatal("the top 3 customers are not well defined: tie at third place")
	}
	top := map[string]bool{}
	var topNames []string
	for _, c := range customers[:3] {
		top[c.ID] = true
		topNames = append(topNames, c.Name)
	}
	if want := []string{"Halvorsen Freight", "Mapleridge Health", "Quintero Retail Group"}; !reflect.DeepEqual(topNames, want) {
		t.Errorf("top 3 customers = %v, want %v", topNames, want)
	}

	bought := map[string]bool{}
	for _, e := range edges {
		if e.Type == "BUYS" && top[e.Source] {
			bought[e.Target] = true
		}
	}
	suppliers := map[string]bool{}
	for _, e := range edges {
		if e.Type == "SUPPLIES" && bought[e.Target] {
			suppliers[name[e.Source]] = true
		}
	}
	var got []string
	for s := range suppliers {
		got = append(got, s)
	}
	sort.Strings(got)
	if want := []string{"Amberley Batteries", "Cirrus Hosting", "Kestrel Microsystems"}; !reflect.DeepEqual(got, want) {
		t.Errorf("suppliers of the top 3 customers = %v, want %v", got, want)
	}
}

func TestDocs(t *testing.T) {
	paths := examples.Docs()
	want := []string{"docs/data-retention.md", "docs/refund-policy.md", "docs/security-policy.md", "docs/support-sla.md", "docs/travel-expense-policy.md"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("Docs() = %v, want %v", paths, want)
	}
	var docs []kb.Document
	rep, err := ingest.FilesFS(context.Background(), examples.FS, examples.Prefix, []string{examples.DocsDir}, func(d kb.Document) error {
		docs = append(docs, d)
		return nil
	})
	if err != nil || len(rep.Skipped) > 0 || len(rep.Errors) > 0 || rep.Unsupported > 0 || len(docs) != len(want) {
		t.Fatalf("loading the examples: err %v, report:\n%s", err, rep)
	}
	for _, d := range docs {
		if !strings.HasPrefix(d.Key, "examples/docs/") || d.Title == "" || strings.HasSuffix(d.Title, ".md") {
			t.Errorf("%s: title %q", d.Key, d.Title)
		}
		words := len(strings.Fields(d.Chunks[0].Content))
		if words < 300 || words > 800 {
			t.Errorf("%s: %d words, want 300-800", d.Key, words)
		}
		chunks := ingest.Split(d.Chunks[0].Content, ingest.SplitOptions{})
		if len(chunks) < 3 {
			t.Errorf("%s: only %d chunks; want several sections", d.Key, len(chunks))
		}
	}
}

// graphWriter is an ingest.GraphWriter made of functions.
type graphWriter struct {
	nodes func([]kb.Node)
	edges func([]kb.Edge)
}

var _ ingest.GraphWriter = graphWriter{}

func (g graphWriter) UpsertNodes(_ context.Context, n []kb.Node) error { g.nodes(n); return nil }
func (g graphWriter) UpsertEdges(_ context.Context, e []kb.Edge) error { g.edges(e); return nil }
