package neo4j

import (
	"context"
	"sort"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
)

// This file is Graph's side of the entity-neighbourhood walk, the graph
// route without a language model and its fallback when generated Cypher
// finds nothing: the queries of graphwalk.Store in Cypher. The walk itself
// is graphwalk.Walker, the one package sqlite's GraphRetriever runs too,
// so that both backends give the same documents for the same graph.

var _ graphwalk.Store = (*Graph)(nil)

// defaultLimit is the number of documents when the request sets no limit.
const defaultLimit = 6

// walkRetrieve is the walk of GraphRetriever.
func (r *GraphRetriever) walkRetrieve(ctx context.Context, query string, limit int) ([]agent.Document, error) {
	w := graphwalk.Walker{Store: r.g, Hops: r.Hops, MaxEdges: r.MaxEdges}
	return w.Retrieve(ctx, query, limit)
}

// nodeFromDB converts a driver node: its own label is the first one other
// than Entity, and id, name and source are fields, not props.
func nodeFromDB(n dbtype.Node) graphwalk.Node {
	out := graphwalk.Node{Props: map[string]string{}}
	labels := append([]string(nil), n.Labels...)
	sort.Strings(labels)
	for _, l := range labels {
		if l != entityLabel {
			out.Label = l
			break
		}
	}
	for k, v := range n.Props {
		switch k {
		case "id":
			out.ID = propString(v)
		case "name":
			out.Name = propString(v)
		case "source":
		default:
			out.Props[k] = propString(v)
		}
	}
	if out.Name == "" {
		out.Name = out.ID
	}
	return out
}

// readNodes runs a query returning one node per record.
func (g *Graph) readNodes(ctx context.Context, cypher string, params map[string]any) ([]graphwalk.Node, error) {
	recs, err := g.read(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	out := make([]graphwalk.Node, 0, len(recs))
	for _, r := range recs {
		if n, ok := r.Values[0].(dbtype.Node); ok {
			out = append(out, nodeFromDB(n))
		}
	}
	return out, nil
}

// NodesByIDs returns the nodes with the given ids, in the order of ids.
func (g *Graph) NodesByIDs(ctx context.Context, ids []string) ([]graphwalk.Node, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return g.readNodes(ctx, `UNWIND range(0, size($ids) - 1) AS i
		MATCH (n:Entity {id: $ids[i]})
		RETURN n ORDER BY i`, map[string]any{"ids": anys(ids)})
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// NodesOfLabel returns up to limit nodes labelled label, in order. The
// label is a name the graph holds (the walk takes it from the index), and
// it is quoted, since a label cannot be a parameter.
func (g *Graph) NodesOfLabel(ctx context.Context, label string, order graphwalk.Order, limit int) ([]graphwalk.Node, error) {
	by := "n.id"
	if order == graphwalk.ByName {
		by = "n.name, n.id"
	}
	return g.readNodes(ctx, `MATCH (n:Entity:`+quote(label)+`)
		RETURN n ORDER BY `+by+` LIMIT $n`, map[string]any{"n": limit})
}

// CountLabel returns the number of nodes labelled label.
func (g *Graph) CountLabel(ctx context.Context, label string) (int, error) {
	return g.count(ctx, `MATCH (n:Entity:`+quote(label)+`) RETURN count(n)`)
}

// EdgesOf returns, for each of ids, up to limit relationships touching
// that node in either direction, ordered by type, then element id. One
// query serves a whole frontier of the walk.
func (g *Graph) EdgesOf(ctx context.Context, ids []string, limit int) ([][]graphwalk.Fact, error) {
	out := make([][]graphwalk.Fact, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	recs, err := g.read(ctx, `UNWIND range(0, size($ids) - 1) AS i
		CALL (i) {
			MATCH (:Entity {id: $ids[i]})-[r]-(:Entity)
			WITH DISTINCT r
			ORDER BY type(r), elementId(r)
			LIMIT $n
			RETURN r
		}
		RETURN i, r, startNode(r) AS s, endNode(r) AS t
		ORDER BY i, type(r), elementId(r)`, map[string]any{"ids": anys(ids), "n": limit})
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		i, _ := rec.Values[0].(int64)
		r, ok1 := rec.Values[1].(dbtype.Relationship)
		s, ok2 := rec.Values[2].(dbtype.Node)
		t, ok3 := rec.Values[3].(dbtype.Node)
		if !ok1 || !ok2 || !ok3 || i < 0 || int(i) >= len(ids) {
			continue
		}
		f := graphwalk.Fact{ID: r.ElementId, Type: r.Type, Src: nodeFromDB(s), Dst: nodeFromDB(t), Props: map[string]string{}}
		for k, v := range r.Props {
			if k == "origin" {
				f.Origin = propString(v)
			} else {
				f.Props[k] = propString(v)
			}
		}
		out[i] = append(out[i], f)
	}
	return out, nil
}
