package neo4j

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard/switchboard/kb"
)

func TestSchema(t *testing.T) {
	ctx := context.Background()
	g := openTest(t)
	seedGraph(t, g)
	s, err := g.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, l := range s.Labels {
		labels = append(labels, fmt.Sprintf("%s:%d", l.Name, l.Count))
	}
	if got := strings.Join(labels, " "); got != "City:1 Customer:4 Person:1 Supplier:2 Team:1" {
		t.Errorf("labels = %s", got)
	}
	text := s.Text("", 0)
	for _, want := range []string{
		`(:Customer {revenue: STRING e.g. "`, `tier: STRING e.g. "gold"}) 4 nodes`,
		`(:Supplier {country: STRING e.g. "`,
		`(:Supplier)-[:SUPPLIES {since: STRING e.g. "2019"}]->(:Customer)`,
		`(:Customer)-[:LOCATED_IN]->(:City)`,
		`(:Person)-[:MANAGES]->(:Customer)`,
		"every node also has the label :Entity", "origin",
	} {
		if !strings.Contains(strings.ToLower(text), strings.ToLower(want)) {
			t.Errorf("schema text lacks %q:\n%s", want, text)
		}
	}
	for _, not := range []string{"_Meta", "_Migration", "(:Entity", "source:", "id:"} {
		if strings.Contains(text, not) {
			t.Errorf("schema text shows %q:\n%s", not, text)
		}
	}

	// Cached while the graph does not change…
	if again, _ := g.Schema(ctx); again != s {
		t.Error("schema was introspected again without a change")
	}
	// …refreshed when another process writes…
	other, err := Open(ctx, g.cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if err := other.UpsertNodes(ctx, []kb.Node{{ID: "w1", Label: "Product", Name: "Widget", Props: map[string]string{"sku": "W-1"}}}); err != nil {
		t.Fatal(err)
	}
	s2, err := g.Schema(ctx)
	if err != nil || !strings.Contains(s2.Text("", 0), `(:Product {sku: STRING e.g. "W-1"}) 1 node`) {
		t.Errorf("schema after another process's write: %v\n%s", err, s2.Text("", 0))
	}
	// …and when the TTL has passed, for changes made outside any Graph.
	g.now = func() time.Time { return time.Now().Add(g.cfg.CacheTTL + time.Second) }
	if s3, _ := g.Schema(ctx); s3 == s2 {
		t.Error("schema outlived its TTL")
	}

	st, err := g.SchemaText(ctx, "Which customers does Acme Corp supply?")
	if err != nil || !strings.Contains(st, `Names in the question that are nodes (property name): "Acme Corp" (:Supplier)`) {
		t.Errorf("SchemaText: %v\n%s", err, st)
	}
}

// TestSchemaTrim checks that a large schema is cut down to what the
// question is about.
func TestSchemaTrim(t *testing.T) {
	s := &Schema{}
	for i := range 40 {
		s.Labels = append(s.Labels, LabelInfo{Name: fmt.Sprintf("Thing%02d", i), Count: int64(i)})
	}
	s.Labels = append(s.Labels,
		LabelInfo{Name: "Customer", Count: 5}, LabelInfo{Name: "Product", Count: 3},
		LabelInfo{Name: "Supplier", Count: 2}, LabelInfo{Name: "PurchaseOrder", Count: 1},
		LabelInfo{Name: "Warehouse", Count: 1})
	s.Rels = []RelInfo{
		{From: "Customer", Type: "BOUGHT", To: "Product"},
		{From: "Supplier", Type: "SUPPLIES", To: "Product"},
		{From: "Customer", Type: "PLACED", To: "PurchaseOrder"},
		{From: "Product", Type: "STORED_IN", To: "Warehouse"},
		{From: "Thing01", Type: "NEAR", To: "Thing02"},
	}
	text := s.Text("Which suppliers supply products bought by our top 3 customers?", 4)
	for _, want := range []string{"(:Customer)", "(:Supplier)", "(:Product)", "(:Customer)-[:BOUGHT]->(:Product)",
		"(:Supplier)-[:SUPPLIES]->(:Product)", "(4 of 45 labels shown"} {
		if !strings.Contains(text, want) {
			t.Errorf("trimmed schema lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Thing") || strings.Count(text, " nodes") > 4 {
		t.Errorf("trimmed schema keeps unrelated labels:\n%s", text)
	}
	if text := s.Text("list purchase orders", 2); !strings.Contains(text, "(:PurchaseOrder)") {
		t.Errorf("a two-word label was not found:\n%s", text)
	}
	text = s.Text("what is going on?", 3)
	if !strings.Contains(text, "(:Thing39)") || !strings.Contains(text, "(:Thing37)") || strings.Contains(text, "(:Thing36)") {
		t.Errorf("without mentions, the most numerous labels should be kept:\n%s", text)
	}
	if got := fmt.Sprint(nameWords("PurchaseOrder"), nameWords("LOCATED_IN"), nameWords("HTTPServer")); got != "[purchase order] [located in] [http server]" {
		t.Errorf("nameWords: %s", got)
	}
}
