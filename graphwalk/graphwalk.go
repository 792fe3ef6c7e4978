// Package graphwalk answers questions from a knowledge graph without a
// language model: it finds where a question starts in the graph (a
// ranking, named entities, labels, name fragments), walks the edges
// around those nodes and writes what it found as documents for the
// generator to cite. See Walker.
//
// The walk is the same for every graph store, and the stores must give
// the same documents for the same graph, so it lives here once; a store
// (sqlite.GraphStore, neo4j.Graph) only implements Store with its own
// queries.
package graphwalk

import "context"

// Node is a node of the graph as the walk reads it.
type Node struct {
	ID    string            // unique in the graph
	Label string            // its kind (Customer, Supplier, …); "" when it has none
	Name  string            // never empty: a store names an unnamed node by its ID
	Props map[string]string // never nil
}

// Ref is how a node is written in a fact: "Acme Corp (Supplier)".
func (n Node) Ref() string {
	if n.Label == "" {
		return n.Name
	}
	return n.Name + " (" + n.Label + ")"
}

// Fact is one edge with both of its ends.
type Fact struct {
	// ID identifies the edge within the store, so that an edge reached
	// from both of its ends is listed once.
	ID       string
	Src, Dst Node              // the edge's source and target
	Type     string            // as stored: SUPPLIES, LOCATED_IN
	Props    map[string]string // never nil
	Origin   string            // where the fact came from; "" when unknown
}

// String writes the fact as a line of a document:
// "Acme Corp (Supplier) -[SUPPLIES]-> Globex (Customer) {since: 2019}".
func (f Fact) String() string {
	s := f.Src.Ref() + " -[" + f.Type + "]-> " + f.Dst.Ref()
	if p := formatProps(f.Props, maxPropsShown); p != "" {
		s += " " + p
	}
	if isLink(f.Origin) { // the message that states it (sources.go)
		s += " (source: " + f.Origin + ")"
	}
	return s
}

// Order is the order in which Store.NodesOfLabel returns nodes. A listing
// reads in name order; a ranking only needs a stable choice of which
// nodes to read, and the id order is the one the stores have indexed.
type Order int

const (
	// ByID orders nodes by id.
	ByID Order = iota
	// ByName orders nodes by name, then id.
	ByName
)

// Store is what the walk reads from a graph store. The methods are the
// few questions the walk asks, each answerable by one indexed query, so
// that every store can answer them in its own query language. A store may
// answer from a cache and share the nodes, facts and Props it returns
// with it: callers read them and do not modify them.
type Store interface {
	// EntityIndex returns the index of the graph's entity names and
	// labels, current as of the call. Stores build it with NewIndex and
	// keep it in an IndexCache: the walk asks for it once per question.
	EntityIndex(ctx context.Context) (*Index, error)
	// NodesByIDs returns the nodes with the given ids, in the order of
	// ids; an id without a node is left out.
	NodesByIDs(ctx context.Context, ids []string) ([]Node, error)
	// NodesOfLabel returns up to limit nodes labelled label, in order.
	NodesOfLabel(ctx context.Context, label string, order Order, limit int) ([]Node, error)
	// CountLabel returns the number of nodes labelled label.
	CountLabel(ctx context.Context, label string) (int, error)
	// EdgesOf returns, for each of ids, up to limit edges touching that
	// node in either direction, ordered by type (then in any stable
	// order), so that a node's relations of one kind are listed together
	// and one hub cannot fill a document alone. It takes a whole frontier
	// of the walk at once so that a store can read it in one query.
	EdgesOf(ctx context.Context, ids []string, limit int) ([][]Fact, error)
}
