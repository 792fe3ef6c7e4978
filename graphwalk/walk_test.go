package graphwalk_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/graphwalk/graphwalktest"
	"github.com/switchboard/switchboard/kb"
)

// memStore is a graphwalk.Store over slices, for testing the walk without
// a database. Its answers follow the Store contract as the real stores
// do; TestMemStore holds it to that.
type memStore struct {
	nodes map[string]graphwalk.Node
	ids   []string // in insertion order
	facts []graphwalk.Fact
}

func newMemStore(nodes []kb.Node, edges []kb.Edge) *memStore {
	s := &memStore{nodes: map[string]graphwalk.Node{}}
	s.add(nodes, edges)
	return s
}

func (s *memStore) add(nodes []kb.Node, edges []kb.Edge) {
	for _, n := range nodes {
		if _, ok := s.nodes[n.ID]; !ok {
			s.ids = append(s.ids, n.ID)
		}
		s.nodes[n.ID] = graphwalk.Node{ID: n.ID, Label: n.Label, Name: n.Name, Props: maps(n.Props)}
	}
	for _, e := range edges {
		// Stored as the stores store types: "located in" → LOCATED_IN.
		typ := strings.ToUpper(strings.Join(strings.Fields(e.Type), "_"))
		s.facts = append(s.facts, graphwalk.Fact{ID: strconv.Itoa(len(s.facts)), Src: s.nodes[e.Source],
			Dst: s.nodes[e.Target], Type: typ, Props: maps(e.Props), Origin: e.Origin})
	}
}

func maps(p map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range p {
		out[k] = v
	}
	return out
}

func (s *memStore) EntityIndex(context.Context) (*graphwalk.Index, error) {
	var es []graphwalk.Entry
	var schema []string // relationship types and property keys
	for _, id := range s.ids {
		n := s.nodes[id]
		es = append(es, graphwalk.Entry{ID: id, Name: n.Name, Labels: []string{n.Label}})
		for k := range n.Props {
			schema = append(schema, k)
		}
	}
	for _, f := range s.facts {
		schema = append(schema, f.Type)
		for k := range f.Props {
			schema = append(schema, k)
		}
	}
	return graphwalk.NewIndex(es, schema...), nil
}

func (s *memStore) NodesByIDs(_ context.Context, ids []string) ([]graphwalk.Node, error) {
	var out []graphwalk.Node
	for _, id := range ids {
		if n, ok := s.nodes[id]; ok {
			out = append(out, n)
		}
	}
	return out, nil
}

func (s *memStore) ofLabel(label string) []graphwalk.Node {
	var out []graphwalk.Node
	for _, id := range s.ids {
		if n := s.nodes[id]; n.Label == label {
			out = append(out, n)
		}
	}
	return out
}

func (s *memStore) NodesOfLabel(_ context.Context, label string, order graphwalk.Order, limit int) ([]graphwalk.Node, error) {
	out := s.ofLabel(label)
	slices.SortFunc(out, func(a, b graphwalk.Node) int {
		if order == graphwalk.ByName {
			return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(limit, len(out))], nil
}

func (s *memStore) CountLabel(_ context.Context, label string) (int, error) {
	return len(s.ofLabel(label)), nil
}

func (s *memStore) EdgesOf(_ context.Context, ids []string, limit int) ([][]graphwalk.Fact, error) {
	out := make([][]graphwalk.Fact, len(ids))
	for i, id := range ids {
		var fs []graphwalk.Fact
		for _, f := range s.facts {
			if f.Src.ID == id || f.Dst.ID == id {
				fs = append(fs, f)
			}
		}
		slices.SortStableFunc(fs, func(a, b graphwalk.Fact) int { return strings.Compare(a.Type, b.Type) })
		out[i] = fs[:min(limit, len(fs))]
	}
	return out, nil
}

// retriever is a Walker as an agent.Retriever, as the stores wrap it.
type retriever struct{ w graphwalk.Walker }

func (r retriever) Retrieve(ctx context.Context, req agent.Request) ([]agent.Document, error) {
	docs, err := r.w.Retrieve(ctx, req.Query, req.Limit)
	for i := range docs {
		docs[i].Route = agent.RouteGraph
	}
	return docs, err
}

func TestMemStore(t *testing.T) {
	graphwalktest.TestStore(t, newMemStore(graphwalktest.Nodes, graphwalktest.Edges))
}

func TestWalker(t *testing.T) {
	s := newMemStore(graphwalktest.Nodes, graphwalktest.Edges)
	graphwalktest.TestRetriever(t, func(hops, maxEdges int) agent.Retriever {
		return retriever{graphwalk.Walker{Store: s, Hops: hops, MaxEdges: maxEdges}}
	})
}

// The relation a question names is taken first from a hub.
func TestWalkRelationFirst(t *testing.T) {
	s := newMemStore(graphwalktest.HubNodes, graphwalktest.HubEdges)
	graphwalktest.TestHubRetriever(t, retriever{graphwalk.Walker{Store: s}})
}

// A hub with many edges must not crowd its siblings out of a bounded walk.
func TestWalkSharesBudget(t *testing.T) {
	nodes := []kb.Node{{ID: "hub", Label: "Vendor", Name: "Alpha Hub"}, {ID: "zeta", Label: "Vendor", Name: "Zeta"},
		{ID: "c-z", Label: "Client", Name: "Zeta Client"}}
	edges := []kb.Edge{{Source: "zeta", Type: "SERVES", Target: "c-z"}}
	for i := range 30 {
		id := fmt.Sprintf("c%d", i)
		nodes = append(nodes, kb.Node{ID: id, Label: "Client", Name: "Client " + id})
		edges = append(edges, kb.Edge{Source: "hub", Type: "SERVES", Target: id})
	}
	w := graphwalk.Walker{Store: newMemStore(nodes, edges), MaxEdges: 6}
	docs, err := w.Retrieve(context.Background(), "list the vendors", 6)
	if err != nil {
		t.Fatal(err)
	}
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
}

// Name fragments find the shortest names first, a name's nodes together
// in id order, ties between names in name order.
func TestFragments(t *testing.T) {
	s := newMemStore([]kb.Node{
		{ID: "z", Label: "Customer", Name: "Globex Berlin"},
		{ID: "a", Label: "Customer", Name: "Globex Munich"},
		{ID: "m", Label: "Customer", Name: "Globex"},
		{ID: "b", Label: "Customer", Name: "globex berlin"},
		{ID: "x", Label: "Customer", Name: "Initech"},
	}, nil)
	docs, err := graphwalk.Walker{Store: s}.Retrieve(context.Background(), "anything on glob?", 3)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.Metadata["node"])
	}
	if fmt.Sprint(ids) != "[m b z]" {
		t.Errorf("fragment hits %v, want [m b z]", ids)
	}
}

func TestMatchBound(t *testing.T) {
	idx, _ := newMemStore(graphwalktest.Nodes, nil).EntityIndex(context.Background())
	many := strings.Repeat("Acme Corp Globex Corporation Initech Umbrella Hooli Berlin Jane Doe Acme ", 200)
	if got := idx.MatchNames(many); len(got) != 8 {
		t.Errorf("%d matches of 8 names", len(got))
	}
	var ns []kb.Node
	for i := range 30 {
		ns = append(ns, kb.Node{ID: strconv.Itoa(i), Name: fmt.Sprintf("Company %c%c", 'a'+i%26, 'a'+i/26)})
	}
	idx, _ = newMemStore(ns, nil).EntityIndex(context.Background())
	var text strings.Builder
	for _, n := range ns {
		text.WriteString(n.Name + ", ")
	}
	if got := idx.MatchNames(text.String()); len(got) != 10 {
		t.Errorf("%d matches, want at most 10", len(got))
	}
}
