// Package northwind turns the CSV files of the Northwind sample database
// (customers, suppliers, products, categories, employees, orders, order
// details) into the two files `switchboard graph import` reads, so that an
// evaluation can load real data through the normal graph import.
//
// The graph it writes:
//
//	Supplier -[SUPPLIES]-> Product -[PART_OF]-> Category
//	Customer -[BUYS {orders, quantity}]-> Product
//	Employee -[SOLD_TO {orders}]-> Customer
//	Employee -[REPORTS_TO]-> Employee
//
// Orders are not nodes: Northwind's 830 orders and 2,155 order lines are
// folded into BUYS and SOLD_TO edges and into revenue and order counts on
// customers, products and employees, revenue being the sum of unit price ×
// quantity × (1 − discount) of the order lines. That keeps the graph small
// enough to read in a neighbourhood walk and lets "top 5 customers" rank by
// revenue. Shippers are left out.
package northwind

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The files Convert reads from the Northwind folder.
var inputs = []string{"categories.csv", "suppliers.csv", "products.csv", "customers.csv", "employees.csv", "orders.csv", "order-details.csv"}

// Stats says what Convert wrote and what it skipped.
type Stats struct {
	Nodes   map[string]int // by label
	Edges   map[string]int // by type
	Skipped []string       // rows not converted: "orders.csv line 12: 13 fields, want 14"
}

// String summarises the conversion: "Customer 91, Product 77, …; BUYS 1686, …".
func (s Stats) String() string {
	out := "nodes: " + counts(s.Nodes) + "; edges: " + counts(s.Edges)
	if len(s.Skipped) > 0 {
		out += fmt.Sprintf("; %d rows skipped", len(s.Skipped))
	}
	return out
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// Convert reads the Northwind CSV files in dir and writes nodes.csv and
// edges.csv into out, in the format of ingest.ReadNodesCSV and
// ingest.ReadEdgesCSV, returning their paths. Rows that cannot be used (a
// wrong number of fields, an order line naming an unknown order) are listed
// in Stats.Skipped and the rest is converted; the error is for a missing
// file, a file without the expected columns, or a failure to write.
func Convert(dir, out string) (nodesPath, edgesPath string, _ Stats, _ error) {
	st := Stats{Nodes: map[string]int{}, Edges: map[string]int{}}
	tables := map[string][]row{}
	for _, name := range inputs {
		rows, skipped, err := readTable(filepath.Join(dir, name))
		if err != nil {
			return "", "", st, fmt.Errorf("northwind: %w", err)
		}
		tables[name] = rows
		st.Skipped = append(st.Skipped, skipped...)
	}
	g := build(tables, &st)
	nodesPath, edgesPath = filepath.Join(out, "nodes.csv"), filepath.Join(out, "edges.csv")
	if err := writeCSV(nodesPath, g.nodeHeader(), g.nodeRows()); err != nil {
		return "", "", st, fmt.Errorf("northwind: %w", err)
	}
	if err := writeCSV(edgesPath, edgeHeader, g.edgeRows()); err != nil {
		return "", "", st, fmt.Errorf("northwind: %w", err)
	}
	return nodesPath, edgesPath, st, nil
}

// row is one CSV record by column name, with Northwind's "NULL" as "".
type row struct {
	file string
	line int
	m    map[string]string
}

func (r row) get(col string) string { return r.m[col] }

// required lists the columns each file must have.
var required = map[string][]string{
	"categories.csv":    {"categoryID", "categoryName"},
	"suppliers.csv":     {"supplierID", "companyName"},
	"products.csv":      {"productID", "productName", "supplierID", "categoryID", "unitPrice"},
	"customers.csv":     {"customerID", "companyName"},
	"employees.csv":     {"employeeID", "firstName", "lastName"},
	"orders.csv":        {"orderID", "customerID", "employeeID"},
	"order-details.csv": {"orderID", "productID", "unitPrice", "quantity", "discount"},
}

// readTable reads a CSV file with a header row.
func readTable(path string) ([]row, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	name := filepath.Base(path)
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1 // checked per row, so that one bad row does not end the file
	header, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: header: %w", name, err)
	}
	have := map[string]bool{}
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
		have[header[i]] = true
	}
	for _, c := range required[name] {
		if !have[c] {
			return nil, nil, fmt.Errorf("%s: no %q column", name, c)
		}
	}
	var rows []row
	var skipped []string
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, skipped, nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			skipped = append(skipped, fmt.Sprintf("%s line %d: %v", name, pe.StartLine, pe.Err))
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			skipped = append(skipped, fmt.Sprintf("%s line %d: %d fields, want %d", name, line, len(rec), len(header)))
			continue
		}
		m := make(map[string]string, len(header))
		for i, v := range rec {
			if v = strings.TrimSpace(v); v != "NULL" {
				m[header[i]] = v
			}
		}
		rows = append(rows, row{name, line, m})
	}
}

// graph is what Convert writes.
type graph struct {
	nodes []node
	edges []edge
}

type node struct {
	id, label, name string
	props           map[string]string
}

type edge struct {
	source, typ, target string
	props               map[string]string
}

// totals accumulates order lines for one customer, product or employee.
type totals struct {
	revenue  float64
	quantity int
	orders   map[string]bool
}

func (t *totals) add(order string, revenue float64, qty int) {
	if t.orders == nil {
		t.orders = map[string]bool{}
	}
	t.revenue += revenue
	t.quantity += qty
	t.orders[order] = true
}

func build(tables map[string][]row, st *Stats) *graph {
	g := &graph{}
	skip := func(r row, format string, args ...any) {
		st.Skipped = append(st.Skipped, fmt.Sprintf("%s line %d: %s", r.file, r.line, fmt.Sprintf(format, args...)))
	}

	// Order lines first: they give the totals that nodes carry.
	orders := map[string]row{}
	for _, r := range tables["orders.csv"] {
		orders[r.get("orderID")] = r
	}
	byCustomer, byProduct, byEmployee := map[string]*totals{}, map[string]*totals{}, map[string]*totals{}
	bought := map[[2]string]*totals{} // customer, product
	sold := map[[2]string]*totals{}   // employee, customer
	get := func(m map[string]*totals, k string) *totals {
		if m[k] == nil {
			m[k] = &totals{}
		}
		return m[k]
	}
	for _, r := range tables["order-details.csv"] {
		o, ok := orders[r.get("orderID")]
		if !ok {
			skip(r, "unknown order %q", r.get("orderID"))
			continue
		}
		price, err1 := strconv.ParseFloat(r.get("unitPrice"), 64)
		qty, err2 := strconv.Atoi(r.get("quantity"))
		disc, err3 := strconv.ParseFloat(r.get("discount"), 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			skip(r, "bad number: %v", err)
			continue
		}
		rev := price * float64(qty) * (1 - disc)
		order, cust, emp, prod := o.get("orderID"), o.get("customerID"), o.get("employeeID"), r.get("productID")
		get(byCustomer, cust).add(order, rev, qty)
		get(byProduct, prod).add(order, rev, qty)
		get(byEmployee, emp).add(order, rev, qty)
		pair(bought, cust, prod).add(order, rev, qty)
		pair(sold, emp, cust).add(order, rev, qty)
	}

	ids := map[string]bool{}
	addNode := func(r row, id, label, name string, props map[string]string) {
		switch {
		case name == "":
			skip(r, "no name")
		case ids[id]:
			skip(r, "duplicate id %q", id)
		default:
			ids[id] = true
			g.nodes = append(g.nodes, node{id, label, name, props})
			st.Nodes[label]++
		}
	}
	money := func(t *totals) map[string]string {
		if t == nil {
			return map[string]string{"revenue": "0.00", "orders": "0"}
		}
		return map[string]string{"revenue": strconv.FormatFloat(t.revenue, 'f', 2, 64), "orders": strconv.Itoa(len(t.orders))}
	}

	for _, r := range tables["categories.csv"] {
		addNode(r, "cat-"+r.get("categoryID"), "Category", r.get("categoryName"), map[string]string{"description": r.get("description")})
	}
	for _, r := range tables["suppliers.csv"] {
		addNode(r, "sup-"+r.get("supplierID"), "Supplier", r.get("companyName"), contact(r))
	}
	for _, r := range tables["customers.csv"] {
		p := contact(r)
		for k, v := range money(byCustomer[r.get("customerID")]) {
			p[k] = v
		}
		addNode(r, "cust-"+r.get("customerID"), "Customer", r.get("companyName"), p)
	}
	for _, r := range tables["employees.csv"] {
		p := map[string]string{"title": r.get("title"), "city": r.get("city"), "country": r.get("country"),
			"hire_date": datePart(r.get("hireDate"))}
		for k, v := range money(byEmployee[r.get("employeeID")]) {
			p[k] = v
		}
		addNode(r, "emp-"+r.get("employeeID"), "Employee", strings.TrimSpace(r.get("firstName")+" "+r.get("lastName")), p)
	}
	for _, r := range tables["products.csv"] {
		p := map[string]string{"unit_price": r.get("unitPrice"), "quantity_per_unit": r.get("quantityPerUnit"),
			"units_in_stock": r.get("unitsInStock"), "units_on_order": r.get("unitsOnOrder"), "discontinued": "no"}
		if r.get("discontinued") == "1" {
			p["discontinued"] = "yes"
		}
		t := byProduct[r.get("productID")]
		for k, v := range money(t) {
			p[k] = v
		}
		if t != nil {
			p["units_sold"] = strconv.Itoa(t.quantity)
		}
		addNode(r, "prod-"+r.get("productID"), "Product", r.get("productName"), p)
	}

	addEdge := func(from, typ, to string, props map[string]string) {
		if ids[from] && ids[to] {
			g.edges = append(g.edges, edge{from, typ, to, props})
			st.Edges[typ]++
		}
	}
	for _, r := range tables["products.csv"] {
		prod := "prod-" + r.get("productID")
		addEdge("sup-"+r.get("supplierID"), "SUPPLIES", prod, nil)
		addEdge(prod, "PART_OF", "cat-"+r.get("categoryID"), nil)
	}
	for _, r := range tables["employees.csv"] {
		if boss := r.get("reportsTo"); boss != "" {
			addEdge("emp-"+r.get("employeeID"), "REPORTS_TO", "emp-"+boss, nil)
		}
	}
	for _, k := range sortedPairs(bought) {
		t := bought[k]
		addEdge("cust-"+k[0], "BUYS", "prod-"+k[1], map[string]string{"orders": strconv.Itoa(len(t.orders)), "quantity": strconv.Itoa(t.quantity)})
	}
	for _, k := range sortedPairs(sold) {
		addEdge("emp-"+k[0], "SOLD_TO", "cust-"+k[1], map[string]string{"orders": strconv.Itoa(len(sold[k].orders))})
	}
	return g
}

// pair returns the totals of a pair of ids, creating them.
func pair(m map[[2]string]*totals, a, b string) *totals {
	k := [2]string{a, b}
	if m[k] == nil {
		m[k] = &totals{}
	}
	return m[k]
}

// contact is the properties of a company row: who to talk to and where.
func contact(r row) map[string]string {
	return map[string]string{"contact": r.get("contactName"), "contact_title": r.get("contactTitle"),
		"city": r.get("city"), "country": r.get("country"), "phone": r.get("phone")}
}

// datePart keeps the date of "1992-05-01 00:00:00.000".
func datePart(s string) string {
	d, _, _ := strings.Cut(s, " ")
	return d
}

// sortedPairs orders a map's keys, so that the files are the same on
// every run.
func sortedPairs(m map[[2]string]*totals) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	return keys
}

var edgeHeader = []string{"source", "type", "target", "orders", "quantity"}

// nodeHeader is id, label, name and every property any node has, sorted.
func (g *graph) nodeHeader() []string {
	seen := map[string]bool{}
	var props []string
	for _, n := range g.nodes {
		for k := range n.props {
			if !seen[k] {
				seen[k] = true
				props = append(props, k)
			}
		}
	}
	sort.Strings(props)
	return append([]string{"id", "label", "name"}, props...)
}

func (g *graph) nodeRows() [][]string {
	header := g.nodeHeader()
	rows := make([][]string, len(g.nodes))
	for i, n := range g.nodes {
		rec := []string{n.id, n.label, n.name}
		for _, k := range header[3:] {
			rec = append(rec, n.props[k])
		}
		rows[i] = rec
	}
	return rows
}

func (g *graph) edgeRows() [][]string {
	rows := make([][]string, len(g.edges))
	for i, e := range g.edges {
		rec := []string{e.source, e.typ, e.target}
		for _, k := range edgeHeader[3:] {
			rec = append(rec, e.props[k])
		}
		rows[i] = rec
	}
	return rows
}

func writeCSV(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(header) // errors stick to the writer and come back from Error
	_ = w.WriteAll(rows)
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
