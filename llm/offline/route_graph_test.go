package offline

import (
	"context"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/examples"
	"github.com/switchboard/switchboard/graphwalk"
)

// demoNames indexes the demo knowledge graph as the stores do: its nodes,
// and its schema, the relationship types of its edges and the property
// keys of both.
func demoNames(t *testing.T) *fakeNames {
	t.Helper()
	nodes, edges := readCSV(t, examples.NodesCSV), readCSV(t, examples.EdgesCSV)
	col := map[string]int{}
	for i, h := range nodes[0] {
		col[h] = i
	}
	schema := append(slices.Clone(nodes[0][3:]), edges[0][3:]...)
	for _, r := range edges[1:] {
		schema = append(schema, r[1])
	}
	var entries []graphwalk.Entry
	for _, r := range nodes[1:] {
		entries = append(entries, graphwalk.Entry{ID: r[col["id"]], Name: r[col["name"]], Labels: []string{r[col["label"]]}})
	}
	return &fakeNames{idx: graphwalk.NewIndex(entries, schema...)}
}

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := examples.FS.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// northwindNames is a graph shaped like Northwind's: products, their
// categories and suppliers, customers and employees.
func northwindNames() *fakeNames {
	return namesOf("SUPPLIES PART_OF REPORTS_TO BUYS SOLD_TO contact contact_title city country phone revenue orders title unit_price units_in_stock discontinued",
		"Product:Chai", "Product:Chang", "Product:Tofu", "Product:Longlife Tofu", "Product:Geitost",
		"Product:Ikura", "Product:Konbu", "Product:Gravad lax", "Product:Côte de Blaye",
		"Product:Gorgonzola Telino", "Product:Chef Anton's Cajun Seasoning", "Product:Chef Anton's Gumbo Mix",
		"Category:Beverages", "Category:Produce", "Category:Seafood", "Category:Dairy Products",
		"Supplier:Exotic Liquids", "Supplier:Tokyo Traders", "Supplier:Norske Meierier",
		"Supplier:Bigfoot Breweries", "Customer:Alfreds Futterkiste", "Customer:Around the Horn",
		"Customer:Lazy K Kountry Store", "Employee:Nancy Davolio", "Employee:Andrew Fuller",
	)
}

func TestRouteGraphNames(t *testing.T) {
	tests := []struct {
		question string
		route    agent.Route
	}{
		// Who makes, sells, hosts, is behind a named product.
		{"Who makes Geitost?", agent.RouteGraph},
		{"Who makes Chai?", agent.RouteGraph},
		{"Can you tell me who makes Tofu?", agent.RouteGraph},
		{"who makes chai?", agent.RouteGraph}, // typed all in lower case, a one-word name still counts
		{"Which company is behind Ikura?", agent.RouteGraph},
		{"Which firm produces Chang?", agent.RouteGraph},
		{"Where do we get Gravad lax from?", agent.RouteGraph},
		{"Where does Chai come from?", agent.RouteGraph},
		// What passes between parties.
		{"What has Lazy K Kountry Store bought from us?", agent.RouteGraph},
		{"What beers can we get from Bigfoot Breweries?", agent.RouteGraph},
		{"What has Alfreds Futterkiste ordered?", agent.RouteGraph},
		{"How many orders has Around the Horn placed?", agent.RouteGraph},
		// Categories and properties the graph keeps.
		{"Which category is Tofu part of?", agent.RouteGraph},
		{"What kind of food is Konbu filed under?", agent.RouteGraph},
		{"What category is Geitost in?", agent.RouteGraph},
		{"What is the unit price of Côte de Blaye?", agent.RouteGraph}, // graph before "price" sends it to the web
		{"How much does Chai cost?", agent.RouteGraph},
		{"Who is the contact person at Alfreds Futterkiste?", agent.RouteGraph},
		{"Which products have been discontinued?", agent.RouteGraph},
		{"Which employee has the highest sales revenue?", agent.RouteGraph},
		{"What are the top 3 products by revenue?", agent.RouteGraph},
		// A short name stands for a longer one that starts with it.
		{"Who makes Chef Anton's products?", agent.RouteGraph},
		// Mentions of a name that ask no relation stay with the documents.
		{"Is Tofu vegan?", agent.RouteVector},
		{"What is the shelf life of Geitost?", agent.RouteVector},
		{"Who do I ask about a refund for Chai?", agent.RouteVector},
		// A one-word name in lower case, in a question that capitalises, is a word.
		{"Who should produce the cycle report?", agent.RouteVector},
		{"Are beverages reimbursed on business trips?", agent.RouteVector},
		{"Which seafood dishes are served at the summer party?", agent.RouteVector},
		// Handbook questions with a question word in another place.
		{"Is there a bonus for referring a friend who gets hired?", agent.RouteVector},
		{"Whose OK do I need before I buy a new laptop?", agent.RouteVector},
		{"Who walks new hires through benefits and pay in their first weeks?", agent.RouteVector},
		{"When do I have to post what I'm planning to do this week?", agent.RouteVector},
		{"Who wrote the employee handbook?", agent.RouteVector},
	}
	b := New(northwindNames())
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			got, err := b.Route(context.Background(), tt.question)
			if err != nil {
				t.Fatal(err)
			}
			if got.Route != tt.route {
				t.Errorf("Route(%q) = %s (%s), want %s", tt.question, got.Route, got.Reason, tt.route)
			}
		})
	}
}

func TestRouteDemoGraphNames(t *testing.T) {
	tests := []struct {
		question string
		route    agent.Route
		reason   string // substring of the reason, if set
	}{
		{"Who makes the parts for the Sentinel Door Sensor?", agent.RouteGraph, "Sentinel Door Sensor"},
		{"Which company is behind the chips in the Beacon S2 Air Quality Sensor?", agent.RouteGraph, "Beacon S2"},
		{"Who hosts Brightline Cloud for us?", agent.RouteGraph, "Brightline Cloud"},
		{"Who is paying us for Insight Analytics?", agent.RouteGraph, "Insight Analytics"},
		{"What has Tallis Pharmaceuticals got from us?", agent.RouteGraph, "Tallis Pharmaceuticals"},
		{"What do we get from Norrland Plastics?", agent.RouteGraph, "Norrland Plastics"},
		{"Which clients have the Lumen Gateway?", agent.RouteGraph, "Lumen Gateway"},
		{"Who manufactures the ColdChain Probe?", agent.RouteGraph, "ColdChain Probe"},
		{"Who looks after the Tallis Pharmaceuticals account?", agent.RouteGraph, ""},
		{"Which team is Jonas Reuter a member of?", agent.RouteGraph, "Jonas Reuter"},
		{"Which systems does the Platform Engineering team own?", agent.RouteGraph, ""},
		{"What is the revenue of Mapleridge Health?", agent.RouteGraph, ""},
		{"Where is Kestrel Microsystems based?", agent.RouteGraph, ""},
		{"What tier is Halvorsen Freight on?", agent.RouteGraph, ""},
		{"Who leads the Security team?", agent.RouteGraph, ""},
		// "Beacon T1" is the start of "Beacon T1 Temperature Logger".
		{"Where does the Beacon T1 come from?", agent.RouteGraph, "Beacon T1 Temperature Logger"},
		{"Which customers use the EU data region?", agent.RouteGraph, ""},
		// An entity and a verb the schema does not name have the form of
		// "What do we get from Norrland Plastics?", which the graph
		// answers; the router cannot tell these from it.
		{"What does the Beacon S2 Air Quality Sensor measure?", agent.RouteGraph, ""},
		{"Who approves expenses in Finance?", agent.RouteGraph, ""},
		// Document questions that name a product.
		{"How long is the warranty on the Beacon T1?", agent.RouteVector, ""},
		{"How long is the warranty on the Beacon T1 Temperature Logger?", agent.RouteVector, ""},
		{"Can I return a Lumen Gateway after 40 days?", agent.RouteVector, ""},
		{"Who do I contact about a broken Lumen Gateway?", agent.RouteVector, ""},
		{"Who should I ask about a refund for Brightline Cloud?", agent.RouteVector, ""},
		{"What is the refund policy for Brightline Cloud?", agent.RouteVector, ""},
		{"How do I reset the Lumen Gateway?", agent.RouteVector, ""},
		{"What is the uptime of Brightline Cloud?", agent.RouteVector, ""},
		{"Do schools or charities get a discount on Brightline Cloud?", agent.RouteVector, ""},
		{"Who handles security incidents?", agent.RouteVector, ""},
		{"Who must approve an exception to the refund policy?", agent.RouteVector, ""},
		{"Where does data from American customers live by default?", agent.RouteVector, ""},
		{"How soon after release do I have to install ordinary operating system patches?", agent.RouteVector, ""},
		{"How far in advance is scheduled maintenance announced?", agent.RouteVector, ""},
		{"My notebook was stolen, whom do I tell?", agent.RouteVector, ""},
	}
	b := New(demoNames(t))
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			got, err := b.Route(context.Background(), tt.question)
			if err != nil {
				t.Fatal(err)
			}
			if got.Route != tt.route || (tt.reason != "" && !strings.Contains(got.Reason, tt.reason)) {
				t.Errorf("Route(%q) = %s %q, want %s with reason containing %q", tt.question, got.Route, got.Reason, tt.route, tt.reason)
			}
		})
	}
}
