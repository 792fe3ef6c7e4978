package offline

import "testing"

func TestGraphLead(t *testing.T) {
	lumen := []string{
		"- Entity: Lumen Gateway (Product) {category: hardware} [1]",
		"- Lumen Gateway (Product) <-[BUYS]- Kitagawa Logistics (Customer) [1]",
		"- Lumen Gateway (Product) <-[SUPPLIES]- Kestrel Microsystems (Supplier) -[SUPPLIES]-> Beacon S2 (Product) <-[BUYS]- Mapleridge Health (Customer) [2]",
	}
	top := []string{
		"- Halvorsen Freight (Customer) -[BUYS]-> Fleetwatch Tracker (Product) <-[SUPPLIES]- Amberley Batteries (Supplier) [1]",
		"- Mapleridge Health (Customer) -[BUYS]-> Brightline Cloud (Product) <-[SUPPLIES]- Cirrus Hosting (Supplier) [1]",
		"- Quintero Retail Group (Customer) -[BUYS]-> Brightline Cloud (Product) <-[SUPPLIES]- Cirrus Hosting (Supplier) [1]",
	}
	for _, c := range []struct {
		q    string
		rows []string
		want string
	}{
		// Only the customer next to the product named: Mapleridge buys Beacon S2.
		{"Which customers buy the Lumen Gateway?", lumen, "Customer: Kitagawa Logistics [1]."},
		// The first kind the question names is the one asked for.
		{"Which suppliers are connected to our top 3 customers?", top, "Suppliers: Amberley Batteries and Cirrus Hosting [1]."},
		{"Who owns the Lumen Gateway?", lumen, ""}, // asks for no kind the rows hold
		{"What are the Lumen Gateway's products?", lumen, ""},
	} {
		if got := graphLead(c.q, c.rows); got != c.want {
			t.Errorf("graphLead(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}
