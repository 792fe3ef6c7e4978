package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/switchboard/switchboard/kb"
)

func TestReadNodesCSV(t *testing.T) {
	in := "\uFEFFName, ID ,Label,Annual Revenue,country\n" + // line 1: any order and case, BOM
		"Acme,c1,customer,100,NO\n" + // 2
		"Bad,c2,Customer\n" + // 3: too few fields
		"Quo\"te,c3,Customer,1,X\n" + // 4: bare quote
		",c4,Supplier,,\n" + // 5: empty name defaults to the id; empty props left out
		"Nolabel,c5,,1,X\n" + // 6: empty label
		"NoID,,Customer,1,X\n" + // 7: empty id
		"Dup,c1,Customer,1,X\n" + // 8: duplicate id
		"Evil,c6,\"Customer`) DETACH DELETE n //\",1,X\n" + // 9: unsafe label
		"\"Multi\nline\",c7,account manager,5,\"SE\"\n" // 10-11: quoted newline; label normalised

	nodes, bad, err := ReadNodesCSV(strings.NewReader(in), "nodes.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []kb.Node{
		{ID: "c1", Label: "Customer", Name: "Acme", Props: map[string]string{"annual_revenue": "100", "country": "NO"}, Source: "nodes.csv"},
		{ID: "c4", Label: "Supplier", Name: "c4", Source: "nodes.csv"},
		{ID: "c7", Label: "Account_manager", Name: "Multi\nline", Props: map[string]string{"annual_revenue": "5", "country": "SE"}, Source: "nodes.csv"},
	}
	if !reflect.DeepEqual(nodes, want) {
		t.Errorf("nodes =\n%+v\nwant\n%+v", nodes, want)
	}
	wantBad := map[int]string{
		3: "3 fields, want 5",
		4: `bare " in non-quoted-field`,
		6: "empty label",
		7: "empty id",
		8: `duplicate id "c1" (first on line 2)`,
		9: "label \"Customer`) DETACH DELETE n //\"",
	}
	if len(bad) != len(wantBad) {
		t.Errorf("row errors = %v, want %d", bad, len(wantBad))
	}
	for _, e := range bad {
		if w, ok := wantBad[e.Line]; !ok || !strings.Contains(e.Error(), w) {
			t.Errorf("row error %q, want line %d to say %q", e.Error(), e.Line, w)
		}
	}
}

func TestReadEdgesCSV(t *testing.T) {
	in := "source,type,target,since\n" +
		"s1,supplies,p1,2021\n" + // 2
		"c1,Account Manager Of,p1,\n" + // 3
		"c1,accountManagerOf,p2,\n" + // 4
		"c1,buys-from,p3,\n" + // 5
		",BUYS,p1,\n" + // 6
		"c1,,p1,\n" + // 7
		"c1,BUYS,,\n" + // 8
		"c1,BUYS]->(x) DELETE x//,p1,\n" + // 9
		"c1,1ST,p1,\n" + // 10
		"c1,über,p1,\n" // 11

	edges, bad, err := ReadEdgesCSV(strings.NewReader(in), "edges.csv")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range edges {
		types = append(types, e.Type)
		if e.Origin != "edges.csv" {
			t.Errorf("Origin = %q", e.Origin)
		}
	}
	if want := []string{"SUPPLIES", "ACCOUNT_MANAGER_OF", "ACCOUNT_MANAGER_OF", "BUYS_FROM"}; !reflect.DeepEqual(types, want) {
		t.Errorf("types = %v, want %v", types, want)
	}
	if !reflect.DeepEqual(edges[0].Props, map[string]string{"since": "2021"}) || edges[1].Props != nil {
		t.Errorf("props = %v, %v", edges[0].Props, edges[1].Props)
	}
	var lines []int
	for _, e := range bad {
		lines = append(lines, e.Line)
	}
	if want := []int{6, 7, 8, 9, 10, 11}; !reflect.DeepEqual(lines, want) {
		t.Errorf("row error lines = %v, want %v (%v)", lines, want, bad)
	}
}

func TestReadCSVHeaderErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
		edges          bool
	}{
		{"missing columns", "id,name,revenue\n1,a,2\n", "missing required column(s) label (want id,label,name)", false},
		{"missing edge columns", "from,type,to\n", "missing required column(s) source, target", true},
		{"empty file", "", "empty file: want a header with columns id,label,name", false},
		{"duplicate column", "id,label,name,ID\n", `column "id" appears twice`, false},
		{"unsafe property", "id,label,name,rev$\n", `column "rev$": property names`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.edges {
				_, _, err = ReadEdgesCSV(strings.NewReader(tt.in), "e.csv")
			} else {
				_, _, err = ReadNodesCSV(strings.NewReader(tt.in), "n.csv")
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// fakeGraph is a GraphWriter made of functions.
type fakeGraph struct {
	UpsertNodesFn func(ctx context.Context, nodes []kb.Node) error
	UpsertEdgesFn func(ctx context.Context, edges []kb.Edge) error
}

var _ GraphWriter = (*fakeGraph)(nil)

func (g *fakeGraph) UpsertNodes(ctx context.Context, nodes []kb.Node) error {
	return g.UpsertNodesFn(ctx, nodes)
}

func (g *fakeGraph) UpsertEdges(ctx context.Context, edges []kb.Edge) error {
	return g.UpsertEdgesFn(ctx, edges)
}

// recordingGraph records the batch sizes it is sent.
func recordingGraph(nodeBatches, edgeBatches *[]int) *fakeGraph {
	return &fakeGraph{
		UpsertNodesFn: func(_ context.Context, n []kb.Node) error { *nodeBatches = append(*nodeBatches, len(n)); return nil },
		UpsertEdgesFn: func(_ context.Context, e []kb.Edge) error { *edgeBatches = append(*edgeBatches, len(e)); return nil },
	}
}

func TestImportGraph(t *testing.T) {
	dir := t.TempDir()
	var nodes, edges strings.Builder
	nodes.WriteString("id,label,name\n")
	for i := range 1200 {
		fmt.Fprintf(&nodes, "n%d,Thing,Thing %d\n", i, i)
	}
	nodes.WriteString("bad row\n") // line 1202
	edges.WriteString("source,type,target\n")
	for i := range 600 {
		fmt.Fprintf(&edges, "n%d,NEXT,n%d\n", i, i+1)
	}
	edges.WriteString("n1,NEXT,ghost\n") // line 602
	edges.WriteString("ghost,NEXT,n1\n") // line 603
	np, ep := filepath.Join(dir, "nodes.csv"), filepath.Join(dir, "edges.csv")
	for p, s := range map[string]string{np: nodes.String(), ep: edges.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var nb, eb []int
	rep, err := ImportGraph(context.Background(), recordingGraph(&nb, &eb), np, ep)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nb, []int{500, 500, 200}) || !reflect.DeepEqual(eb, []int{500, 100}) {
		t.Errorf("batches: nodes %v, edges %v", nb, eb)
	}
	if rep.Nodes != 1200 || rep.Edges != 600 || len(rep.NodeErrors) != 1 || rep.NodeErrors[0].Line != 1202 {
		t.Errorf("report: %s", rep)
	}
	if len(rep.EdgeErrors) != 2 || rep.EdgeErrors[0].Error() != `line 602: unknown target node "ghost"` ||
		rep.EdgeErrors[1].Error() != `line 603: unknown source node "ghost"` {
		t.Errorf("edge errors: %v", rep.EdgeErrors)
	}
	if s := rep.String(); !strings.HasPrefix(s, "1200 nodes, 600 edges imported\n") || !strings.Contains(s, "edges.csv line 603: unknown source node") {
		t.Errorf("String() = %q", s)
	}
}

func TestImportGraphWritesNothingOnABadFile(t *testing.T) {
	fsys := fstest.MapFS{
		"nodes.csv": {Data: []byte("id,label,name\na,Customer,A\n")},
		"edges.csv": {Data: []byte("from,to\n")},
	}
	var nb, eb []int
	_, err := ImportGraphFS(context.Background(), recordingGraph(&nb, &eb), fsys, "nodes.csv", "edges.csv")
	if err == nil || !strings.HasPrefix(err.Error(), "ingest: edges.csv: header: missing required column(s) source, type, target") {
		t.Errorf("err = %v", err)
	}
	if len(nb)+len(eb) != 0 {
		t.Error("wrote to the store despite a bad file")
	}

	_, err = ImportGraphFS(context.Background(), recordingGraph(&nb, &eb), fsys, "missing.csv", "")
	if err == nil || !strings.HasPrefix(err.Error(), "ingest: missing.csv: ") {
		t.Errorf("err = %v, want the missing file named", err)
	}
}

func TestImportGraphStoreErrorAndCancel(t *testing.T) {
	fsys := fstest.MapFS{"n.csv": {Data: []byte("id,label,name\na,Customer,A\n")}}
	boom := errors.New("neo4j unavailable")
	g := &fakeGraph{UpsertNodesFn: func(context.Context, []kb.Node) error { return boom }}
	if _, err := ImportGraphFS(context.Background(), g, fsys, "n.csv", ""); !errors.Is(err, boom) || !strings.Contains(err.Error(), "n.csv: write nodes 0-0") {
		t.Errorf("err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ImportGraphFS(ctx, g, fsys, "n.csv", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestNormalize(t *testing.T) {
	rel := map[string]string{
		"buys": "BUYS", "Supplies To": "SUPPLIES_TO", "account-manager-of": "ACCOUNT_MANAGER_OF",
		"accountManagerOf": "ACCOUNT_MANAGER_OF", "USES_V2": "USES_V2", "uses__x": "USES_X",
	}
	for in, want := range rel {
		if got, ok := normalizeRelType(in); !ok || got != want {
			t.Errorf("normalizeRelType(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "_X", "1X", "A:B", "A`B", "Ä"} {
		if got, ok := normalizeRelType(in); ok {
			t.Errorf("normalizeRelType(%q) = %q, accepted", in, got)
		}
	}
	labels := map[string]string{"customer": "Customer", "Product Line": "Product_Line", "SYSTEM": "SYSTEM"}
	for in, want := range labels {
		if got, ok := normalizeLabel(in); !ok || got != want {
			t.Errorf("normalizeLabel(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := normalizeLabel("Customer:Admin"); ok {
		t.Error("normalizeLabel accepted a colon")
	}
}
