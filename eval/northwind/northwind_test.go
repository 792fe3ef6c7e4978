package northwind

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/kb"
)

// fixture is a tiny Northwind in its real column layout, with a short row
// (order 10251) and an order line of an unknown order.
var fixture = map[string]string{
	"categories.csv": "categoryID,categoryName,description,picture\n1,Beverages,\"Soft drinks, coffees\",0x15\n2,Condiments,Sauces,0x15\n",
	"suppliers.csv":  "supplierID,companyName,contactName,contactTitle,address,city,region,postalCode,country,phone,fax,homePage\n1,Exotic Liquids,Charlotte Cooper,Purchasing Manager,49 Gilbert St.,London,NULL,EC1 4SD,UK,(171) 555-2222,NULL,NULL\n",
	"products.csv": "productID,productName,supplierID,categoryID,quantityPerUnit,unitPrice,unitsInStock,unitsOnOrder,reorderLevel,discontinued\n" +
		"1,Chai,1,1,10 boxes x 20 bags,18.00,39,0,10,0\n2,Aniseed Syrup,1,2,12 - 550 ml bottles,10.00,13,70,25,1\n",
	"customers.csv": "customerID,companyName,contactName,contactTitle,address,city,region,postalCode,country,phone,fax\n" +
		"ALFKI,Alfreds Futterkiste,Maria Anders,Sales Representative,Obere Str. 57,Berlin,NULL,12209,Germany,030-0074321,030-0076545\n" +
		"BONAP,Bon app',Laurence Lebihan,Owner,\"12, rue des Bouchers\",Marseille,NULL,13008,France,91.24.45.40,91.24.45.41\n",
	"employees.csv": "employeeID,lastName,firstName,title,hireDate,city,country,reportsTo\n" +
		"1,Davolio,Nancy,Sales Representative,1992-05-01 00:00:00.000,Seattle,USA,2\n2,Fuller,Andrew,\"Vice President, Sales\",1992-08-14 00:00:00.000,Tacoma,USA,NULL\n",
	"orders.csv": "orderID,customerID,employeeID,orderDate\n10248,ALFKI,1,1996-07-04\n10249,ALFKI,2,1996-07-05\n10250,BONAP,1,1996-07-08\n10251,BONAP,1\n",
	"order-details.csv": "orderID,productID,unitPrice,quantity,discount\n" +
		"10248,1,18.00,10,0\n10249,1,18.00,5,0.2\n10249,2,10.00,3,0\n10250,2,10.00,1,0\n99999,1,18.00,1,0\n",
}

func writeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range fixture {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// memGraph is an ingest.GraphWriter in memory.
type memGraph struct {
	nodes map[string]kb.Node
	edges []kb.Edge
}

func (g *memGraph) UpsertNodes(_ context.Context, nodes []kb.Node) error {
	for _, n := range nodes {
		g.nodes[n.ID] = n
	}
	return nil
}

func (g *memGraph) UpsertEdges(_ context.Context, edges []kb.Edge) error {
	g.edges = append(g.edges, edges...)
	return nil
}

func TestConvertLoadsWithTheNormalImport(t *testing.T) {
	nodes, edges, st, err := Convert(writeFixture(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &memGraph{nodes: map[string]kb.Node{}}
	rep, err := ingest.ImportGraph(context.Background(), g, nodes, edges)
	if err != nil || len(rep.NodeErrors)+len(rep.EdgeErrors) > 0 {
		t.Fatalf("import: %v\n%s", err, rep)
	}
	if rep.Nodes != 9 || st.Nodes["Customer"] != 2 || st.Nodes["Employee"] != 2 {
		t.Errorf("nodes = %d, stats %s", rep.Nodes, st)
	}
	// ALFKI: 10×18 + 5×18×0.8 + 3×10 = 282 over two orders.
	alfki := g.nodes["cust-ALFKI"]
	if alfki.Name != "Alfreds Futterkiste" || alfki.Props["revenue"] != "282.00" || alfki.Props["orders"] != "2" || alfki.Props["country"] != "Germany" {
		t.Errorf("ALFKI = %+v", alfki)
	}
	if p := g.nodes["prod-2"].Props; p["discontinued"] != "yes" || p["units_sold"] != "4" || p["revenue"] != "40.00" {
		t.Errorf("Aniseed Syrup props = %v", p)
	}
	if e := g.nodes["emp-2"]; e.Name != "Andrew Fuller" || e.Props["title"] != "Vice President, Sales" || e.Props["hire_date"] != "1992-08-14" {
		t.Errorf("Fuller = %+v", e)
	}
	var got []string
	for _, e := range g.edges {
		s := e.Source + " " + e.Type + " " + e.Target
		if e.Type == "BUYS" {
			s += " " + e.Props["orders"] + "/" + e.Props["quantity"]
		}
		got = append(got, s)
	}
	want := []string{
		"sup-1 SUPPLIES prod-1", "prod-1 PART_OF cat-1", "emp-1 REPORTS_TO emp-2",
		"cust-ALFKI BUYS prod-1 2/15", "cust-ALFKI BUYS prod-2 1/3", "cust-BONAP BUYS prod-2 1/1",
		"emp-1 SOLD_TO cust-ALFKI", "emp-2 SOLD_TO cust-ALFKI",
	}
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("edges lack %q:\n%s", w, all)
		}
	}
	if len(st.Skipped) != 2 || st.Skipped[0] != "orders.csv line 5: 3 fields, want 4" ||
		!strings.Contains(st.Skipped[1], "order-details.csv line 6: unknown order") {
		t.Errorf("skipped = %q", st.Skipped)
	}
}

func TestConvertBadInput(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		dir := writeFixture(t)
		os.Remove(filepath.Join(dir, "orders.csv"))
		if _, _, _, err := Convert(dir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "orders.csv") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("missing column", func(t *testing.T) {
		dir := writeFixture(t)
		os.WriteFile(filepath.Join(dir, "products.csv"), []byte("productID,name\n1,Chai\n"), 0o644)
		if _, _, _, err := Convert(dir, t.TempDir()); err == nil || !strings.Contains(err.Error(), `products.csv: no "productName" column`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("short row", func(t *testing.T) {
		dir := writeFixture(t)
		os.WriteFile(filepath.Join(dir, "categories.csv"), []byte("categoryID,categoryName,description\n1,Beverages\n2,Condiments,Sauces\n"), 0o644)
		_, _, st, err := Convert(dir, t.TempDir())
		if err != nil || st.Nodes["Category"] != 1 || len(st.Skipped) != 3 || st.Skipped[0] != "categories.csv line 2: 2 fields, want 3" {
			t.Errorf("err = %v, stats %s, skipped %q", err, st, st.Skipped)
		}
	})
}

// The real Northwind, when the evaluation data is present (it is not part
// of the repository).
func TestConvertRealNorthwind(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "eval-data", "northwind")
	if _, err := os.Stat(filepath.Join(dir, "orders.csv")); err != nil {
		t.Skip("no Northwind data at", dir)
	}
	nodes, edges, st, err := Convert(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := &memGraph{nodes: map[string]kb.Node{}}
	rep, err := ingest.ImportGraph(context.Background(), g, nodes, edges)
	if err != nil || len(rep.NodeErrors)+len(rep.EdgeErrors) > 0 || len(st.Skipped) > 0 {
		t.Fatalf("import: %v\n%s\nskipped: %q", err, rep, st.Skipped)
	}
	t.Logf("%s", st)
	if st.Nodes["Customer"] != 91 || st.Nodes["Product"] != 77 || st.Nodes["Supplier"] != 29 || st.Nodes["Employee"] != 9 || st.Nodes["Category"] != 8 {
		t.Errorf("stats = %s", st)
	}
}
